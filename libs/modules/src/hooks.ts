/**
 * Running the hooks: each point's hooks one after another in the modules file's order, each
 * within the time limit. A hook that throws, rejects, answers something of the wrong shape or
 * takes longer than the limit is counted and logged, and its call is treated as the point
 * defines, never as the host's failure:
 *
 * - control-plane:task-launch: as if it had answered nothing (the task launches, undecorated
 *   by that hook); only an explicit `{ refuse }` stops the launch.
 * - agent:executor-start, agent:container-start: as if it had answered nothing.
 * - agent:executor-removed: nothing to undo; the next hook runs.
 *
 * A later hook sees what the earlier ones added (labels, environment).
 */
import type { ModuleCounters } from './counters';
import type { ModuleContainer, ModuleIsolator, ModuleLimitation } from './isolator-module';
import type { EstimatorInput, QoSCorrection, QoSInput, Scalars } from './oversubscription';
import type { ExecutorRemovedInput, ExtensionPoint, KeyValue, ModuleInstance, StartInput, TaskLaunchInput } from './points';

/** A loaded module's hooks, in configuration order. */
export interface HookModule {
  name: string;
  instance: ModuleInstance;
}

/** What the task-launch hooks made of a task. */
export interface TaskLaunchOutcome {
  /** Set when a hook refused it: which, and why. */
  refused?: { module: string; reason: string };
  labels: KeyValue[];
  environment: Record<string, string>;
  /** Whether any hook changed the labels or the environment. */
  changed: boolean;
}

class HookTimeout extends Error {}

/** An isolator's prepare, update or cleanup, called on the isolator (a module may use `this`). */
function callStep(isolator: ModuleIsolator, step: 'prepare' | 'update' | 'cleanup', container: ModuleContainer): unknown {
  if (step === 'prepare') return isolator.prepare?.(container);
  if (step === 'update') return isolator.update?.(container);
  return isolator.cleanup?.(container);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEnv = (v: unknown): v is Record<string, string> =>
  isObject(v) && Object.entries(v).every(([k, s]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && typeof s === 'string');
const isLabels = (v: unknown): v is KeyValue[] =>
  Array.isArray(v) &&
  v.every((l) => isObject(l) && typeof l.key === 'string' && l.key !== '' && (l.value === undefined || typeof l.value === 'string'));

export class HookRunner {
  constructor(
    private readonly modules: readonly HookModule[],
    private readonly timeoutMs: number,
    private readonly counters: ModuleCounters,
  ) {}

  /** Whether any module implements the hook (a host skips the await entirely when none does). */
  has(
    member: 'taskLaunch' | 'executorStart' | 'containerStart' | 'executorRemoved' | 'resourceEstimator' | 'qosController' | 'isolator',
  ): boolean {
    return this.modules.some((m) => m.instance[member] !== undefined);
  }

  /** One call with the time limit: its value, or the failure (counted and logged with what happens instead). */
  private async call<T>(
    module: string,
    point: ExtensionPoint,
    run: () => T | Promise<T>,
    instead: string,
  ): Promise<{ ok: true; value: T } | { ok: false }> {
    const count = this.counters.of(module, point);
    count.calls++;
    let timer: NodeJS.Timeout | undefined;
    try {
      const value = await Promise.race([
        Promise.resolve().then(run),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new HookTimeout(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
          timer.unref();
        }),
      ]);
      return { ok: true, value };
    } catch (err) {
      this.counters.failed(count, err, instead, err instanceof HookTimeout);
      return { ok: false };
    } finally {
      clearTimeout(timer);
    }
  }

  async taskLaunch(input: TaskLaunchInput): Promise<TaskLaunchOutcome> {
    const labels = [...input.task.labels];
    const environment = { ...input.task.environment };
    let changed = false;
    for (const m of this.modules) {
      const hook = m.instance.taskLaunch;
      if (!hook) continue;
      const current: TaskLaunchInput = { ...input, task: { ...input.task, labels: [...labels], environment: { ...environment } } };
      const answer = await this.call(m.name, 'control-plane:task-launch', () => hook(current), 'the task launches without its changes');
      if (!answer.ok || answer.value === undefined) continue;
      const decision: unknown = answer.value;
      const count = this.counters.of(m.name, 'control-plane:task-launch');
      if (!isObject(decision)) {
        this.counters.failed(count, new Error('answered neither nothing, { refuse } nor { labels, environment }'), 'the task launches');
        continue;
      }
      if ('refuse' in decision) {
        const reason = typeof decision.refuse === 'string' && decision.refuse.trim() !== '' ? decision.refuse.trim() : 'no reason given';
        return { refused: { module: m.name, reason }, labels, environment, changed };
      }
      if (decision.labels !== undefined && !isLabels(decision.labels)) {
        this.counters.failed(count, new Error('answered labels that are not [{ key, value? }]'), 'the task launches without its changes');
        continue;
      }
      if (decision.environment !== undefined && !isEnv(decision.environment)) {
        this.counters.failed(
          count,
          new Error('answered an environment that is not { NAME: "value" }'),
          'the task launches without its changes',
        );
        continue;
      }
      for (const l of decision.labels ?? []) {
        const i = labels.findIndex((x) => x.key === l.key);
        if (i >= 0) labels[i] = { ...l };
        else labels.push({ ...l });
        changed = true;
      }
      if (decision.environment && Object.keys(decision.environment).length) {
        Object.assign(environment, decision.environment);
        changed = true;
      }
    }
    return { labels, environment, changed };
  }

  /** The environment the executor-start (or container-start) hooks add, in order (a later one wins). */
  async start(point: 'agent:executor-start' | 'agent:container-start', input: StartInput): Promise<Record<string, string>> {
    const member = point === 'agent:executor-start' ? 'executorStart' : 'containerStart';
    const added: Record<string, string> = {};
    for (const m of this.modules) {
      const hook = m.instance[member];
      if (!hook) continue;
      const current: StartInput = { ...input, environment: { ...input.environment, ...added } };
      const answer = await this.call(m.name, point, () => hook(current), 'it starts without its environment');
      if (!answer.ok || answer.value === undefined) continue;
      const decision: unknown = answer.value;
      if (!isObject(decision) || (decision.environment !== undefined && !isEnv(decision.environment))) {
        this.counters.failed(
          this.counters.of(m.name, point),
          new Error('answered something other than nothing or { environment: { NAME: "value" } }'),
          'it starts without its environment',
        );
        continue;
      }
      Object.assign(added, decision.environment ?? {});
    }
    return added;
  }

  async executorRemoved(input: ExecutorRemovedInput): Promise<void> {
    for (const m of this.modules) {
      const hook = m.instance.executorRemoved;
      if (hook) await this.call(m.name, 'agent:executor-removed', () => hook(input), 'the next hook runs');
    }
  }

  /**
   * The resource estimator's answer (agent:resource-estimator): revocable amounts by name, or
   * undefined when it failed (the agent keeps its last estimate) or none is loaded.
   */
  async estimate(input: EstimatorInput): Promise<Scalars | undefined> {
    const m = this.modules.find((x) => x.instance.resourceEstimator);
    const estimator = m?.instance.resourceEstimator;
    if (!m || !estimator) return undefined;
    const instead = 'the agent keeps its last estimate';
    const answer = await this.call(m.name, 'agent:resource-estimator', () => estimator(input), instead);
    if (!answer.ok) return undefined;
    const value: unknown = answer.value;
    if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0)) {
      this.counters.failed(this.counters.of(m.name, 'agent:resource-estimator'), new Error('answered no { name: amount >= 0 }'), instead);
      return undefined;
    }
    return value as Scalars;
  }

  /** The QoS controller's corrections (agent:qos-controller); none when it failed or none is loaded. */
  async corrections(input: QoSInput): Promise<QoSCorrection[]> {
    const m = this.modules.find((x) => x.instance.qosController);
    const controller = m?.instance.qosController;
    if (!m || !controller) return [];
    const instead = 'no task is killed this time';
    const answer = await this.call(m.name, 'agent:qos-controller', () => controller(input), instead);
    if (!answer.ok) return [];
    const value: unknown = answer.value;
    const valid = (c: unknown) =>
      isObject(c) &&
      isObject(c.kill) &&
      typeof c.kill.frameworkId === 'string' &&
      typeof c.kill.taskId === 'string' &&
      (c.message === undefined || typeof c.message === 'string');
    if (!Array.isArray(value) || !value.every(valid)) {
      this.counters.failed(
        this.counters.of(m.name, 'agent:qos-controller'),
        new Error('answered no [{ kill: { frameworkId, taskId } }]'),
        instead,
      );
      return [];
    }
    return value as QoSCorrection[];
  }

  /** The isolator modules' synchronous steps, in order; a throw is counted and logged, and the next one runs. */
  isolatorStep(step: 'prepare' | 'isolate' | 'update' | 'cleanup', container: ModuleContainer, pid?: number): void {
    for (const m of this.modules) {
      const isolator = m.instance.isolator;
      if (!isolator?.[step]) continue;
      const count = this.counters.of(m.name, 'agent:isolator');
      count.calls++;
      try {
        const out: unknown = step === 'isolate' ? isolator.isolate?.(container, pid ?? 0) : callStep(isolator, step, container);
        if (out instanceof Promise) out.catch((err: unknown) => this.counters.failed(count, err, `its ${step} is ignored`));
      } catch (err) {
        this.counters.failed(count, err, `its ${step} is ignored, the container goes on`);
      }
    }
  }

  /** The first limitation an isolator module's watch finds, if any (time-limited; a failure counts as none). */
  async isolatorWatch(container: ModuleContainer): Promise<Required<ModuleLimitation> | undefined> {
    for (const m of this.modules) {
      const isolator = m.instance.isolator;
      if (!isolator?.watch) continue;
      const instead = 'the task runs on';
      const answer = await this.call(m.name, 'agent:isolator', () => isolator.watch?.(container), instead);
      if (!answer.ok || answer.value === undefined) continue;
      const found: unknown = answer.value;
      if (!isObject(found) || typeof found.message !== 'string' || (found.reason !== undefined && typeof found.reason !== 'string')) {
        this.counters.failed(this.counters.of(m.name, 'agent:isolator'), new Error('answered no { reason?, message }'), instead);
        continue;
      }
      const reason =
        typeof found.reason === 'string' && /^REASON_[A-Z0-9_]+$/.test(found.reason) ? found.reason : 'REASON_CONTAINER_LIMITATION';
      return { reason, message: `${found.message} (isolator module ${m.name})` };
    }
    return undefined;
  }
}
