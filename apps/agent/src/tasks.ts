/**
 * Tasks as real processes. Each task runs in its own sandbox folder
 * (`<workDir>/frameworks/<framework>/tasks/<task>/`) with `stdout` and `stderr` files, in a
 * process group of its own so a kill reaches everything it started. A small shell wrapper
 * records the command's exit status in the sandbox, so an agent that restarts can still tell
 * how a task it was running ended. Memory is enforced by polling the group's resident size.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isTerminalTaskState, type LaunchTask, type TaskSpec, type TaskState } from '@arbiter/contracts';

export interface TaskEvent {
  frameworkId: string;
  taskId: string;
  state: TaskState;
  reason?: string;
  message?: string;
}

interface Checkpoint {
  frameworkId: string;
  spec: TaskSpec;
  memLimitBytes?: number;
  pid?: number;
  /** Process start time (clock ticks since boot, /proc/<pid>/stat field 22): guards against pid reuse. */
  startTicks?: number;
  state: TaskState;
}

interface RunningTask extends Checkpoint {
  sandbox: string;
  child?: ChildProcess;
  /** Why the agent is ending it: set before it signals the group. */
  ending?: { state: TaskState; reason: string; message: string };
  killTimer?: NodeJS.Timeout;
  /** Called once the task has ended (see killAll). */
  onEnded?: Array<() => void>;
}

const EXIT_STATUS_FILE = '.exit_status';
/**
 * Run the command in a subshell, then record its status where a restarted agent can read it.
 * The wrapper catches SIGTERM with a no-op (a caught signal is reset to its default in the
 * subshell), so a task that handles or ignores SIGTERM decides for itself until SIGKILL.
 */
const WRAPPER = `trap ':' TERM; ( eval "$ARBITER_TASK_SHELL" ); code=$?; echo $code > "$ARBITER_SANDBOX/${EXIT_STATUS_FILE}"; exit $code`;
const WRAPPER_ARGV = `trap ':' TERM; ( "$@" ); code=$?; echo $code > "$ARBITER_SANDBOX/${EXIT_STATUS_FILE}"; exit $code`;
const PAGE_SIZE = 4096;
const MEMORY_POLL_MS = 250;

const key = (frameworkId: string, taskId: string) => `${frameworkId}/${taskId}`;
const terminal = isTerminalTaskState;
const safe = (id: string) => id.replace(/[^A-Za-z0-9._:@-]/g, '_');

/** Start time of a process, or undefined when it does not exist. */
export function processStartTicks(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return undefined;
  }
}

/** Resident bytes per process group, from one pass over /proc. */
export function residentByGroup(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pgid = Number(fields[2]);
      const rssPages = Number(fields[21]);
      out.set(pgid, (out.get(pgid) ?? 0) + rssPages * PAGE_SIZE);
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

export class TaskRunner {
  private readonly tasks = new Map<string, RunningTask>();
  private closed = false;
  private readonly monitor: NodeJS.Timeout;

  constructor(
    private readonly workDir: string,
    private readonly report: (event: TaskEvent) => void,
  ) {
    this.monitor = setInterval(() => this.enforceMemory(), MEMORY_POLL_MS);
    this.monitor.unref();
  }

  sandboxOf(frameworkId: string, taskId: string): string {
    return path.join(this.workDir, 'frameworks', safe(frameworkId), 'tasks', safe(taskId));
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
    const sandbox = this.sandboxOf(msg.frameworkId, msg.task.taskId);
    fs.mkdirSync(sandbox, { recursive: true });
    fs.rmSync(path.join(sandbox, EXIT_STATUS_FILE), { force: true });
    const task: RunningTask = {
      frameworkId: msg.frameworkId,
      spec: msg.task,
      memLimitBytes: msg.memLimitBytes,
      state: 'STARTING',
      sandbox,
    };
    this.tasks.set(key(msg.frameworkId, msg.task.taskId), task);
    this.checkpoint(task);
    this.emit(task, 'STARTING');

    const out = fs.openSync(path.join(sandbox, 'stdout'), 'a');
    const err = fs.openSync(path.join(sandbox, 'stderr'), 'a');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: process.env.HOME ?? sandbox,
      LANG: process.env.LANG ?? 'C.UTF-8',
      ...(msg.task.env ?? {}),
      ARBITER_TASK_ID: msg.task.taskId,
      ARBITER_FRAMEWORK_ID: msg.frameworkId,
      ARBITER_SANDBOX: sandbox,
    };
    const command = msg.task.command;
    let args: string[];
    if ('shell' in command) {
      env.ARBITER_TASK_SHELL = command.shell;
      args = ['-c', WRAPPER];
    } else {
      args = ['-c', WRAPPER_ARGV, 'arbiter-task', command.value, ...(command.arguments ?? [])];
    }
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', args, { cwd: sandbox, env, stdio: ['ignore', out, err], detached: true });
    } catch (e) {
      this.finish(task, 'FAILED', 'REASON_COMMAND_EXECUTOR_FAILED', `could not start the task: ${(e as Error).message}`);
      return;
    } finally {
      fs.closeSync(out);
      fs.closeSync(err);
    }
    task.child = child;
    child.once('error', (e) => this.finish(task, 'FAILED', 'REASON_COMMAND_EXECUTOR_FAILED', `could not start the task: ${e.message}`));
    child.once('spawn', () => {
      if (this.closed) return;
      task.pid = child.pid;
      task.startTicks = child.pid ? processStartTicks(child.pid) : undefined;
      task.state = 'RUNNING';
      this.checkpoint(task);
      this.emit(task, 'RUNNING');
    });
    child.once('exit', (code, signal) => this.exited(task, code, signal));
  }

  /** SIGTERM to the task's group, SIGKILL after the grace period. */
  kill(frameworkId: string, taskId: string, gracePeriodSeconds = 5): boolean {
    const task = this.tasks.get(key(frameworkId, taskId));
    if (!task || terminal(task.state)) return false;
    task.ending ??= { state: 'KILLED', reason: 'REASON_TASK_KILLED', message: 'killed on request' };
    if (!task.pid) {
      this.finish(task, 'KILLED', 'REASON_TASK_KILLED_DURING_LAUNCH', 'killed before it started');
      return true;
    }
    this.signal(task, 'SIGTERM');
    task.killTimer = setTimeout(() => this.signal(task, 'SIGKILL'), gracePeriodSeconds * 1000);
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
    const root = path.join(this.workDir, 'frameworks');
    if (!fs.existsSync(root)) return;
    for (const fw of fs.readdirSync(root)) {
      const tasksDir = path.join(root, fw, 'tasks');
      if (!fs.existsSync(tasksDir)) continue;
      for (const t of fs.readdirSync(tasksDir)) {
        const sandbox = path.join(tasksDir, t);
        let cp: Checkpoint;
        try {
          cp = JSON.parse(fs.readFileSync(path.join(sandbox, 'task.json'), 'utf8')) as Checkpoint;
        } catch {
          continue;
        }
        const task: RunningTask = { ...cp, sandbox };
        this.tasks.set(key(cp.frameworkId, cp.spec.taskId), task);
        if (terminal(cp.state)) continue;
        if (cp.pid && cp.startTicks !== undefined && processStartTicks(cp.pid) === cp.startTicks) this.watchRecovered(task);
        else this.endedWhileAway(task);
      }
    }
  }

  /**
   * Stops watching: tasks still running are left to a restarted agent, which recovers them (and
   * the status of those that end meanwhile); nothing is recorded or reported after this.
   */
  close(): void {
    this.closed = true;
    clearInterval(this.monitor);
    for (const t of this.tasks.values()) if (t.killTimer) clearTimeout(t.killTimer);
  }

  // ---------------------------------------------------------------- internals

  private watchRecovered(task: RunningTask): void {
    const poll = setInterval(() => {
      if (task.pid && processStartTicks(task.pid) === task.startTicks) return;
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
    const status = this.readExitStatus(task);
    if (status === 0) this.finish(task, 'FINISHED', 'REASON_COMMAND_EXITED', 'exited with status 0');
    else if (status !== undefined) this.finish(task, 'FAILED', 'REASON_COMMAND_EXITED', `exited with status ${status}`);
    else this.finish(task, 'FAILED', 'REASON_AGENT_RESTARTED', 'the task ended while the agent was restarting; its exit status is unknown');
  }

  private readExitStatus(task: RunningTask): number | undefined {
    try {
      const n = Number.parseInt(fs.readFileSync(path.join(task.sandbox, EXIT_STATUS_FILE), 'utf8'), 10);
      return Number.isFinite(n) ? n : undefined;
    } catch {
      return undefined;
    }
  }

  private exited(task: RunningTask, code: number | null, signal: NodeJS.Signals | null): void {
    if (task.killTimer) clearTimeout(task.killTimer);
    // Anything left in the group goes with the task.
    this.signal(task, 'SIGKILL');
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

  private signal(task: RunningTask, signal: NodeJS.Signals): void {
    if (!task.pid) return;
    try {
      process.kill(-task.pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  private enforceMemory(): void {
    const limited = [...this.tasks.values()].filter((t) => t.pid && !terminal(t.state) && !t.ending && this.limitOf(t) !== undefined);
    if (!limited.length) return;
    const rss = residentByGroup();
    for (const t of limited) {
      const limit = this.limitOf(t);
      if (t.pid === undefined || limit === undefined) continue;
      const used = rss.get(t.pid) ?? 0;
      if (used <= limit) continue;
      const mb = (b: number) => `${Math.round(b / 1024 / 1024)} MB`;
      t.ending = {
        state: 'FAILED',
        reason: 'REASON_CONTAINER_LIMITATION_MEMORY',
        message: `memory limit exceeded: used ${mb(used)} of ${mb(limit)}`,
      };
      this.signal(t, 'SIGKILL');
      if (!t.child) this.watchRecovered(t);
    }
  }

  private limitOf(t: RunningTask): number | undefined {
    if (t.memLimitBytes) return t.memLimitBytes;
    const mem = t.spec.resources.find((r) => r.name === 'mem' && r.value !== undefined)?.value;
    return mem ? mem * 1024 * 1024 : undefined;
  }

  private checkpoint(task: RunningTask): void {
    const cp: Checkpoint = {
      frameworkId: task.frameworkId,
      spec: task.spec,
      memLimitBytes: task.memLimitBytes,
      pid: task.pid,
      startTicks: task.startTicks,
      state: task.state,
    };
    const file = path.join(task.sandbox, 'task.json');
    fs.writeFileSync(file + '.tmp', JSON.stringify(cp));
    fs.renameSync(file + '.tmp', file);
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
