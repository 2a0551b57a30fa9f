/**
 * Executors (Mesos's slave Framework/Executor): one process per (framework, executor id), started
 * through the containerizer on the first task naming it, reused by later ones, killed unless it
 * subscribes in time. Its updates go through the agent's journal; when it exits its unfinished
 * tasks end TASK_FAILED and the control plane is told. The protocol side: executor-protocol.ts.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type ExecutorSpec,
  type FrameworkMessage,
  isTerminalTaskState,
  type LaunchGroup,
  type LaunchTask,
  type RunningExecutorReport,
  type TaskState,
} from '@arbiter/contracts';
import type { Containerizer } from '../containerizer/containerizer';
import { processStartTicks } from '../containerizer/launcher';
import { Fetcher } from '../fetcher/fetcher';
import type { Collectable } from '../gc/gc';
import { ExecutorCheckpoints } from './executor-checkpoints';
import {
  checkpointOf,
  type ExecutorHooks,
  type ExecutorOptions,
  type EventStream,
  executorKey,
  executorLimits,
  type ExecutorRun,
  type ExecutorStatus,
  type ExecutorTask,
  liveTasks,
  exitedOf,
  noteAcknowledged,
  newRun,
  recoveredRun,
} from './executor-run';
import { linkTaskVolumes, taskHolder } from './group-volumes';
import { startExecutor } from './executor-launch';
import { ExecutorProtocol } from './executor-protocol';
import { NestedContainers } from './nested-containers';
import { allWithin, endOf } from './task';

export type { ExecutorHooks, ExecutorOptions } from './executor-run';

const terminal = isTerminalTaskState;
const MEMORY_POLL_MS = 250;
const NO_CHECKPOINT = 'the agent restarted and its framework does not checkpoint (FrameworkInfo.checkpoint)';

export class Executors {
  readonly runs = new Map<string, ExecutorRun>();
  /** Their records, and the executor API's last port (executors that outlive a restart reach it there again). */
  readonly checkpoints: ExecutorCheckpoints;
  readonly protocol: ExecutorProtocol;
  /** The containers executors launch under their own (task groups' image tasks). */
  readonly nested: NestedContainers;
  private readonly monitor: NodeJS.Timeout;
  closed = false;
  readonly fetcher: Fetcher;

  constructor(
    workDir: string,
    readonly containerizer: Containerizer,
    private readonly hooks: ExecutorHooks,
    readonly options: ExecutorOptions = {},
  ) {
    this.checkpoints = new ExecutorCheckpoints(workDir);
    this.fetcher = options.fetcher ?? new Fetcher(workDir);
    this.protocol = new ExecutorProtocol(this, hooks, options.heartbeatIntervalMs ?? 30_000);
    this.nested = new NestedContainers(containerizer, (run) => this.tryCheckpoint(run));
    this.monitor = setInterval(() => this.enforceMemory(), MEMORY_POLL_MS);
    this.monitor.unref();
  }

  find(frameworkId: string, executorId: string): ExecutorRun | undefined {
    return this.runs.get(executorKey(frameworkId, executorId));
  }

  /** The executor that runs the task, if one does (ended tasks included, until the executor goes). */
  runOf(frameworkId: string, taskId: string): ExecutorRun | undefined {
    for (const run of this.runs.values()) if (run.frameworkId === frameworkId && run.tasks.has(taskId)) return run;
    return undefined;
  }

  has(frameworkId: string, taskId: string): boolean {
    const t = this.runOf(frameworkId, taskId)?.tasks.get(taskId);
    return !!t && !terminal(t.state);
  }

  /** Tasks for (re-)registration, as TaskRunner.live. */
  live(unacknowledged: ReadonlySet<string>) {
    return liveTasks(this.runs.values(), unacknowledged, terminal);
  }

  /** Executors for (re-)registration: those whose process runs. */
  running(): RunningExecutorReport[] {
    return [...this.runs.values()]
      .filter((r) => r.state !== 'TERMINATED')
      .map((r) => ({ frameworkId: r.frameworkId, executorId: r.spec.executorId, resources: r.spec.resources }));
  }

  /** A task for an executor: started on first use, handed over once it has subscribed. */
  launch(msg: LaunchTask): void {
    const spec = msg.task.executor;
    if (!spec) throw new Error('the task names no executor');
    const task: ExecutorTask = { spec: msg.task, state: 'STAGING', memLimitBytes: msg.memLimitBytes, delivered: false };
    this.enqueue(msg.frameworkId, spec, [task], msg.checkpoint);
  }

  /** A task group (LAUNCH_GROUP) for a DEFAULT executor: its tasks are handed over together. */
  launchGroup(msg: LaunchGroup): void {
    const group = crypto.randomUUID();
    const tasks = msg.tasks.map((spec): ExecutorTask => ({ spec, state: 'STAGING', delivered: false, group }));
    this.enqueue(msg.frameworkId, msg.executor, tasks, msg.checkpoint);
  }

  /** `checkpoint`: its framework's flag, for an executor started now (absent: true). */
  private enqueue(frameworkId: string, spec: ExecutorSpec, tasks: ExecutorTask[], checkpoint = true): void {
    let run = this.find(frameworkId, spec.executorId);
    if (run?.state === 'TERMINATING') {
      const [reason, message] = ['REASON_EXECUTOR_TERMINATED', 'its executor is shutting down'];
      for (const t of tasks) this.hooks.report({ frameworkId, taskId: t.spec.taskId, state: 'FAILED', reason, message });
      return;
    }
    const fresh = !run;
    run ??= newRun(this.containerizer, frameworkId, spec, checkpoint);
    for (const t of tasks) run.tasks.set(t.spec.taskId, t);
    if (!fresh) {
      const refused = linkTaskVolumes(this.containerizer, run, tasks);
      for (const t of refused ? tasks : [])
        this.endTask(run, t.spec.taskId, 'FAILED', 'REASON_CONTAINER_LAUNCH_FAILED', refused ?? '', false);
      this.resize(run);
      if (run.state === 'RUNNING' && run.stream && !refused) this.protocol.deliver(run, tasks);
      this.tryCheckpoint(run);
      return;
    }
    this.runs.set(executorKey(frameworkId, spec.executorId), run);
    startExecutor(this, run);
  }

  /** Killed unless it subscribes within `ms` (after a launch: registration; after a restart: recovery). */
  awaitSubscription(run: ExecutorRun, ms: number, reason: string, what: string): void {
    clearTimeout(run.timers.registration);
    run.timers.registration = setTimeout(() => {
      if (run.state !== 'REGISTERING') return;
      this.kill(run, { state: 'FAILED', reason, message: `the executor ${what} ${ms / 1000} s` });
    }, ms);
    run.timers.registration.unref();
  }

  /** Subscribed: its timers stop waiting. */
  subscribed(run: ExecutorRun, stream: EventStream): void {
    clearTimeout(run.timers.registration);
    run.stream?.close();
    run.stream = stream;
    run.state = 'RUNNING';
  }

  /** The control plane's kill: a queued task ends at once; a delivered one is the executor's to kill (KILL). */
  killTask(frameworkId: string, taskId: string, gracePeriodSeconds?: number): boolean {
    const run = this.runOf(frameworkId, taskId);
    const task = run?.tasks.get(taskId);
    if (!run || !task || terminal(task.state)) return false;
    if (!task.delivered) {
      this.endTask(run, taskId, 'KILLED', 'REASON_TASK_KILLED_DURING_LAUNCH', 'killed before it was handed to its executor');
      return true;
    }
    this.protocol.kill(run, taskId, gracePeriodSeconds);
    return true;
  }

  /** SHUTDOWN, then the kill after the executor's grace period (at once while it has not subscribed). */
  shutdown(frameworkId: string, executorId: string): boolean {
    const run = this.find(frameworkId, executorId);
    if (!run || run.state === 'TERMINATED') return false;
    if (run.state === 'TERMINATING') return true;
    if (run.state === 'REGISTERING' || !run.stream) {
      this.kill(run);
      return true;
    }
    run.state = 'TERMINATING';
    this.protocol.shutdown(run);
    const grace = (run.spec.shutdownGracePeriodSeconds ?? 5) * 1000;
    run.timers.shutdown = setTimeout(() => this.kill(run), grace);
    run.timers.shutdown.unref();
    return true;
  }

  /** A framework message for the executor (false: no such executor subscribed). */
  frameworkMessage(m: FrameworkMessage): boolean {
    const run = this.find(m.frameworkId, m.executorId);
    if (!run?.stream || run.state !== 'RUNNING') return false;
    this.protocol.frameworkMessage(run, m.data);
    return true;
  }

  /** Kills the executor's container (its child, when not spawned yet); its exit ends its tasks (with `ending`, when given). */
  kill(run: ExecutorRun, ending?: ExecutorRun['ending']): void {
    if (run.state === 'TERMINATED') return;
    if (ending) run.ending ??= ending;
    run.state = 'TERMINATING';
    this.containerizer.signal(run.container, 'SIGKILL');
    if (!run.container.pid) run.child?.kill('SIGKILL');
    if (!run.container.pid && !run.child) this.terminated(run, null, null);
  }

  /** A status update from the executor, journaled; the task's state follows it. */
  recordUpdate(run: ExecutorRun, taskId: string, updateUuid: string, status: ExecutorStatus): void {
    const task = run.tasks.get(taskId);
    if (!task) return;
    const { state, reason, message, ...fromExecutor } = status;
    task.state = state;
    if (terminal(state)) this.containerizer.volumes.release(taskHolder(run, taskId));
    run.awaitingAck.set(updateUuid, taskId);
    this.hooks.report({ frameworkId: run.frameworkId, taskId, state, updateUuid, reason, message, fromExecutor });
    if (terminal(state)) this.resize(run);
    this.tryCheckpoint(run);
  }

  /** The control plane acknowledged an update: ACKNOWLEDGED to the executor that sent it. */
  acknowledged(updateUuid: string): void {
    for (const run of this.runs.values()) {
      const taskId = noteAcknowledged(run, updateUuid, terminal);
      if (taskId === undefined) continue;
      this.protocol.acknowledged(run, taskId, updateUuid);
      if (!run.tasks.has(taskId)) this.tryCheckpoint(run);
      return;
    }
  }

  /**
   * After an agent restart: executors whose process still runs wait for their subscription
   * again (within the recovery timeout); those gone are ended as if they had just exited.
   * `pending`: the journal's unacknowledged updates (their uuids await acknowledgement again).
   */
  recover(pending: Array<{ frameworkId: string; taskId: string; updateUuid: string }>): void {
    for (const cp of this.checkpoints.readAll()) {
      const run = recoveredRun(this.containerizer, cp, pending, terminal);
      this.runs.set(executorKey(run.frameworkId, run.spec.executorId), run);
      const alive = cp.pid && cp.startTicks !== undefined && processStartTicks(cp.pid) === cp.startTicks;
      if (alive) this.watch(run);
      if (alive) this.nested.recover(run, cp.nested ?? []);
      // It holds its persistent volumes again (its tasks' are its own: see executor-launch.ts).
      if (alive) this.containerizer.volumes.hold(run.container.name, run.spec.resources);
      for (const t of alive && run.spec.type === 'DEFAULT' ? run.tasks.values() : [])
        if (!terminal(t.state)) this.containerizer.volumes.hold(taskHolder(run, t.spec.taskId), t.spec.resources);
      // As Mesos: without checkpointing, an executor does not outlive the agent (its tasks are lost).
      if (alive && !run.checkpoint) this.kill(run, { state: 'LOST', reason: 'REASON_AGENT_RESTARTED', message: NO_CHECKPOINT });
      else if (alive) {
        const ms = this.options.recoveryTimeoutMs ?? 15 * 60_000;
        this.awaitSubscription(
          run,
          ms,
          'REASON_EXECUTOR_REREGISTRATION_TIMEOUT',
          'did not subscribe again after the agent restarted within',
        );
      } else this.terminated(run, this.containerizer.sandboxes.exitStatus(cp.sandbox) ?? null, null);
    }
  }

  /**
   * Sandboxes of executors that have ended, for the GC: every executor sandbox on disk but a
   * live one's, kept since it ended (its folder's time, set then; after an agent restart, found so).
   */
  collectable(): Collectable[] {
    const live = new Set([...this.runs.values()].map((r) => r.container.sandbox));
    return this.containerizer.sandboxes
      .executorSandboxes()
      .filter((s) => !live.has(s.path))
      .map((s) => ({ what: `executor sandbox ${path.basename(s.path)}`, since: s.mtimeMs, paths: [s.path] }));
  }

  /** The cgroups of live executors (kept when stale ones are removed). */
  liveCgroups() {
    return [...this.runs.values()].flatMap((r) => (r.container.cgroup ? [r.container.cgroup] : []));
  }

  /** The containers of executors still running (their image containers are kept at recovery). */
  liveContainers(): string[] {
    return [...this.runs.values()]
      .filter((r) => r.state !== 'TERMINATED')
      .map((r) => r.container.name)
      .concat(this.nested.names());
  }

  /** Stops watching: executors stay for a restarted agent to recover. */
  close(): void {
    this.closed = true;
    this.nested.close();
    clearInterval(this.monitor);
    for (const run of this.runs.values()) {
      for (const t of Object.values(run.timers)) clearTimeout(t);
      run.stream?.close();
    }
  }

  /** Kills every executor and waits (up to `timeoutMs`) for their ends to be recorded. */
  async killAll(timeoutMs = 5_000): Promise<void> {
    const runs = [...this.runs.values()].filter((r) => r.state !== 'TERMINATED');
    const ended = runs.map((r) => new Promise<void>((resolve) => (r.onTerminated = resolve)));
    for (const r of runs) this.kill(r);
    await allWithin(ended, timeoutMs);
  }

  /** A recovered executor (not the agent's child): polled until its process is gone. */
  private watch(run: ExecutorRun): void {
    run.timers.recovered = setInterval(() => {
      if (run.container.pid && processStartTicks(run.container.pid) === run.startTicks) return;
      clearInterval(run.timers.recovered);
      this.terminated(run, this.containerizer.sandboxes.exitStatus(run.container.sandbox) ?? null, null);
    }, 200);
    run.timers.recovered.unref();
  }

  private enforceMemory(): void {
    for (const run of this.runs.values()) {
      if (run.state === 'TERMINATED' || run.ending || !run.container.pid) continue;
      const found = this.containerizer.limitation(run.container);
      if (found && !found.reportOnly) this.kill(run, { state: 'FAILED', ...found });
    }
  }

  /** Its container's limits follow its unfinished tasks. */
  private resize(run: ExecutorRun): void {
    run.container.limits = executorLimits(run, this.containerizer.pidsLimit, terminal);
    try {
      this.containerizer.update(run.container);
    } catch (e) {
      this.hooks.onError(`could not resize the container of executor ${run.spec.executorId}`, e as Error);
    }
  }

  /** The executor's process is gone: its unfinished tasks end, the control plane is told, its record goes. */
  terminated(run: ExecutorRun, code: number | null, signal: NodeJS.Signals | null): void {
    if (run.state === 'TERMINATED' || this.closed) return;
    run.state = 'TERMINATED';
    run.fetch?.abort.abort();
    // The kernel's OOM kill may take the executor itself (the largest process of its cgroup, nested containers' too).
    const oom = run.ending ? undefined : this.containerizer.endLimitation(run.container);
    for (const t of Object.values(run.timers)) clearTimeout(t);
    run.stream?.close();
    run.stream = undefined;
    this.containerizer.signal(run.container, 'SIGKILL');
    this.nested.ended(run);
    this.containerizer.destroy(run.container);
    this.containerizer.ended(run.container);
    void this.containerizer.hooks.executorRemoved(run.container, run.frameworkId, run.spec.executorId);
    const how = code === null && signal === null ? 'ended' : endOf(code, signal).message.replace('the command', 'the executor');
    const end = run.ending ??
      (oom ? { state: 'FAILED' as TaskState, ...oom } : undefined) ?? {
        state: 'FAILED' as TaskState,
        reason: 'REASON_EXECUTOR_TERMINATED',
        message: how,
      };
    for (const t of run.tasks.values()) if (!terminal(t.state)) this.endTask(run, t.spec.taskId, end.state, end.reason, end.message, false);
    this.hooks.exited(exitedOf(run, code, signal, end));
    try {
      this.checkpoints.remove(run.frameworkId, run.spec.executorId);
    } catch (e) {
      this.hooks.onError(`could not remove the record of executor ${run.spec.executorId}`, e as Error);
    }
    // Its sandbox is the GC's from now (collectable(): kept since this time).
    try {
      fs.utimesSync(run.container.sandbox, new Date(), new Date());
    } catch {
      // Never made, or gone already.
    }
    this.runs.delete(executorKey(run.frameworkId, run.spec.executorId));
    run.onTerminated?.();
  }

  /** An agent-sourced end of one of the executor's tasks. */
  endTask(run: ExecutorRun, taskId: string, state: TaskState, reason: string, message: string, save = true): void {
    const task = run.tasks.get(taskId);
    if (!task || terminal(task.state)) return;
    task.state = state;
    this.containerizer.volumes.release(taskHolder(run, taskId));
    this.hooks.report({ frameworkId: run.frameworkId, taskId, state, reason, message });
    if (save) {
      this.resize(run);
      this.tryCheckpoint(run);
    }
  }

  /** Its record, unless it is gone; one that cannot be written is logged. */
  tryCheckpoint(run: ExecutorRun, rethrow = false): void {
    try {
      if (run.state !== 'TERMINATED') this.checkpoints.write(checkpointOf(run));
    } catch (e) {
      if (rethrow) throw e;
      this.hooks.onError(`could not checkpoint executor ${run.spec.executorId}`, e as Error);
    }
  }
}
