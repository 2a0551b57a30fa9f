/**
 * The built-in command executor: each task a real process in a container of its own (see
 * ../containerizer), as its OS user (its spec's `user`, else the agent's task user: `nobody`
 * when the agent runs as root). It owns the tasks' states: it launches, kills and watches them,
 * reports every change, and checkpoints what a restarted agent needs to find them again
 * (checkpoints.ts). Disk use is measured every `diskCheckIntervalMs` and a task over its `disk`
 * is killed; memory is watched every 250 ms.
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { isTerminalTaskState, type LaunchTask, type TaskSpec, type TaskState } from '@arbiter/contracts';
import { Containerizer, type ContainerizerOptions } from '../containerizer/containerizer';
import type { Isolator, TaskCgroup } from '../containerizer/isolators/cgroups';
import type { Container, Limitation } from '../containerizer/isolators/isolator';
import { LaunchError, processStartTicks } from '../containerizer/launcher';
import { safe } from '../containerizer/names';
import { type Checkpoint, TaskCheckpoints } from './checkpoints';

export interface TaskEvent {
  frameworkId: string;
  taskId: string;
  state: TaskState;
  reason?: string;
  message?: string;
}

interface RunningTask extends Omit<Checkpoint, 'pid' | 'cgroup'> {
  container: Container;
  child?: ChildProcess;
  /** Why the agent is ending it: set before it signals the group. */
  ending?: { state: TaskState; reason: string; message: string };
  killTimer?: NodeJS.Timeout;
  /** Called once the task has ended (see killAll). */
  onEnded?: Array<() => void>;
}

export interface TaskRunnerOptions extends ContainerizerOptions {
  /** How often disk use is measured (0: never). */
  diskCheckIntervalMs?: number;
}

const MEMORY_POLL_MS = 250;
const DEFAULT_DISK_CHECK_MS = 15_000;
const key = (frameworkId: string, taskId: string) => `${frameworkId}/${taskId}`;
const terminal = isTerminalTaskState;

export class TaskRunner {
  private readonly tasks = new Map<string, RunningTask>();
  private closed = false;
  private readonly monitor: NodeJS.Timeout;
  private readonly diskMonitor?: NodeJS.Timeout;
  readonly containerizer: Containerizer;
  /** Whether disk use is measured (and enforced). */
  readonly diskChecked: boolean;
  private readonly checkpoints: TaskCheckpoints;

  constructor(
    workDir: string,
    private readonly report: (event: TaskEvent) => void,
    options: TaskRunnerOptions = {},
  ) {
    fs.mkdirSync(workDir, { recursive: true });
    // Others may pass through the work directory to their sandboxes, not list or change it.
    fs.chmodSync(workDir, 0o711);
    this.containerizer = new Containerizer(workDir, options);
    this.checkpoints = new TaskCheckpoints(workDir);
    this.monitor = setInterval(() => this.enforceMemory(), MEMORY_POLL_MS);
    this.monitor.unref();
    const diskEvery = options.diskCheckIntervalMs ?? DEFAULT_DISK_CHECK_MS;
    this.diskChecked = diskEvery > 0;
    if (diskEvery > 0) {
      this.diskMonitor = setInterval(() => this.checkDisk(), diskEvery);
      this.diskMonitor.unref();
    }
  }

  /** The cgroups isolator (its mode and controllers are reported to the control plane). */
  get isolator(): Isolator {
    return this.containerizer.cgroups;
  }

  get taskUser(): string {
    return this.containerizer.taskUser;
  }

  /** Where sandboxes live: the work directory, or a place the task user can reach. */
  get sandboxRoot(): string {
    return this.containerizer.sandboxes.root;
  }

  sandboxOf(frameworkId: string, taskId: string): string {
    return this.containerizer.sandboxes.pathOf(frameworkId, taskId);
  }

  /** Where the agent keeps its record of a task (outside every sandbox). */
  checkpointOf(frameworkId: string, taskId: string): string {
    return this.checkpoints.fileOf(frameworkId, taskId);
  }

  /**
   * Tasks for (re-)registration: those not yet ended, and those in `unacknowledged` (ended, but
   * their last update has not reached the control plane yet), so it waits for that update
   * instead of declaring them lost.
   */
  live(
    unacknowledged: ReadonlySet<string> = new Set(),
  ): Array<{ frameworkId: string; taskId: string; state: TaskState; resources: TaskSpec['resources'] }> {
    return [...this.tasks.values()]
      .filter((t) => !terminal(t.state) || unacknowledged.has(key(t.frameworkId, t.spec.taskId)))
      .map((t) => ({ frameworkId: t.frameworkId, taskId: t.spec.taskId, state: t.state, resources: t.spec.resources }));
  }

  has(frameworkId: string, taskId: string): boolean {
    const t = this.tasks.get(key(frameworkId, taskId));
    return !!t && !terminal(t.state);
  }

  launch(msg: LaunchTask): void {
    const userName = msg.task.user ?? this.taskUser;
    const task: RunningTask = {
      frameworkId: msg.frameworkId,
      spec: msg.task,
      memLimitBytes: msg.memLimitBytes,
      state: 'STARTING',
      user: userName,
      container: this.containerOf(msg.frameworkId, msg.task, msg.memLimitBytes),
    };
    this.tasks.set(key(msg.frameworkId, msg.task.taskId), task);
    this.emit(task, 'STARTING');
    const found = this.containerizer.userOf(userName);
    if ('problem' in found) {
      this.checkpoint(task);
      this.finish(task, 'FAILED', 'REASON_TASK_USER_INVALID', found.problem);
      return;
    }
    const { user } = found;
    try {
      this.containerizer.prepare(task.container, user);
      this.checkpoint(task);
    } catch (e) {
      this.checkpoint(task);
      this.finish(task, 'FAILED', 'REASON_COMMAND_EXECUTOR_FAILED', `could not prepare the task: ${(e as Error).message}`);
      return;
    }
    let child: ChildProcess;
    try {
      const launched = this.containerizer.launch(task.container, user, msg.frameworkId, msg.task);
      child = launched.child;
      if (launched.isolationError)
        task.ending = {
          state: 'FAILED',
          reason: 'REASON_CONTAINER_LAUNCH_FAILED',
          message: `could not isolate the task: ${launched.isolationError.message}`,
        };
    } catch (e) {
      if (!(e instanceof LaunchError)) throw e;
      this.finish(task, 'FAILED', 'REASON_COMMAND_EXECUTOR_FAILED', e.message);
      return;
    }
    task.child = child;
    child.once('error', (e) => this.finish(task, 'FAILED', 'REASON_COMMAND_EXECUTOR_FAILED', `could not start the task: ${e.message}`));
    child.once('spawn', () => {
      if (this.closed) return;
      task.container.pid = child.pid;
      task.startTicks = child.pid ? processStartTicks(child.pid) : undefined;
      task.state = 'RUNNING';
      this.checkpoint(task);
      this.emit(task, 'RUNNING');
    });
    child.once('exit', (code, signal) => this.exited(task, code, signal));
  }

  private containerOf(frameworkId: string, spec: TaskSpec, memLimitBytes?: number, sandbox?: string): Container {
    const mem = spec.resources.find((r) => r.name === 'mem' && r.value !== undefined)?.value;
    const disk = spec.resources.find((r) => r.name === 'disk' && r.value !== undefined)?.value;
    return {
      name: `${safe(frameworkId)}_${safe(spec.taskId)}`,
      sandbox: sandbox ?? this.sandboxOf(frameworkId, spec.taskId),
      limits: {
        memBytes: memLimitBytes !== undefined && memLimitBytes > 0 ? memLimitBytes : mem ? mem * 1024 * 1024 : undefined,
        cpus: spec.resources.find((r) => r.name === 'cpus')?.value,
        diskBytes: disk === undefined ? undefined : disk * 1024 * 1024,
        pids: this.containerizer.pidsLimit,
      },
    };
  }

  /** SIGTERM to the task's group, SIGKILL after the grace period. */
  kill(frameworkId: string, taskId: string, gracePeriodSeconds = 5): boolean {
    const task = this.tasks.get(key(frameworkId, taskId));
    if (!task || terminal(task.state)) return false;
    task.ending ??= { state: 'KILLED', reason: 'REASON_TASK_KILLED', message: 'killed on request' };
    if (!task.container.pid) {
      this.finish(task, 'KILLED', 'REASON_TASK_KILLED_DURING_LAUNCH', 'killed before it started');
      return true;
    }
    this.containerizer.signal(task.container, 'SIGTERM');
    task.killTimer = setTimeout(() => this.containerizer.signal(task.container, 'SIGKILL'), gracePeriodSeconds * 1000);
    task.killTimer.unref();
    if (!task.child) this.watchRecovered(task);
    return true;
  }

  /**
   * Kills every task still running (the agent shutting down with --kill-tasks-on-exit; SIGKILL
   * after the grace period) and resolves once each has ended and its end is recorded, or after
   * `timeoutMs`.
   */
  async killAll(gracePeriodSeconds = 0, timeoutMs = 5_000): Promise<void> {
    if (this.closed) return;
    const running = [...this.tasks.values()].filter((t) => !terminal(t.state));
    const ended = running.map((t) => new Promise<void>((resolve) => (t.onEnded ??= []).push(resolve)));
    for (const t of running) this.kill(t.frameworkId, t.spec.taskId, gracePeriodSeconds);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(ended), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  /**
   * After an agent restart: tasks whose processes still run are watched again; those that ended
   * while the agent was away are reported from their recorded exit status.
   */
  recover(): void {
    for (const cp of this.checkpoints.readAll()) {
      const { pid, cgroup, ...rest } = cp;
      const container = { ...this.containerOf(cp.frameworkId, cp.spec, cp.memLimitBytes), pid, cgroup };
      const task: RunningTask = { ...rest, container };
      this.tasks.set(key(cp.frameworkId, cp.spec.taskId), task);
      if (terminal(cp.state)) continue;
      if (pid && cp.startTicks !== undefined && processStartTicks(pid) === cp.startTicks) this.watchRecovered(task);
      else this.endedWhileAway(task);
    }
    const live = [...this.tasks.values()].flatMap((t) => (t.container.cgroup && !terminal(t.state) ? [t.container.cgroup] : []));
    this.containerizer.recover(live);
  }

  /**
   * Stops watching: tasks still running are left to a restarted agent, which recovers them (and
   * the status of those that end meanwhile); nothing is recorded or reported after this.
   */
  close(): void {
    this.closed = true;
    clearInterval(this.monitor);
    if (this.diskMonitor) clearInterval(this.diskMonitor);
    this.containerizer.close();
    for (const t of this.tasks.values()) if (t.killTimer) clearTimeout(t.killTimer);
  }

  /** The task's cgroup, if it has one (for operators' tools and tests). */
  cgroupOf(frameworkId: string, taskId: string): TaskCgroup | undefined {
    return this.tasks.get(key(frameworkId, taskId))?.container.cgroup;
  }

  /**
   * Disk use of every running task with a `disk` resource (Mesos's disk/du); one over it is
   * killed and FAILED with REASON_CONTAINER_LIMITATION_DISK. Runs every diskCheckIntervalMs.
   */
  checkDisk(): void {
    for (const t of this.watched()) {
      const found = this.containerizer.disk.watch(t.container);
      if (found) this.limit(t, found);
    }
  }

  // ---------------------------------------------------------------- internals

  /** Running tasks the agent is not ending already. */
  private watched(): RunningTask[] {
    return [...this.tasks.values()].filter((t) => !terminal(t.state) && !t.ending && t.container.pid);
  }

  /** Memory: the kernel's kills in a memory cgroup, or polling without one (see the memory isolators). */
  private enforceMemory(): void {
    for (const t of this.watched()) {
      const found = this.containerizer.limitation(t.container);
      if (found) this.limit(t, found);
    }
  }

  /** The task went over a limit: it ends FAILED, saying which. */
  private limit(t: RunningTask, found: Limitation): void {
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
    if (task.ending) {
      this.finish(task, task.ending.state, task.ending.reason, task.ending.message);
      return;
    }
    const status = this.containerizer.sandboxes.exitStatus(task.container.sandbox);
    if (status === 0) this.finish(task, 'FINISHED', 'REASON_COMMAND_EXITED', 'exited with status 0');
    else if (status !== undefined) this.finish(task, 'FAILED', 'REASON_COMMAND_EXITED', `exited with status ${status}`);
    else this.finish(task, 'FAILED', 'REASON_AGENT_RESTARTED', 'the task ended while the agent was restarting; its exit status is unknown');
  }

  private exited(task: RunningTask, code: number | null, signal: NodeJS.Signals | null): void {
    if (task.killTimer) clearTimeout(task.killTimer);
    // Anything left in the group (and the cgroup) goes with the task.
    this.containerizer.signal(task.container, 'SIGKILL');
    if (!task.ending) {
      const found = this.containerizer.cgroups.watch(task.container);
      if (found) task.ending = { state: 'FAILED', ...found };
    }
    this.containerizer.destroy(task.container);
    if (task.ending) {
      this.finish(task, task.ending.state, task.ending.reason, task.ending.message);
      return;
    }
    if (code === 0) {
      this.finish(task, 'FINISHED', 'REASON_COMMAND_EXITED', 'exited with status 0');
      return;
    }
    const how = signal
      ? `was killed by ${signal}`
      : code !== null && code > 128
        ? `was killed by signal ${code - 128}`
        : `exited with status ${code}`;
    this.finish(task, 'FAILED', 'REASON_COMMAND_EXITED', `the command ${how}`);
  }

  private finish(task: RunningTask, state: TaskState, reason: string, message: string): void {
    if (terminal(task.state) || this.closed) return;
    task.state = state;
    task.child = undefined;
    this.checkpoint(task);
    this.emit(task, state, reason, message);
    for (const ended of task.onEnded?.splice(0) ?? []) ended();
  }

  private checkpoint(task: RunningTask): void {
    this.checkpoints.write({
      frameworkId: task.frameworkId,
      spec: task.spec,
      memLimitBytes: task.memLimitBytes,
      pid: task.container.pid,
      startTicks: task.startTicks,
      state: task.state,
      user: task.user,
      cgroup: task.container.cgroup,
    });
  }

  private emit(task: RunningTask, state: TaskState, reason?: string, message?: string): void {
    this.report({
      frameworkId: task.frameworkId,
      taskId: task.spec.taskId,
      state,
      ...(reason ? { reason } : {}),
      ...(message ? { message } : {}),
    });
  }
}
