/**
 * The built-in command executor: each task a real process in a container of its own (../containerizer; its image's when
 * it names one), as its OS user (its spec's, else its framework's, else the agent's task user: as root, its framework's
 * own dynamic user). It launches, kills and watches tasks (memory every 250 ms, disk every `diskCheckIntervalMs`), reports
 * every change, checkpoints what a restarted agent needs to find them (checkpoints.ts), fetches URIs (../fetcher) and runs checks (../checks).
 */
import * as fs from 'node:fs';
import { isTerminalTaskState, type LaunchTask, type TaskSpec, type TaskState } from '@arbiter/contracts';
import { type ChecksOptions, initialCheckStatus, TaskChecks } from '../checks/task-checks';
import { Containerizer, type ContainerizerOptions } from '../containerizer/containerizer';
import type { TaskCgroup } from '../containerizer/isolators/cgroups';
import type { Container, Limitation } from '../containerizer/isolators/isolator';
import { processStartTicks } from '../containerizer/launcher';
import { ImageError } from '../containerizer/provisioner/image';
import { VolumeError } from '../containerizer/runtime/volumes';
import type { OsUser } from '../containerizer/users';
import { FETCH_FAILED, Fetcher, type FetcherOptions, fetchInto } from '../fetcher/fetcher';
import type { Collectable } from '../gc/gc';
import { TaskCheckpoints } from './checkpoints';
import { LimitWatch } from './limit-watch';
import {
  allWithin,
  asLaunchFailure,
  containerOf,
  checkedTask,
  checkpointOf,
  endFromRecord,
  endOf,
  eventOf,
  holdRecovered,
  LaunchFailure,
  launchProcess,
  type LiveTask,
  type RunningTask,
  type TaskEvent,
} from './task';

export type { TaskEvent } from './task';

export interface TaskRunnerOptions extends ContainerizerOptions {
  /** How often disk use is measured (0: never). */
  diskCheckIntervalMs?: number;
  /** Told what the runner could not record (a checkpoint it could not write, say): it goes on without. */
  onError?: (message: string, err: Error) => void;
  /** For tests: points where a crash must leave a state a restarted agent recovers from. */
  faults?: { beforeTerminalCheckpoint?: (frameworkId: string, taskId: string) => void };
  /** The checks' clock and who runs their commands. */
  checks?: ChecksOptions;
  /** The fetcher's cache, size and time limits. */
  fetch?: FetcherOptions;
}

const key = (frameworkId: string, taskId: string) => `${frameworkId}/${taskId}`;
const terminal = isTerminalTaskState;

export class TaskRunner {
  private readonly tasks = new Map<string, RunningTask>();
  private closed = false;
  readonly containerizer: Containerizer;
  /** Tasks' and executors' URIs into their sandboxes, through the agent's cache. */
  readonly fetcher: Fetcher;
  private readonly checkpoints: TaskCheckpoints;
  /** What running tasks may use, watched (memory, disk). */
  readonly limits: LimitWatch;
  private readonly checks: TaskChecks;

  constructor(
    workDir: string,
    /** Reports a change; false when it could not be made durable (sent all the same). */
    private readonly report: (event: TaskEvent) => unknown,
    private readonly options: TaskRunnerOptions = {},
  ) {
    fs.mkdirSync(workDir, { recursive: true });
    // Others may pass through the work directory to their sandboxes, not list or change it.
    fs.chmodSync(workDir, 0o711);
    this.containerizer = new Containerizer(workDir, options);
    this.checkpoints = new TaskCheckpoints(workDir);
    this.fetcher = new Fetcher(workDir, options.fetch);
    this.checks = new TaskChecks(options.checks);
    const watched = () => [...this.tasks.values()].filter((t) => !this.closed && !terminal(t.state) && !t.ending && t.container.pid);
    this.limits = new LimitWatch(this.containerizer, watched, (t, found) => this.limit(t, found), options.diskCheckIntervalMs ?? 15_000);
  }

  sandboxOf(frameworkId: string, taskId: string): string {
    return this.containerizer.sandboxes.pathOf(frameworkId, taskId);
  }

  /** Where the agent keeps its record of a task (outside every sandbox). */
  checkpointOf(frameworkId: string, taskId: string): string {
    return this.checkpoints.fileOf(frameworkId, taskId);
  }

  /**
   * Tasks for (re-)registration: those not yet ended, and those in `unacknowledged` (ended, but their last update has
   * not reached the control plane yet), so it waits for that update instead of declaring them lost.
   */
  live(unacknowledged: ReadonlySet<string> = new Set()): LiveTask[] {
    return [...this.tasks.values()]
      .filter((t) => !terminal(t.state) || unacknowledged.has(key(t.frameworkId, t.spec.taskId)))
      .map((t) => ({ frameworkId: t.frameworkId, taskId: t.spec.taskId, state: t.state, resources: t.spec.resources }));
  }

  /** A task's update was acknowledged: once that is its end, the task leaves memory (its record and sandbox wait for the GC). */
  acknowledged(frameworkId: string, taskId: string, state: TaskState): void {
    if (terminal(state) && terminal(this.tasks.get(key(frameworkId, taskId))?.state ?? 'STAGING'))
      this.tasks.delete(key(frameworkId, taskId));
  }

  /** Ended tasks out of memory (their end acknowledged): their records and sandboxes, for the GC. */
  collectable(): Collectable[] {
    return this.checkpoints.ended((fw, id) => this.tasks.has(key(fw, id)), this.containerizer.sandboxes);
  }

  has(frameworkId: string, taskId: string): boolean {
    const t = this.tasks.get(key(frameworkId, taskId));
    return !!t && !terminal(t.state);
  }

  /** Launches the task; whatever fails on the way, it ends FAILED with a reason (never an exception). */
  launch(msg: LaunchTask): void {
    const task: RunningTask = {
      frameworkId: msg.frameworkId,
      spec: msg.task,
      memLimitBytes: msg.memLimitBytes,
      state: 'STARTING',
      user: msg.task.user,
      container: this.containerOf(msg.frameworkId, msg.task, msg.memLimitBytes),
    };
    this.tasks.set(key(msg.frameworkId, msg.task.taskId), task);
    // With URIs, STARTING follows the fetch and says what it took (STAGING meanwhile, as in Mesos); an image task's
    // URIs are fetched while its image is provisioned (they need its sandbox and user, not its image).
    if (!msg.task.uris?.length) this.emit(task, 'STARTING');
    if (msg.task.container?.image || this.containerizer.hooks.starts) {
      const user = msg.task.uris?.length ? this.containerizer.sandboxFor(task.container, msg.frameworkId, msg.task.user) : undefined;
      if (user) task.fetched = this.fetch(task, user);
      void this.provisionThenStart(task);
    } else this.attempt(task, () => this.start(task));
  }

  /** The modules' start hooks, then its image: a kill meanwhile ends the task KILLED, and the image goes unused. */
  private async provisionThenStart(task: RunningTask): Promise<void> {
    try {
      await this.containerizer.hooks.containerStart(task.container, task.frameworkId, task.spec);
      task.image = await this.containerizer.provision(task.container, task.spec.container);
    } catch (e) {
      this.finish(task, 'FAILED', 'REASON_CONTAINER_LAUNCH_FAILED', (e as Error).message);
      return;
    }
    if (terminal(task.state) || this.closed) this.containerizer.ended(task.container);
    else this.attempt(task, () => this.start(task));
  }

  /** Whatever a launch step throws ends the task FAILED with a reason. */
  private attempt(task: RunningTask, step: () => void): void {
    try {
      step();
    } catch (e) {
      const failed = asLaunchFailure(e, 'could not launch the task');
      this.finish(task, 'FAILED', failed.reason, failed.message);
    }
  }

  private start(task: RunningTask): void {
    const found = this.containerizer.userOf(task.frameworkId, task.spec.user);
    if ('problem' in found) throw new LaunchFailure(found.reason, found.problem);
    const { user } = found;
    [task.user, task.uid, task.gid] = [user.name, user.uid, user.gid];
    try {
      this.containerizer.prepare(task.container, user, task.spec);
      this.checkpoints.write(checkpointOf(task), task.file);
    } catch (e) {
      // A volume refused or an image it cannot run: the container's; anything else: the agent's.
      if (e instanceof VolumeError || e instanceof ImageError) throw new LaunchFailure('REASON_CONTAINER_LAUNCH_FAILED', e.message);
      throw new LaunchFailure('REASON_COMMAND_EXECUTOR_FAILED', `could not prepare the task: ${(e as Error).message}`);
    }
    if (!task.spec.uris?.length) this.run(task, user);
    else void (task.fetched ?? this.fetch(task, user)).then((fetched) => fetched && this.attempt(task, () => this.run(task, user)));
  }

  /** Its URIs into its sandbox: STARTING then says what the fetch took; a failure ends it FAILED, never started. */
  private async fetch(task: RunningTask, user: OsUser): Promise<boolean> {
    task.fetching = new AbortController();
    const fetched = await fetchInto(this.fetcher, task.spec.uris ?? [], task.container.sandbox, user, task.fetching.signal);
    if (terminal(task.state) || this.closed) return false; // killed, or the agent stopped, meanwhile
    if ('failure' in fetched) this.finish(task, 'FAILED', FETCH_FAILED, fetched.failure);
    else this.emit(task, 'STARTING', undefined, fetched.message);
    return !terminal(task.state);
  }

  private run(task: RunningTask, user: OsUser): void {
    const launched = launchProcess(this.containerizer, task, user);
    const child = (task.child = launched.child);
    task.container.pid = child.pid; // known at the fork, a turn before its start is seen: a kill from now on signals it
    child.once('error', (e) => this.finish(task, 'FAILED', 'REASON_COMMAND_EXECUTOR_FAILED', `could not start the task: ${e.message}`));
    child.once('spawn', () => {
      if (this.closed) return;
      task.startTicks = child.pid ? processStartTicks(child.pid) : undefined;
      // An image task runs once the runtime has started its process (never, when runc fails: its exit says why).
      if (!launched.started) {
        this.running(task);
        return;
      }
      void launched.started.then((yes) => yes && task.state === 'STARTING' && !this.closed && this.running(task));
    });
    // A container's process that ended before its start was seen ran all the same: RUNNING first.
    const { started } = launched;
    child.once('exit', (code, signal) =>
      started ? void started.then(() => this.exited(task, code, signal)) : this.exited(task, code, signal),
    );
  }

  private running(task: RunningTask): void {
    task.state = 'RUNNING';
    task.checkStatus = initialCheckStatus(task.spec);
    this.tryCheckpoint(task);
    this.emit(task, 'RUNNING');
    this.startChecks(task);
  }

  private containerOf(frameworkId: string, spec: TaskSpec, memLimitBytes?: number, sandbox?: string): Container {
    return containerOf(frameworkId, spec, sandbox ?? this.sandboxOf(frameworkId, spec.taskId), this.containerizer.pidsLimit, memLimitBytes);
  }

  /** SIGTERM to the task's group, SIGKILL after the grace period (absent: its kill policy's, else 5 s). */
  kill(frameworkId: string, taskId: string, gracePeriodSeconds?: number, ending?: RunningTask['ending']): boolean {
    const task = this.tasks.get(key(frameworkId, taskId));
    if (!task || terminal(task.state)) return false;
    task.ending ??= ending ?? { state: 'KILLED', reason: 'REASON_TASK_KILLED', message: 'killed on request' };
    if (!task.container.pid) {
      task.fetching?.abort(new Error('the task was killed'));
      this.finish(task, 'KILLED', 'REASON_TASK_KILLED_DURING_LAUNCH', 'killed before it started');
      return true;
    }
    this.containerizer.signal(task.container, 'SIGTERM');
    const grace = gracePeriodSeconds ?? task.spec.killPolicy?.gracePeriodSeconds ?? 5;
    task.killTimer = setTimeout(() => this.containerizer.signal(task.container, 'SIGKILL'), grace * 1000);
    task.killTimer.unref();
    if (!task.child) this.watchRecovered(task);
    return true;
  }

  /**
   * Kills every task still running (the agent shutting down with --kill-tasks-on-exit; SIGKILL after the grace
   * period) and resolves once each has ended and its end is recorded, or after `timeoutMs`.
   */
  async killAll(gracePeriodSeconds = 0, timeoutMs = 5_000): Promise<void> {
    if (this.closed) return;
    const running = [...this.tasks.values()].filter((t) => !terminal(t.state));
    const ended = running.map((t) => new Promise<void>((resolve) => (t.onEnded ??= []).push(resolve)));
    for (const t of running) this.kill(t.frameworkId, t.spec.taskId, gracePeriodSeconds);
    await allWithin(ended, timeoutMs);
  }

  /**
   * After an agent restart: tasks whose processes still run are watched again; those that ended while the agent was
   * away are reported from their recorded exit status. `ended`: the ends already journaled (by `frameworkId/taskId`):
   * a task whose end was reported but not yet checkpointed when the agent stopped takes it, and is not reported again.
   * `keep`, `keepContainers`: other live cgroups and containers (the executors'), left alone when stale ones go.
   */
  recover(ended: ReadonlyMap<string, TaskState> = new Map(), keep: TaskCgroup[] = [], keepContainers: string[] = []): void {
    for (const { file, cp } of this.checkpoints.readAll()) {
      const { pid, cgroup, sandbox, ...rest } = cp;
      // Ended and acknowledged (its end reported, none waiting in the journal): left to the GC.
      if (terminal(cp.state) && !cp.unreported && !ended.has(key(cp.frameworkId, cp.spec.taskId))) continue;
      const at = sandbox ?? this.containerizer.sandboxes.legacyPathOf(cp.frameworkId, cp.spec.taskId);
      const container = { ...this.containerOf(cp.frameworkId, cp.spec, cp.memLimitBytes, at), pid, cgroup };
      const task: RunningTask = { ...rest, container, file };
      this.tasks.set(key(cp.frameworkId, cp.spec.taskId), task);
      if (terminal(cp.state)) {
        // Its end was checkpointed but never journaled: reported again now.
        if (cp.unreported && this.emit(task, cp.state, cp.unreported.reason, cp.unreported.message)) {
          task.unreported = undefined;
          this.tryCheckpoint(task);
        }
        continue;
      }
      const end = ended.get(key(cp.frameworkId, cp.spec.taskId));
      if (end && terminal(end)) {
        task.state = end;
        this.tryCheckpoint(task);
        continue;
      }
      if (pid && cp.startTicks !== undefined && processStartTicks(pid) === cp.startTicks) {
        this.watchRecovered(task);
        this.startChecks(task);
      } else this.endedWhileAway(task);
    }
    const running = [...this.tasks.values()].filter((t) => !terminal(t.state));
    holdRecovered(this.containerizer, running, this.options.onError);
    const live = running.flatMap((t) => (t.container.cgroup ? [t.container.cgroup] : []));
    this.containerizer.recover([...live, ...keep], [...running.map((t) => t.container.name), ...keepContainers]);
  }

  /** Stops watching: tasks still running are left to a restarted agent, which recovers them (and how those that end meanwhile ended). */
  close(): void {
    this.closed = true;
    this.limits.stop();
    this.containerizer.close();
    this.checks.stopAll();
    for (const t of this.tasks.values()) if (t.killTimer) clearTimeout(t.killTimer);
  }

  /** The task's cgroup, if it has one (for operators' tools and tests). */
  cgroupOf(frameworkId: string, taskId: string): TaskCgroup | undefined {
    return this.tasks.get(key(frameworkId, taskId))?.container.cgroup;
  }

  /** A running task's first process and cgroup (oversubscription measures what it uses). */
  processOf = (frameworkId: string, taskId: string): Pick<Container, 'pid' | 'cgroup'> | undefined =>
    [this.tasks.get(key(frameworkId, taskId))].find((t) => t && !terminal(t.state))?.container;

  /** Its checks: each change is an update of its state, then recorded (a restarted agent's checks go on from it). */
  private startChecks(task: RunningTask): void {
    const told = (reason: string, change: Pick<RunningTask, 'healthy' | 'checkStatus'>) => {
      Object.assign(task, change);
      if (!task.ending && !terminal(task.state)) this.emit(task, task.state, reason);
      this.tryCheckpoint(task);
    };
    this.checks.start(key(task.frameworkId, task.spec.taskId), checkedTask(task, this.containerizer), {
      health: (healthy) => told('REASON_TASK_HEALTH_CHECK_STATUS_UPDATED', { healthy }),
      status: (checkStatus) => told('REASON_TASK_CHECK_STATUS_UPDATED', { checkStatus }),
      // A health check's kill ends it KILLED, unhealthy (as Mesos), after its kill policy's grace.
      kill: (message) => {
        task.ending ??= { state: 'KILLED', reason: 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED', message };
        this.kill(task.frameworkId, task.spec.taskId);
      },
    });
  }

  /** The task went over a limit: it ends FAILED, saying which. */
  private limit(t: RunningTask, found: Limitation): void {
    if (found.reportOnly) return void this.emit(t, t.state, undefined, found.message);
    t.ending = { state: 'FAILED', ...found };
    this.containerizer.signal(t.container, 'SIGKILL');
    if (!t.child) this.watchRecovered(t);
  }

  private watchRecovered(task: RunningTask): void {
    const poll = setInterval(() => {
      if (task.container.pid && processStartTicks(task.container.pid) === task.startTicks) return;
      clearInterval(poll);
      this.endedWhileAway(task);
    }, 200);
    poll.unref();
  }

  private endedWhileAway(task: RunningTask): void {
    if (terminal(task.state)) return;
    const end = task.ending ?? endFromRecord(this.containerizer.sandboxes.exitStatus(task.container.sandbox));
    this.finish(task, end.state, end.reason, end.message);
  }

  private exited(task: RunningTask, code: number | null, signal: NodeJS.Signals | null): void {
    if (task.killTimer) clearTimeout(task.killTimer);
    // Anything left in the group (and the cgroup) goes with the task.
    this.containerizer.signal(task.container, 'SIGKILL');
    if (!task.ending) {
      const found = this.containerizer.endLimitation(task.container);
      if (found) task.ending = { state: 'FAILED', ...found };
    }
    this.containerizer.destroy(task.container);
    if (task.ending) {
      this.finish(task, task.ending.state, task.ending.reason, task.ending.message);
      return;
    }
    const end = endOf(code, signal);
    this.finish(task, end.state, 'REASON_COMMAND_EXITED', end.message);
  }

  /**
   * The task ended: its end is reported (journaled, so durable) first, then checkpointed. A
   * crash between the two leaves a live checkpoint and the journaled end, which recover() takes;
   * the other way round, it would leave an ended checkpoint and no end ever reported.
   */
  private finish(task: RunningTask, state: TaskState, reason: string, message: string): void {
    if (terminal(task.state) || this.closed) return;
    task.state = state;
    task.child = undefined;
    this.checks.stop(key(task.frameworkId, task.spec.taskId));
    this.containerizer.ended(task.container);
    task.unreported = this.emit(task, state, reason, message) ? undefined : { reason, message };
    this.options.faults?.beforeTerminalCheckpoint?.(task.frameworkId, task.spec.taskId);
    this.tryCheckpoint(task);
    for (const ended of task.onEnded?.splice(0) ?? []) ended();
  }

  /** A checkpoint the runner can go on without (its update is reported all the same). */
  private tryCheckpoint(task: RunningTask): void {
    try {
      this.checkpoints.write(checkpointOf(task), task.file);
    } catch (e) {
      this.options.onError?.(`could not checkpoint task ${task.spec.taskId} (${task.state})`, e as Error);
    }
  }

  /** Reports the change; false when it could not be made durable. */
  private emit(task: RunningTask, state: TaskState, reason?: string, message?: string): boolean {
    return this.report(eventOf(task, state, reason, message)) !== false;
  }
}
