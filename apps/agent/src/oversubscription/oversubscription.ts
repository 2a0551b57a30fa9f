/**
 * Oversubscription on the agent (Mesos's --resource_estimator and --qos_controller, as
 * modules: docs/modules.md). Every interval it measures what its tasks use (usage.ts), asks the
 * resource estimator what it may offer as revocable, and reports its new total to the control
 * plane when that changed (revocable = what revocable tasks hold + the estimate); then it asks
 * the QoS controller for corrections and kills each revocable task named, which ends KILLED
 * with REASON_CONTAINER_PREEMPTED. A task on non-revocable resources is never killed this way.
 * A module that fails is counted and logged by the hook runner: the last estimate stays, no
 * task is killed.
 */
import * as os from 'node:os';
import type { ResourceEntry } from '@arbiter/contracts';
import type { HookRunner, LoadedModules, Scalars, TaskUsage } from '@arbiter/modules';
import type { Logger } from 'pino';
import type { TaskRunner } from '../executors/task-runner';
import { groupPids, type Sample, sample, usedBetween } from './usage';

export interface OversubscriptionOptions {
  /** How often it estimates and corrects (Mesos's --oversubscribed_resources_interval; default 15 s; 0: only when tick() is called). */
  intervalMs?: number;
  /** The load averages the QoS controller is given (default os.loadavg()). */
  load?: () => readonly [number, number, number];
  now?: () => number;
}

export interface OversubscriptionAgent {
  id(): string | undefined;
  /** The agent's resources as it reports them now. */
  resources(): ResourceEntry[];
  update(resources: ResourceEntry[]): Promise<void>;
  tasks: TaskRunner;
  log: Logger;
}

/** What it did, for logs and tests. */
export interface OversubscriptionStats {
  estimates: number;
  /** Revocable totals reported to the control plane. */
  reports: number;
  /** Revocable tasks killed (preempted). */
  evictions: number;
  /** Corrections refused: a task that is not revocable, or not running here. */
  refused: number;
  /** The revocable total last reported. */
  revocable: Scalars;
}

const scalarsOf = (entries: readonly ResourceEntry[]): Scalars => {
  const out: Scalars = {};
  for (const e of entries) if (typeof e.value === 'number') out[e.name] = (out[e.name] ?? 0) + e.value;
  return out;
};

export class Oversubscription {
  readonly stats: OversubscriptionStats = { estimates: 0, reports: 0, evictions: 0, refused: 0, revocable: {} };
  private readonly samples = new Map<string, Sample>();
  private readonly timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private readonly now: () => number;

  constructor(
    private readonly agent: OversubscriptionAgent,
    private readonly runner: HookRunner,
    private readonly options: OversubscriptionOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    const every = options.intervalMs ?? 15_000;
    if (every > 0) {
      this.timer = setInterval(() => void this.tick(), every);
      this.timer.unref();
    }
  }

  /** The agent's, when a module estimates or corrects. */
  static of(
    agent: { readonly id: string | undefined; tasks: TaskRunner; log: Logger; updateResources(r: ResourceEntry[]): Promise<void> },
    resources: () => ResourceEntry[],
    modules: LoadedModules | undefined,
    options?: OversubscriptionOptions,
  ): Oversubscription | undefined {
    const runner = modules?.hooks;
    if (!runner || !(runner.has('resourceEstimator') || runner.has('qosController'))) return undefined;
    const update = (r: ResourceEntry[]) => agent.updateResources(r);
    return new Oversubscription({ id: () => agent.id, resources, update, tasks: agent.tasks, log: agent.log }, runner, options);
  }

  /** One round: measure, estimate (and report), correct. A round still under way is not started twice. */
  tick(): Promise<void> {
    this.running ??= this.round()
      .catch((err: unknown) => this.agent.log.warn({ err: (err as Error).message }, 'oversubscription round failed'))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async round(): Promise<void> {
    const agentId = this.agent.id();
    if (agentId === undefined) return;
    const tasks = this.measure();
    if (this.runner.has('resourceEstimator')) await this.estimate(agentId, tasks);
    if (this.runner.has('qosController')) await this.correct(agentId, tasks);
  }

  private measure(): TaskUsage[] {
    const out: TaskUsage[] = [];
    const seen = new Set<string>();
    for (const t of this.agent.tasks.live()) {
      const proc = this.agent.tasks.processOf(t.frameworkId, t.taskId);
      if (!proc) continue;
      const key = `${t.frameworkId}/${t.taskId}`;
      seen.add(key);
      const resources = t.resources;
      const usage: TaskUsage = {
        frameworkId: t.frameworkId,
        taskId: t.taskId,
        revocable: resources.some((r) => r.revocable),
        allocated: scalarsOf(resources),
        allocatedRevocable: scalarsOf(resources.filter((r) => r.revocable)),
      };
      if (proc.pid) {
        const pids = proc.cgroup ? this.agent.tasks.containerizer.cgroups.pids(proc.cgroup) : [];
        const now = sample(pids.length ? pids : groupPids(proc.pid), this.now());
        const before = this.samples.get(key);
        const used = before && usedBetween(before, now);
        if (used) usage.used = used;
        this.samples.set(key, now);
      }
      out.push(usage);
    }
    for (const key of this.samples.keys()) if (!seen.has(key)) this.samples.delete(key);
    return out;
  }

  private async estimate(agentId: string, tasks: TaskUsage[]): Promise<void> {
    const current = this.agent.resources();
    const total = scalarsOf(current.filter((r) => !r.revocable));
    const estimate = await this.runner.estimate({ agentId, total, tasks });
    if (!estimate) return;
    this.stats.estimates++;
    const revocable: Scalars = {};
    for (const name of new Set([...Object.keys(estimate), ...tasks.flatMap((t) => Object.keys(t.allocatedRevocable))])) {
      const amount = (estimate[name] ?? 0) + tasks.reduce((s, t) => s + (t.allocatedRevocable[name] ?? 0), 0);
      if (amount > 0) revocable[name] = Math.round(amount * 1000) / 1000;
    }
    if (JSON.stringify(revocable) === JSON.stringify(scalarsOf(current.filter((r) => r.revocable)))) return;
    const entries: ResourceEntry[] = Object.entries(revocable).map(([name, value]) => ({ name, value, revocable: true }));
    await this.agent.update([...current.filter((r) => !r.revocable), ...entries]);
    this.stats.reports++;
    this.stats.revocable = revocable;
    this.agent.log.info({ revocable, estimate }, 'revocable resources reported');
  }

  private async correct(agentId: string, tasks: TaskUsage[]): Promise<void> {
    const load = this.options.load?.() ?? (os.loadavg() as [number, number, number]);
    for (const c of await this.runner.corrections({ agentId, tasks, load })) {
      const { frameworkId, taskId } = c.kill;
      const task = tasks.find((t) => t.frameworkId === frameworkId && t.taskId === taskId);
      if (!task?.revocable) {
        this.stats.refused++;
        this.agent.log.warn({ frameworkId, taskId }, 'QoS correction refused: the task is not a revocable task running here');
        continue;
      }
      const message = c.message ?? 'preempted by a QoS correction';
      if (this.agent.tasks.kill(frameworkId, taskId, 0, { state: 'KILLED', reason: 'REASON_CONTAINER_PREEMPTED', message })) {
        this.stats.evictions++;
        this.agent.log.warn({ frameworkId, taskId, message }, 'revocable task preempted');
      }
    }
  }
}
