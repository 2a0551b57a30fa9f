/**
 * Oversubscription's two agent extension points (Mesos's ResourceEstimator and QoSController):
 * what they are given and answer, and the built-in modules a modules file names as
 * `arbiter:fixed`, `arbiter:usage` (estimators) and `arbiter:load` (a QoS controller).
 *
 * - A resource estimator answers what the agent may offer as revocable on top of what its
 *   revocable tasks hold now (Mesos's "oversubscribable"); the agent reports that plus the
 *   revocable resources in use as its revocable total.
 * - A QoS controller answers corrections: revocable tasks to kill (Mesos's QoSCorrection KILL);
 *   the agent ends each with REASON_CONTAINER_PREEMPTED.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ArbiterModule } from './points';

/** Scalar amounts by resource name (`cpus` in cores, `mem` in MB). */
export type Scalars = Record<string, number>;

/** A task running on the agent, what it holds and what it was last measured using. */
export interface TaskUsage {
  frameworkId: string;
  taskId: string;
  /** Whether it runs on revocable resources (any of its resources is). */
  revocable: boolean;
  /** The scalars it holds (revocable or not). */
  allocated: Scalars;
  /** The revocable part of them. */
  allocatedRevocable: Scalars;
  /** What it used, measured (`cpus`: cores over the last interval; `mem`: MB); absent until measured twice. */
  used?: Scalars;
}

export interface EstimatorInput {
  agentId: string;
  /** The agent's non-revocable total (scalars). */
  total: Scalars;
  tasks: readonly TaskUsage[];
}
/** Revocable amounts the agent may offer besides those its revocable tasks hold. */
export type ResourceEstimator = (input: EstimatorInput) => Scalars | Promise<Scalars>;

export interface QoSInput {
  agentId: string;
  tasks: readonly TaskUsage[];
  /** The machine's load averages over 1, 5 and 15 minutes (os.loadavg()). */
  load: readonly [number, number, number];
}
/** Kill a revocable task; `message` goes into its update. */
export interface QoSCorrection {
  kill: { frameworkId: string; taskId: string };
  message?: string;
}
export type QoSController = (input: QoSInput) => readonly QoSCorrection[] | Promise<readonly QoSCorrection[]>;

const sum = (tasks: readonly TaskUsage[], pick: (t: TaskUsage) => Scalars | undefined, name: string) =>
  tasks.reduce((s, t) => s + (pick(t)?.[name] ?? 0), 0);

function scalarsParameter(value: unknown, what: string): Scalars {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} must be an object of amounts`);
  const out: Scalars = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${what}.${k} must be a number >= 0`);
    out[k] = v;
  }
  return out;
}

/** `arbiter:fixed` (Mesos's `fixed`): `resources` revocable in all, less what revocable tasks hold. */
export const fixedEstimator: ArbiterModule = {
  name: 'fixed',
  apiVersion: 1,
  points: ['agent:resource-estimator'],
  create(parameters) {
    const total = scalarsParameter(parameters.resources, 'resources');
    return {
      resourceEstimator: ({ tasks }) => {
        return Object.fromEntries(
          Object.entries(total).map(([name, v]) => [name, Math.max(0, v - sum(tasks, (t) => t.allocatedRevocable, name))]),
        );
      },
    };
  },
};

/**
 * `arbiter:usage`: what the non-revocable tasks hold and do not use (allocation less measured
 * use, a task not measured yet counting as using all), less `margin` (a fraction, default 0.2),
 * less what revocable tasks hold. `resources` (default cpus and mem) names what it estimates.
 */
export const usageEstimator: ArbiterModule = {
  name: 'usage',
  apiVersion: 1,
  points: ['agent:resource-estimator'],
  create(parameters) {
    const margin = parameters.margin ?? 0.2;
    if (typeof margin !== 'number' || !(margin >= 0 && margin < 1)) throw new Error('margin must be a number from 0 to below 1');
    const names = parameters.resources ?? ['cpus', 'mem'];
    if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) throw new Error('resources must be a list of names');
    return {
      resourceEstimator: ({ tasks }) => {
        const regular = tasks.filter((t) => !t.revocable);
        const out: Scalars = {};
        for (const name of names) {
          const idle = regular.reduce((s, t) => s + Math.max(0, (t.allocated[name] ?? 0) - (t.used?.[name] ?? t.allocated[name])), 0);
          const slack = idle * (1 - margin) - sum(tasks, (t) => t.allocatedRevocable, name);
          out[name] = Math.max(0, Math.floor(slack * 1000) / 1000);
        }
        return out;
      },
    };
  },
};

/**
 * `arbiter:load` (Mesos's `load`): every revocable task is killed while a load average is over
 * its threshold (`threshold1`, `threshold5`, `threshold15`; at least one). `loadFile` (relative
 * to the modules file) is read instead of the machine's load (/proc/loadavg's format: three
 * numbers first), a signal an operator or a test can set.
 */
export const loadController: ArbiterModule = {
  name: 'load',
  apiVersion: 1,
  points: ['agent:qos-controller'],
  create(parameters, context) {
    const thresholds = [parameters.threshold1, parameters.threshold5, parameters.threshold15];
    if (thresholds.every((t) => t === undefined)) throw new Error('give threshold1, threshold5 or threshold15');
    for (const t of thresholds)
      if (t !== undefined && (typeof t !== 'number' || !(t > 0))) throw new Error('a threshold must be a number above 0');
    const file = typeof parameters.loadFile === 'string' ? path.resolve(context.baseDir, parameters.loadFile) : undefined;
    return {
      qosController: ({ tasks, load }) => {
        const now = file ? fs.readFileSync(file, 'utf8').trim().split(/\s+/).slice(0, 3).map(Number) : load;
        const over = thresholds.findIndex((t, i) => typeof t === 'number' && (now[i] ?? 0) > t);
        if (over < 0) return [];
        const message = `preempted: the ${[1, 5, 15][over]}-minute load average ${now[over]} is over ${String(thresholds[over])}`;
        return tasks.filter((t) => t.revocable).map((t) => ({ kill: { frameworkId: t.frameworkId, taskId: t.taskId }, message }));
      },
    };
  },
};

/** The built-in modules a modules file names by `use`. */
export const BUILTIN_MODULES: Readonly<Record<string, ArbiterModule>> = {
  'arbiter:fixed': fixedEstimator,
  'arbiter:usage': usageEstimator,
  'arbiter:load': loadController,
};
