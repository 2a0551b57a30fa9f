/**
 * Tasks as real processes. Each task runs as its OS user (its spec's `user`, else the agent's
 * task user: `nobody` when the agent runs as root) in its own sandbox folder
 * (`<sandboxes>/frameworks/<framework>/tasks/<task>/`, owned by that user, mode 0700) with
 * `stdout` and `stderr` files, in a process group of its own and, where the agent may create
 * cgroups, in a cgroup of its own with hard memory, CPU and pids limits (isolation.ts). Its
 * environment is its spec's `env` and a documented few variables, nothing of the agent's.
 * A small shell wrapper records the command's exit status in the sandbox, so an agent that
 * restarts can still tell how a task it was running ended. The agent's own records of its
 * tasks (checkpoints) are kept outside every sandbox, readable by the agent only. Disk use is
 * measured every `diskCheckIntervalMs` and a task over its `disk` is killed; without a memory
 * cgroup, memory is enforced by polling the group's resident size.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isTerminalTaskState, type LaunchTask, type TaskSpec, type TaskState } from '@arbiter/contracts';
import { diskUsage, Isolator, type OsUser, reachableBy, type TaskCgroup, TaskUsers } from './isolation';

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
  /** The OS user it runs as. */
  user?: string;
  cgroup?: TaskCgroup;
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
/**
 * First the wrapper waits for the agent's go on fd 3, sent once the wrapper is in the task's
 * cgroup (so nothing the task starts runs outside it); no go (the agent died): it exits 125.
 */
const GATE = `read -r go <&3; exec 3<&-; [ "$go" = go ] || exit 125; cmd=$ARBITER_TASK_SHELL; unset ARBITER_TASK_SHELL;`;
const WRAPPER = `${GATE} trap ':' TERM; ( eval "$cmd" ); code=$?; echo $code > "$ARBITER_SANDBOX/${EXIT_STATUS_FILE}"; exit $code`;
const WRAPPER_ARGV = `${GATE} trap ':' TERM; ( "$@" ); code=$?; echo $code > "$ARBITER_SANDBOX/${EXIT_STATUS_FILE}"; exit $code`;
/** A task's PATH: the system's directories, nothing of the agent's. */
export const TASK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const PAGE_SIZE = 4096;
const MEMORY_POLL_MS = 250;

const key = (frameworkId: string, taskId: string) => `${frameworkId}/${taskId}`;
const terminal = isTerminalTaskState;
const safe = (id: string) => {
  const s = id.replace(/[^A-Za-z0-9._:@-]/g, '_');
  return s === '.' || s === '..' ? s.replace(/\./g, '_') : s;
};

export interface TaskRunnerOptions {
  /** The OS user tasks run as when their spec names none (default: `nobody` as root, else the agent's user). */
  taskUser?: string;
  /** pids.max of each task's cgroup. */
  pidsLimit?: number;
  /** How often disk use is measured (0: never). */
  diskCheckIntervalMs?: number;
  /** The isolation to use (default: detected). */
  isolator?: Isolator;
  /** Where sandboxes go when the task user cannot reach the work directory (default /var/lib/arbiter). */
  fallbackSandboxRoot?: string;
}

const DEFAULT_PIDS_LIMIT = 1024;
const DEFAULT_DISK_CHECK_MS = 15_000;

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
  private readonly diskMonitor?: NodeJS.Timeout;
  readonly isolator: Isolator;
  private readonly users = new TaskUsers();
  /** Who the agent runs as (tasks can switch users only when it is root). */
  private readonly self = process.getuid?.() ?? 0;
  readonly taskUser: string;
  private readonly pidsLimit: number;
  /** Whether disk use is measured (and enforced). */
  readonly diskChecked: boolean;
  /** Where sandboxes live: the work directory, or a place the task user can reach. */
  readonly sandboxRoot: string;
  /** The agent's private records of its tasks. */
  private readonly checkpoints: string;

  constructor(
    private readonly workDir: string,
    private readonly report: (event: TaskEvent) => void,
    options: TaskRunnerOptions = {},
  ) {
    // Task cgroups under arbiter/<this work directory>: agents on one machine keep to their own.
    const self = crypto.createHash('sha256').update(path.resolve(workDir)).digest('hex').slice(0, 12);
    this.isolator = options.isolator ?? Isolator.detect('/sys/fs/cgroup', path.join('arbiter', self));
    this.pidsLimit = options.pidsLimit ?? DEFAULT_PIDS_LIMIT;
    this.taskUser = options.taskUser ?? (this.self === 0 ? 'nobody' : (process.env.USER ?? String(this.self)));
    fs.mkdirSync(workDir, { recursive: true });
    // Others may pass through the work directory to their sandboxes, not list or change it.
    fs.chmodSync(workDir, 0o711);
    this.checkpoints = path.join(workDir, 'checkpoints');
    fs.mkdirSync(this.checkpoints, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.checkpoints, 0o700);
    this.sandboxRoot = this.placeSandboxes(options.fallbackSandboxRoot ?? '/var/lib/arbiter');
    this.monitor = setInterval(() => this.enforceMemory(), MEMORY_POLL_MS);
    this.monitor.unref();
    const diskEvery = options.diskCheckIntervalMs ?? DEFAULT_DISK_CHECK_MS;
    this.diskChecked = diskEvery > 0;
    if (diskEvery > 0) {
      this.diskMonitor = setInterval(() => this.checkDisk(), diskEvery);
      this.diskMonitor.unref();
    }
  }

  /** Sandboxes stay in the work directory when the task user can reach it, else go to a place of their own (like the embedded database's data). */
  private placeSandboxes(fallback: string): string {
    const user = this.self === 0 ? this.users.lookup(this.taskUser) : null;
    if (!user || reachableBy(user, this.workDir)) return this.workDir;
    const hash = crypto.createHash('sha256').update(path.resolve(this.workDir)).digest('hex').slice(0, 16);
    const place = path.join(fallback, `sandboxes-${hash}`);
    fs.mkdirSync(place, { recursive: true });
    for (let at = place; at !== path.dirname(fallback); at = path.dirname(at)) fs.chmodSync(at, 0o711);
    return place;
  }

  sandboxOf(frameworkId: string, taskId: string): string {
    const dir = path.join(this.sandboxRoot, 'frameworks', safe(frameworkId), 'tasks', safe(taskId));
    if (!dir.startsWith(path.join(this.sandboxRoot, 'frameworks') + path.sep)) throw new Error(`task id '${taskId}' leaves the sandboxes`);
    return dir;
  }

  /** Where the agent keeps its record of a task (outside every sandbox). */
  checkpointOf(frameworkId: string, taskId: string): string {
    return path.join(this.checkpoints, safe(frameworkId), `${safe(taskId)}.json`);
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
    const userName = msg.task.user ?? this.taskUser;
    const task: RunningTask = {
      frameworkId: msg.frameworkId,
      spec: msg.task,
      memLimitBytes: msg.memLimitBytes,
      state: 'STARTING',
      sandbox,
      user: userName,
    };
    this.tasks.set(key(msg.frameworkId, msg.task.taskId), task);
    this.emit(task, 'STARTING');
    const user = this.users.lookup(userName);
    const problem = !user
      ? `no OS user '${userName}' on this machine`
      : this.self !== 0 && user.uid !== this.self
        ? `the agent does not run as root and so cannot run tasks as '${userName}'`
        : undefined;
    if (!user || problem) {
      this.checkpoint(task);
      this.finish(task, 'FAILED', 'REASON_TASK_USER_INVALID', problem ?? `no OS user '${userName}'`);
      return;
    }
    let out: number, err: number;
    try {
      this.prepareSandbox(sandbox, user);
      task.cgroup = this.isolator.create(`${safe(msg.frameworkId)}_${safe(msg.task.taskId)}`, {
        memBytes: this.limitOf(task),
        cpus: msg.task.resources.find((r) => r.name === 'cpus')?.value,
        pids: this.pidsLimit,
      });
      this.checkpoint(task);
      out = fs.openSync(path.join(sandbox, 'stdout'), 'a', 0o600);
      err = fs.openSync(path.join(sandbox, 'stderr'), 'a', 0o600);
      fs.fchownSync(out, user.uid, user.gid);
      fs.fchownSync(err, user.uid, user.gid);
    } catch (e) {
      this.checkpoint(task);
      this.finish(task, 'FAILED', 'REASON_COMMAND_EXECUTOR_FAILED', `could not prepare the task: ${(e as Error).message}`);
      return;
    }
    // Exactly the spec's environment and these (documented in docs/security.md).
    const env: NodeJS.ProcessEnv = {
      ...(msg.task.env ?? {}),
      PATH: msg.task.env?.PATH ?? TASK_PATH,
      HOME: sandbox,
      LANG: msg.task.env?.LANG ?? 'C.UTF-8',
      USER: user.name,
      LOGNAME: user.name,
      ARBITER_TASK_ID: msg.task.taskId,
      ARBITER_FRAMEWORK_ID: msg.frameworkId,
      ARBITER_SANDBOX: sandbox,
      MESOS_SANDBOX: sandbox,
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
      child = spawn('/bin/sh', args, {
        cwd: sandbox,
        env,
        stdio: ['ignore', out, err, 'pipe'],
        detached: true,
        ...(this.self === 0 ? { uid: user.uid, gid: user.gid } : {}),
      });
      this.release(task, child);
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

  /** The sandbox, owned by the task's user and closed to everyone else; its parents only passable. */
  private prepareSandbox(sandbox: string, user: OsUser): void {
    const frameworks = path.join(this.sandboxRoot, 'frameworks');
    fs.mkdirSync(sandbox, { recursive: true, mode: 0o700 });
    for (let at = path.dirname(sandbox); at.length >= frameworks.length; at = path.dirname(at)) fs.chmodSync(at, 0o711);
    fs.rmSync(path.join(sandbox, EXIT_STATUS_FILE), { force: true });
    fs.chownSync(sandbox, user.uid, user.gid);
    fs.chmodSync(sandbox, 0o700);
  }

  /** Puts the just-spawned wrapper in the task's cgroup, then lets it run (fd 3, see GATE). */
  private release(task: RunningTask, child: ChildProcess): void {
    const gate = child.stdio[3] as NodeJS.WritableStream | null;
    try {
      if (task.cgroup && child.pid) this.isolator.join(task.cgroup, child.pid);
      gate?.end('go\n');
    } catch (e) {
      gate?.end();
      task.ending = {
        state: 'FAILED',
        reason: 'REASON_CONTAINER_LAUNCH_FAILED',
        message: `could not isolate the task: ${(e as Error).message}`,
      };
    }
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
    const root = this.checkpoints;
    for (const fw of fs.readdirSync(root)) {
      const dir = path.join(root, fw);
      if (!fs.statSync(dir).isDirectory()) continue;
      for (const t of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
        let cp: Checkpoint;
        try {
          cp = JSON.parse(fs.readFileSync(path.join(dir, t), 'utf8')) as Checkpoint;
        } catch {
          continue;
        }
        const task: RunningTask = { ...cp, sandbox: this.sandboxOf(cp.frameworkId, cp.spec.taskId) };
        this.tasks.set(key(cp.frameworkId, cp.spec.taskId), task);
        if (terminal(cp.state)) continue;
        if (cp.pid && cp.startTicks !== undefined && processStartTicks(cp.pid) === cp.startTicks) this.watchRecovered(task);
        else this.endedWhileAway(task);
      }
    }
    // Cgroups of tasks this agent no longer runs (it was killed before it could remove them).
    const live = [...this.tasks.values()].flatMap((t) => (t.cgroup && !terminal(t.state) ? [t.cgroup] : []));
    this.isolator.removeStale(live);
  }

  /**
   * Stops watching: tasks still running are left to a restarted agent, which recovers them (and
   * the status of those that end meanwhile); nothing is recorded or reported after this.
   */
  close(): void {
    this.closed = true;
    clearInterval(this.monitor);
    if (this.diskMonitor) clearInterval(this.diskMonitor);
    this.isolator.removeBase();
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
    // Anything left in the group (and the cgroup) goes with the task.
    this.signal(task, 'SIGKILL');
    if (!task.ending && task.cgroup && this.isolator.oomKilled(task.cgroup)) {
      const limit = this.limitOf(task);
      task.ending = {
        state: 'FAILED',
        reason: 'REASON_CONTAINER_LIMITATION_MEMORY',
        message: `memory limit exceeded: the kernel killed the task at its limit of ${limit ? Math.round(limit / 1024 / 1024) : '?'} MB`,
      };
    }
    this.releaseCgroup(task);
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

  /** Signals the task's process group and, when it has one, every process in its cgroup (what left the group with setsid too). */
  private signal(task: RunningTask, signal: NodeJS.Signals): void {
    if (task.cgroup) this.isolator.signal(task.cgroup, signal);
    if (!task.pid) return;
    try {
      process.kill(-task.pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  /** Once every process of the task is gone, its cgroup goes too. */
  private releaseCgroup(task: RunningTask, attempts = 20): void {
    const cg = task.cgroup;
    if (!cg) return;
    this.isolator.signal(cg, 'SIGKILL');
    if (this.isolator.remove(cg) || attempts <= 0) return;
    setTimeout(() => this.releaseCgroup(task, attempts - 1), 50).unref();
  }

  /**
   * Disk use of every running task with a `disk` resource (Mesos's disk/du); one over it is
   * killed and FAILED with REASON_CONTAINER_LIMITATION_DISK. Runs every diskCheckIntervalMs.
   */
  checkDisk(): void {
    for (const t of this.tasks.values()) {
      if (terminal(t.state) || t.ending || !t.pid) continue;
      const disk = t.spec.resources.find((r) => r.name === 'disk' && r.value !== undefined)?.value;
      if (disk === undefined) continue;
      const used = diskUsage(t.sandbox);
      const limit = disk * 1024 * 1024;
      if (used <= limit) continue;
      t.ending = {
        state: 'FAILED',
        reason: 'REASON_CONTAINER_LIMITATION_DISK',
        message: `disk limit exceeded: the sandbox uses ${Math.round(used / 1024 / 1024)} MB of ${disk} MB`,
      };
      this.signal(t, 'SIGKILL');
      if (!t.child) this.watchRecovered(t);
    }
  }

  /** The task's cgroup, if it has one (for operators' tools and tests). */
  cgroupOf(frameworkId: string, taskId: string): TaskCgroup | undefined {
    return this.tasks.get(key(frameworkId, taskId))?.cgroup;
  }

  /**
   * Memory: a task in a memory cgroup is held to its limit by the kernel; when the kernel had
   * to kill one of its processes (setsid or not), the whole task ends FAILED. Tasks without a
   * memory cgroup are polled: over the limit, their group is killed.
   */
  private enforceMemory(): void {
    for (const t of this.tasks.values()) {
      if (!t.cgroup?.dirs.memory || terminal(t.state) || t.ending || !t.pid || !this.isolator.oomKilled(t.cgroup)) continue;
      const limit = this.limitOf(t);
      t.ending = {
        state: 'FAILED',
        reason: 'REASON_CONTAINER_LIMITATION_MEMORY',
        message: `memory limit exceeded: the kernel killed the task at its limit of ${limit ? Math.round(limit / 1024 / 1024) : '?'} MB`,
      };
      this.signal(t, 'SIGKILL');
      if (!t.child) this.watchRecovered(t);
    }
    const limited = [...this.tasks.values()].filter(
      (t) => t.pid && !terminal(t.state) && !t.ending && !t.cgroup?.dirs.memory && this.limitOf(t) !== undefined,
    );
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
      user: task.user,
      cgroup: task.cgroup,
    };
    const file = this.checkpointOf(task.frameworkId, task.spec.taskId);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file + '.tmp', JSON.stringify(cp), { mode: 0o600 });
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
