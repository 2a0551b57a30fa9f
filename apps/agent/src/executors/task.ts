/** A task as the executors keep it: its checkpointed record, its container, and how it is ending. */
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { CheckStatus, StatusUpdate, TaskSpec, TaskState } from '@arbiter/contracts';
import { type CheckedTask, checkEnv } from '../checks/task-checks';
import type { Containerizer } from '../containerizer/containerizer';
import type { OsUser } from '../containerizer/users';
import { LaunchError, PRIVATE_TMP, TASK_PATH } from '../containerizer/launcher';
import type { Container, ContainerLimits } from '../containerizer/isolators/isolator';
import { portRangesOf } from '../containerizer/isolators/ports';
import { hiddenName } from '../containerizer/names';
import type { Checkpoint } from './checkpoints';

export interface TaskEvent {
  frameworkId: string;
  taskId: string;
  state: TaskState;
  reason?: string;
  message?: string;
  /** The update's id when its sender chose it (an executor's TaskStatus.uuid); else a new one. */
  updateUuid?: string;
  /** An executor's update (SOURCE_EXECUTOR) and what it carried beside its state. */
  fromExecutor?: Pick<StatusUpdate, 'data' | 'healthy' | 'checkStatus' | 'labels'>;
  /** The image a container task runs. */
  container?: StatusUpdate['container'];
  /** The agent's own checks of the task (../checks): its health, its general check's last result. */
  healthy?: boolean;
  checkStatus?: CheckStatus;
}

export interface RunningTask extends Omit<Checkpoint, 'pid' | 'cgroup' | 'sandbox'> {
  container: Container;
  /** Where its record was found, when recovered (else where checkpoints.ts puts it). */
  file?: string;
  child?: ChildProcess;
  /** Why the agent is ending it: set before it signals the group. */
  ending?: { state: TaskState; reason: string; message: string };
  killTimer?: NodeJS.Timeout;
  /** Ends its URIs' fetch, while it runs (a kill before the task starts). */
  fetching?: AbortController;
  /** Its URIs' fetch, begun while its image is provisioned: whether the task may run once it is done. */
  fetched?: Promise<boolean>;
  /** Called once the task has ended (see killAll). */
  onEnded?: Array<() => void>;
}

/** A task's container: its hidden name, its sandbox, its limits. */
export function containerOf(frameworkId: string, spec: TaskSpec, sandbox: string, pidsLimit: number, memLimitBytes?: number): Container {
  return { name: hiddenName(frameworkId, spec.taskId), sandbox, limits: limitsOf(spec, memLimitBytes, pidsLimit) };
}

/** A task as (re-)registration reports it. */
export interface LiveTask {
  frameworkId: string;
  taskId: string;
  state: TaskState;
  resources: TaskSpec['resources'];
}

/** A launch that failed, with the reason to report. */
export class LaunchFailure extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** A task's limits from its resources (`memLimitBytes`, when given, is its memory). */
export function limitsOf(spec: TaskSpec, memLimitBytes: number | undefined, pids: number): ContainerLimits {
  const value = (name: string) => spec.resources.find((r) => r.name === name && r.value !== undefined)?.value;
  const mem = value('mem');
  const disk = value('disk');
  const gpus = value('gpus');
  const ports = portRangesOf(spec.resources);
  return {
    memBytes: memLimitBytes !== undefined && memLimitBytes > 0 ? memLimitBytes : mem ? mem * 1024 * 1024 : undefined,
    cpus: value('cpus'),
    diskBytes: disk === undefined ? undefined : disk * 1024 * 1024,
    pids,
    completionSeconds: spec.maxCompletionTimeSeconds,
    ...(ports.length ? { ports } : {}),
    ...(gpus ? { gpus } : {}),
  };
}

/** How a task's command ended, from its exit code or signal. */
export function endOf(code: number | null, signal: NodeJS.Signals | null): { state: TaskState; message: string } {
  if (code === 0) return { state: 'FINISHED', message: 'exited with status 0' };
  const how = signal
    ? `was killed by ${signal}`
    : code !== null && code > 128
      ? `was killed by signal ${code - 128}`
      : `exited with status ${code}`;
  return { state: 'FAILED', message: `the command ${how}` };
}

/** How a task that ended while the agent was away ended, from the exit status its wrapper recorded (if it could). */
export function endFromRecord(status: number | undefined): { state: TaskState; reason: string; message: string } {
  if (status === 0) return { state: 'FINISHED', reason: 'REASON_COMMAND_EXITED', message: 'exited with status 0' };
  if (status !== undefined) return { state: 'FAILED', reason: 'REASON_COMMAND_EXITED', message: `exited with status ${status}` };
  return {
    state: 'FAILED',
    reason: 'REASON_AGENT_RESTARTED',
    message: 'the task ended while the agent was restarting; its exit status is unknown',
  };
}

/** Resolves once every promise has, or after `timeoutMs`, whichever comes first. */
export async function allWithin(promises: Array<Promise<void>>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(promises), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}

/** What a launch step threw, as a LaunchFailure (REASON_CONTAINER_LAUNCH_FAILED unless it is one). */
export function asLaunchFailure(e: unknown, what: string): LaunchFailure {
  return e instanceof LaunchFailure ? e : new LaunchFailure('REASON_CONTAINER_LAUNCH_FAILED', `${what}: ${(e as Error).message}`);
}

/** What a restarted agent needs to find the task again (see checkpoints.ts). */
export function checkpointOf(task: RunningTask): Checkpoint {
  return {
    frameworkId: task.frameworkId,
    spec: task.spec,
    memLimitBytes: task.memLimitBytes,
    pid: task.container.pid,
    startTicks: task.startTicks,
    state: task.state,
    user: task.user,
    uid: task.uid,
    gid: task.gid,
    cgroup: task.container.cgroup,
    sandbox: task.container.sandbox,
    image: task.image,
    ...(task.unreported ? { unreported: task.unreported } : {}),
    ...(task.healthy !== undefined ? { healthy: task.healthy } : {}),
    ...(task.checkStatus ? { checkStatus: task.checkStatus } : {}),
  };
}

/** A change of the task to report, with its health and its general check's last result when it has them. */
export function eventOf(task: RunningTask, state: TaskState, reason?: string, message?: string): TaskEvent {
  return {
    frameworkId: task.frameworkId,
    taskId: task.spec.taskId,
    state,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
    ...(task.healthy !== undefined ? { healthy: task.healthy } : {}),
    ...(task.checkStatus ? { checkStatus: task.checkStatus } : {}),
    ...(task.image ? { container: { image: task.image } } : {}),
  };
}

/**
 * Where and as whom its check commands run: beside it, as its user (when the agent can switch
 * to it), in its sandbox and its cgroup; a task in an image's container, inside the container.
 */
export function checkedTask(task: RunningTask, containerizer: Containerizer): CheckedTask {
  const { sandbox } = task.container;
  const asUser = process.getuid?.() === 0 && task.uid !== undefined && task.gid !== undefined;
  const { runtime } = containerizer;
  const env = { ...checkEnv(task.spec, task.frameworkId, sandbox, TASK_PATH), TMPDIR: path.join(sandbox, PRIVATE_TMP) };
  return {
    frameworkId: task.frameworkId,
    spec: task.spec,
    last: { healthy: task.healthy, checkStatus: task.checkStatus },
    target: {
      sandbox,
      ...(asUser ? { uid: task.uid, gid: task.gid } : {}),
      env: task.user ? { ...env, USER: task.user, LOGNAME: task.user } : env,
      join: (pid) => containerizer.cgroups.isolate(task.container, pid),
      // In its image's container: the commands run inside it, where its files are.
      ...(task.image && runtime ? { container: (argv: string[]) => runtime.exec(task.container.name, argv) } : {}),
    },
  };
}

/** Forks the task's process (see the containerizer); a process it could not isolate is let go to end FAILED, saying why. */
export function launchProcess(containerizer: Containerizer, task: RunningTask, user: OsUser): ReturnType<Containerizer['launch']> {
  try {
    const launched = containerizer.launch(task.container, user, task.frameworkId, task.spec);
    const failed = launched.isolationError;
    if (failed)
      task.ending = { state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED', message: `could not isolate the task: ${failed.message}` };
    return launched;
  } catch (e) {
    throw e instanceof LaunchError ? new LaunchFailure('REASON_COMMAND_EXECUTOR_FAILED', e.message) : e;
  }
}

/**
 * After an agent restart: what recovered running tasks hold again, their images (so that they are
 * not collected) and their persistent volumes (so that a DESTROY is refused while they run).
 */
export function holdRecovered(containerizer: Containerizer, running: RunningTask[], onError?: (message: string, err: Error) => void): void {
  const unheld = (e: Error) => onError?.("could not hold a recovered container's image", e);
  for (const t of running) {
    if (t.image) containerizer.holdImage(t.container, t.image).catch(unheld);
    containerizer.volumes.hold(t.container.name, t.spec.resources);
  }
}
