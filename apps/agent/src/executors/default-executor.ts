/**
 * The default executor (Mesos's default executor): runs task groups (LAUNCH_GROUP) as one unit.
 * The agent starts it for an executor of type DEFAULT; it speaks the agent's executor API
 * through the SDK's Executor like any framework's executor. Each task of a group runs its
 * command as a child process in its own directory under the shared sandbox (tasks/<task id>,
 * with MESOS_SANDBOX pointing at it and the executor's sandbox beside it as
 * MESOS_EXECUTOR_SANDBOX), and its states are reported as they happen. As in Mesos, a group
 * lives and dies together: when one task fails, or one is killed, the group's other tasks are
 * killed (TASK_KILLED); once no task is left the executor exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Executor, ExecutorTaskInfo, ExecutorTaskState } from '@arbiter/scheduler-sdk';
import { type AgentApi, namesImage, type NestedExit, NestedTask } from './nested-task';

interface GroupTask {
  info: ExecutorTaskInfo;
  child?: ChildProcess;
  /** Its container, when it names an image (nested-task.ts). */
  nested?: NestedTask;
  state: ExecutorTaskState;
  /** Set when the executor kills it: the state to report when it ends. */
  killedAs?: { state: ExecutorTaskState; reason?: string; message: string };
}

const TERMINAL: ReadonlySet<ExecutorTaskState> = new Set(['TASK_FINISHED', 'TASK_FAILED', 'TASK_KILLED', 'TASK_ERROR', 'TASK_LOST']);

export interface DefaultExecutorOptions {
  /** The executor's sandbox (MESOS_SANDBOX as the agent set it). */
  sandbox: string;
  /** The environment tasks inherit (the executor's own, less its credential). */
  env: NodeJS.ProcessEnv;
  /** Seconds between SIGTERM and SIGKILL when a kill names no grace period (default 3). */
  gracePeriodSeconds?: number;
  /** Called once every task has ended: the executor exits. */
  onIdle: () => void;
  /** The agent API, for the tasks that run in images of their own (nested containers). */
  agent?: AgentApi;
}

export class DefaultExecutor {
  private readonly tasks = new Map<string, GroupTask>();
  private shuttingDown = false;

  constructor(
    private readonly executor: Executor,
    private readonly options: DefaultExecutorOptions,
  ) {
    executor.on('launchGroup', (tasks) => this.launch(tasks));
    executor.on('launch', (task) => this.launch([task]));
    executor.on('kill', (taskId, grace) => this.killGroup(taskId, grace));
    executor.on('shutdown', () => {
      this.shuttingDown = true;
      this.killAll(undefined, { state: 'TASK_KILLED', message: 'the executor was shut down' });
      this.ended();
    });
  }

  /** The tasks it runs now, by id, with their states. */
  states(): Record<string, ExecutorTaskState> {
    return Object.fromEntries([...this.tasks].map(([id, t]) => [id, t.state]));
  }

  private report(task: GroupTask, state: ExecutorTaskState, extra: { message?: string; reason?: string } = {}): void {
    task.state = state;
    void this.executor.update(task.info.task_id.value, state, extra).catch(() => undefined);
  }

  private launch(infos: ExecutorTaskInfo[]): void {
    for (const info of infos) {
      const task: GroupTask = { info, state: 'TASK_STARTING' };
      this.tasks.set(info.task_id.value, task);
      if (this.shuttingDown) {
        this.report(task, 'TASK_KILLED', { message: 'the executor is shutting down' });
        continue;
      }
      this.report(task, 'TASK_STARTING');
      this.start(task);
    }
  }

  private start(task: GroupTask): void {
    const id = task.info.task_id.value;
    const command = task.info.command;
    if (namesImage(task.info)) {
      this.startNested(task);
      return;
    }
    if (!command?.value) {
      this.report(task, 'TASK_ERROR', { message: 'a task of a group needs a command' });
      this.ended(task);
      return;
    }
    const dir = path.join(this.options.sandbox, 'tasks', id);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o750 });
    } catch (err) {
      this.report(task, 'TASK_FAILED', {
        message: `cannot create its sandbox: ${(err as Error).message}`,
        reason: 'REASON_EXECUTOR_TERMINATED',
      });
      this.ended(task);
      return;
    }
    const env: NodeJS.ProcessEnv = {
      ...this.options.env,
      MESOS_SANDBOX: dir,
      MESOS_EXECUTOR_SANDBOX: this.options.sandbox,
      MESOS_TASK_ID: id,
    };
    for (const v of command.environment?.variables ?? []) env[v.name] = v.value ?? '';
    const shell = command.shell !== false;
    // Mesos: with shell false, `arguments` is the whole argv, the program's name first.
    const child = shell
      ? spawn('/bin/sh', ['-c', command.value], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(command.value, (command.arguments ?? []).slice(1), { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    task.child = child;
    child.stdout.pipe(fs.createWriteStream(path.join(dir, 'stdout'), { flags: 'a' }));
    child.stderr.pipe(fs.createWriteStream(path.join(dir, 'stderr'), { flags: 'a' }));
    child.once('spawn', () => this.report(task, 'TASK_RUNNING'));
    child.once('error', (err) => {
      if (TERMINAL.has(task.state)) return;
      this.report(task, 'TASK_FAILED', { message: `cannot start its command: ${err.message}`, reason: 'REASON_COMMAND_EXECUTOR_FAILED' });
      this.failed(task);
    });
    child.once('exit', (code, signal) => this.exited(task, { code, signal }));
  }

  /**
   * A task in an image of its own: its container launched by the agent under the executor's
   * (nested-task.ts), linked at tasks/<task id>, and waited for.
   */
  private startNested(task: GroupTask): void {
    const agent = this.options.agent;
    if (!agent) {
      this.report(task, 'TASK_FAILED', { message: 'the executor cannot reach the agent API', reason: 'REASON_CONTAINER_LAUNCH_FAILED' });
      this.failed(task);
      return;
    }
    const nested = new NestedTask(agent, task.info);
    task.nested = nested;
    try {
      fs.mkdirSync(path.join(this.options.sandbox, 'tasks'), { recursive: true, mode: 0o750 });
      fs.symlinkSync(path.join('..', 'containers', nested.id), path.join(this.options.sandbox, 'tasks', task.info.task_id.value));
    } catch {
      // Only a convenience (its sandbox is containers/<id>): a task holding persistent volumes has its directory there already.
    }
    nested.launch().then(
      async () => {
        if (task.killedAs) void nested.kill('SIGKILL');
        else this.report(task, 'TASK_RUNNING');
        this.exited(task, await nested.wait());
      },
      (err: unknown) => {
        const message = `could not launch its container: ${(err as Error).message}`;
        this.exited(task, { code: null, signal: null, reason: 'REASON_CONTAINER_LAUNCH_FAILED', message });
      },
    );
  }

  /** A task's command or container ended: reported, and a failure ends the group. */
  private exited(task: GroupTask, end: NestedExit): void {
    if (TERMINAL.has(task.state)) return;
    if (task.killedAs) {
      this.report(task, task.killedAs.state, {
        message: task.killedAs.message,
        ...(task.killedAs.reason ? { reason: task.killedAs.reason } : {}),
      });
      this.ended(task);
      return;
    }
    if (end.code === 0 && !end.reason) {
      this.report(task, 'TASK_FINISHED', { message: 'the command exited with status 0' });
      this.ended(task);
      return;
    }
    const { code, signal } = end;
    this.report(task, 'TASK_FAILED', {
      message: end.message ?? (signal ? `the command was killed by ${signal}` : `the command exited with status ${code}`),
      reason: end.reason ?? 'REASON_COMMAND_EXECUTOR_FAILED',
    });
    this.failed(task);
  }

  /** One task failed: the group's others are killed, as Mesos's default executor does. */
  private failed(task: GroupTask): void {
    this.killAll(task.info.task_id.value, {
      state: 'TASK_KILLED',
      message: `task ${task.info.task_id.value} of its group failed`,
    });
    this.ended(task);
  }

  /** A kill of one task kills its whole group. */
  private killGroup(taskId: string, graceSeconds: number | undefined): void {
    const task = this.tasks.get(taskId);
    if (!task || TERMINAL.has(task.state)) return;
    this.killAll(undefined, { state: 'TASK_KILLED', message: `the group was killed (kill of ${taskId})` }, graceSeconds);
  }

  private killAll(except: string | undefined, as: NonNullable<GroupTask['killedAs']>, graceSeconds?: number): void {
    const grace = (graceSeconds ?? this.options.gracePeriodSeconds ?? 3) * 1000;
    for (const [id, task] of this.tasks) {
      if (id === except || TERMINAL.has(task.state) || task.killedAs) continue;
      task.killedAs = as;
      if (task.state !== 'TASK_STARTING') this.report(task, 'TASK_KILLING');
      const nested = task.nested;
      if (nested) {
        // Its wait ends it; killed before it runs, its launch fails and ends it.
        void nested.kill('SIGTERM');
        setTimeout(() => void nested.kill('SIGKILL'), grace).unref();
        continue;
      }
      const child = task.child;
      if (!child?.pid || child.exitCode !== null || child.signalCode !== null) {
        this.report(task, as.state, { message: as.message });
        this.ended(task);
        continue;
      }
      signalGroup(child.pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child.pid ?? 0, 'SIGKILL'), grace);
      timer.unref();
      child.once('exit', () => clearTimeout(timer));
    }
  }

  /** A task ended: once none is left (and the agent has every update), the executor is done. */
  private ended(_task?: GroupTask): void {
    if (![...this.tasks.values()].every((t) => TERMINAL.has(t.state))) return;
    // Every update reaches the agent first (those made while it was away, restarting, go with the
    // next subscription): it would end a task whose last update it never got as a failure.
    void this.executor.delivered().then(() => {
      if ([...this.tasks.values()].every((t) => TERMINAL.has(t.state))) this.options.onIdle();
    });
  }
}

/** Signals a task's process group (it was started detached: its own group), ignoring one already gone. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (pid <= 0) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
