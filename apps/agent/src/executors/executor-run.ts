/**
 * One executor process as the agent keeps it (Mesos's slave `Executor`): its container, its
 * credential, its tasks, its event stream while subscribed, and its checkpointed record.
 */
import type { ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import type {
  Command,
  ExecutorExited,
  ExecutorSpec,
  FrameworkMessage,
  ResourceEntry,
  StatusUpdate,
  TaskSpec,
  TaskState,
} from '@arbiter/contracts';
import type { Container } from '../containerizer/isolators/isolator';
import type { Containerizer } from '../containerizer/containerizer';
import type { TaskCgroup } from '../containerizer/isolators/cgroups';
import { hiddenName } from '../containerizer/names';
import type { Fetcher, fetchInto } from '../fetcher/fetcher';
import { limitsOf, type TaskEvent } from './task';

/**
 * REGISTERING: started (or recovered), not subscribed yet; RUNNING: subscribed (its stream may
 * be down between subscriptions); TERMINATING: being killed; TERMINATED: its process is gone.
 */
export type ExecutorState = 'REGISTERING' | 'RUNNING' | 'TERMINATING' | 'TERMINATED';

export interface ExecutorTask {
  spec: TaskSpec;
  state: TaskState;
  memLimitBytes?: number;
  /** Handed to the executor (a LAUNCH or LAUNCH_GROUP event sent); false while queued for its subscription. */
  delivered: boolean;
  /** The task group it was launched in (LAUNCH_GROUP): handed over together with the group's others. */
  group?: string;
}

/** A task's status as its executor reported it (UPDATE). */
export type ExecutorStatus = Pick<StatusUpdate, 'state' | 'reason' | 'message' | 'data' | 'healthy' | 'checkStatus' | 'labels'>;

/** Where the events of a subscribed executor go. */
export interface EventStream {
  send(event: Record<string, unknown>): void;
  close(): void;
  readonly closed: boolean;
}

/** The record a restarted agent recovers an executor from. */
export interface ExecutorCheckpoint {
  frameworkId: string;
  spec: ExecutorSpec;
  token: string;
  containerId: string;
  pid?: number;
  startTicks?: number;
  user?: string;
  uid?: number;
  gid?: number;
  cgroup?: TaskCgroup;
  sandbox: string;
  tasks: Array<{ spec: TaskSpec; state: TaskState; memLimitBytes?: number; delivered: boolean; group?: string }>;
  startedAt: string;
  /** Whether its framework checkpoints (absent in older records: true). */
  checkpoint?: boolean;
  /** Its nested containers (nested-containers.ts), found again after an agent restart. */
  nested?: NestedRecord[];
}

/** A nested container's record: its id under the executor's, its container, its first process and its image. */
export interface NestedRecord {
  id: string;
  name: string;
  sandbox: string;
  pid?: number;
  startTicks?: number;
  image?: { reference: string; digest: string };
}

export interface ExecutorRun {
  frameworkId: string;
  spec: ExecutorSpec;
  /** The executor's own credential (MESOS_EXECUTOR_AUTHENTICATION_TOKEN); it speaks for this executor only. */
  token: string;
  containerId: string;
  state: ExecutorState;
  container: Container;
  child?: ChildProcess;
  startTicks?: number;
  user?: string;
  uid?: number;
  gid?: number;
  tasks: Map<string, ExecutorTask>;
  stream?: EventStream;
  /** Updates journaled and not yet acknowledged: their uuid -> task id. */
  awaitingAck: Map<string, string>;
  /** Updates acknowledged while it runs (answered at once when it sends them again). */
  acknowledged: Set<string>;
  /** How it is being ended, when the agent ends it: its unfinished tasks take this. */
  ending?: { state: TaskState; reason: string; message: string };
  timers: { registration?: NodeJS.Timeout; shutdown?: NodeJS.Timeout; heartbeat?: NodeJS.Timeout; recovered?: NodeJS.Timeout };
  startedAt: string;
  /** Called once its process is gone and its tasks' ends are recorded (see Executors.killAll). */
  onTerminated?: () => void;
  /** Found after an agent restart and not subscribed since: its SUBSCRIBE says which tasks it holds. */
  recovered?: boolean;
  /**
   * Whether its framework checkpoints (Mesos's FrameworkInfo.checkpoint, as the launch that
   * started it said): only then does it outlive an agent restart.
   */
  checkpoint: boolean;
  /** The records of its running nested containers, by id. */
  nested: Map<string, NestedRecord>;
  /** Its URIs' fetch, once started (aborted if it ends first). */
  fetch?: { result: ReturnType<typeof fetchInto>; abort: AbortController };
}

export interface ExecutorOptions {
  /** How long a started executor has to subscribe (default 60 s; ARBITER_EXECUTOR_REGISTRATION_TIMEOUT). */
  registrationTimeoutMs?: number;
  /** How long a recovered executor has to subscribe again after an agent restart (default 15 min, Mesos's). */
  recoveryTimeoutMs?: number;
  /** The longest wait between an executor's subscription attempts (MESOS_SUBSCRIPTION_BACKOFF_MAX, default 2 s). */
  subscriptionBackoffMaxMs?: number;
  /** HEARTBEAT events on each stream (default every 30 s). */
  heartbeatIntervalMs?: number;
  /** Fetches executors' URIs (default: one of its own with default limits; the agent shares its tasks'). */
  fetcher?: Fetcher;
}

export interface ExecutorHooks {
  /** A task's change, journaled and sent (false: not durable). */
  report(e: TaskEvent): boolean;
  exited(m: ExecutorExited): void;
  message(m: FrameworkMessage): void;
  /** The agent as executors see it (SUBSCRIBED's agent_info, MESOS_AGENT_ENDPOINT). */
  agent(): { agentId?: string; hostname: string; resources: ResourceEntry[]; endpoint?: { host: string; port: number } };
  onError(message: string, err: Error): void;
}

export const executorKey = (frameworkId: string, executorId: string) => `${frameworkId}\u0000${executorId}`;

/** A credential: 32 random bytes, hex. */
export const newToken = () => crypto.randomBytes(32).toString('hex');

/** Whether `given` is the run's credential, compared in constant time. */
export function tokenMatches(run: ExecutorRun, given: string): boolean {
  const a = crypto.createHash('sha256').update(run.token).digest();
  const b = crypto.createHash('sha256').update(given).digest();
  return crypto.timingSafeEqual(a, b);
}

/** Resources summed by name (scalars only; ranges and sets are listed as given). */
function sumResources(lists: ResourceEntry[][]): ResourceEntry[] {
  const scalars = new Map<string, number>();
  const rest: ResourceEntry[] = [];
  for (const r of lists.flat())
    if (r.value !== undefined) scalars.set(r.name, (scalars.get(r.name) ?? 0) + r.value);
    else rest.push(r);
  return [...[...scalars].map(([name, value]) => ({ name, value })), ...rest];
}

/** The container's limits: the executor's resources and those of its unfinished tasks together (as Mesos sizes an executor's container). */
export function executorLimits(run: Pick<ExecutorRun, 'spec' | 'tasks'>, pidsLimit: number, terminal: (s: TaskState) => boolean) {
  const tasks = [...run.tasks.values()].filter((t) => !terminal(t.state));
  const resources = sumResources([run.spec.resources, ...tasks.map((t) => t.spec.resources)]);
  const memLimits = tasks.map((t) => t.memLimitBytes);
  const specMem = run.spec.resources.find((r) => r.name === 'mem')?.value ?? 0;
  // A task launched with an explicit byte limit counts that; otherwise its `mem`.
  const memBytes = memLimits.every((m) => m !== undefined) ? specMem * 1024 * 1024 + memLimits.reduce((a, m) => a + m, 0) : undefined;
  const pseudo = { taskId: run.spec.executorId, name: 'executor', resources, command: { shell: 'true' } } as TaskSpec;
  return limitsOf(pseudo, memBytes && memBytes > 0 ? memBytes : undefined, pidsLimit);
}

export function checkpointOf(run: ExecutorRun): ExecutorCheckpoint {
  return {
    frameworkId: run.frameworkId,
    spec: run.spec,
    token: run.token,
    containerId: run.containerId,
    pid: run.container.pid,
    startTicks: run.startTicks,
    user: run.user,
    uid: run.uid,
    gid: run.gid,
    cgroup: run.container.cgroup,
    sandbox: run.container.sandbox,
    tasks: [...run.tasks.values()].map((t) => ({
      spec: t.spec,
      state: t.state,
      memLimitBytes: t.memLimitBytes,
      delivered: t.delivered,
      ...(t.group ? { group: t.group } : {}),
    })),
    startedAt: run.startedAt,
    checkpoint: run.checkpoint,
    ...(run.nested.size ? { nested: [...run.nested.values()] } : {}),
  };
}

/** The default executor's program (task groups), from the agent's own package. */
export const DEFAULT_EXECUTOR = path.resolve(__dirname, '..', '..', 'bin', 'default-executor.js');

/** What runs the executor: its command, or for a DEFAULT executor the agent's default executor under this Node.js. */
function executorCommand(spec: ExecutorSpec): Command {
  return spec.command ?? { value: process.execPath, arguments: [DEFAULT_EXECUTOR] };
}

/** What the containerizer launches for the executor: its command, with `env` added. */
export function launchSpecOf(run: ExecutorRun, env: Record<string, string>) {
  return {
    taskId: run.spec.executorId,
    name: run.spec.name ?? run.spec.executorId,
    command: executorCommand(run.spec),
    env: { ...run.spec.env, ...env },
    resources: run.spec.resources,
  };
}

/** A new executor, not started yet: its container in its own sandbox, a fresh credential. */
export function newRun(containerizer: Containerizer, frameworkId: string, spec: ExecutorSpec, checkpoint = true): ExecutorRun {
  const containerId = crypto.randomUUID();
  return {
    frameworkId,
    spec,
    token: newToken(),
    containerId,
    state: 'REGISTERING',
    container: {
      name: hiddenName(frameworkId, 'executor', spec.executorId, containerId),
      sandbox: containerizer.sandboxes.executorPathOf(frameworkId, spec.executorId),
      limits: { pids: containerizer.pidsLimit },
    },
    tasks: new Map(),
    awaitingAck: new Map(),
    acknowledged: new Set(),
    timers: {},
    startedAt: new Date().toISOString(),
    checkpoint,
    nested: new Map(),
  };
}

/** An executor from its record after an agent restart; `pending`: the journal's unacknowledged updates (awaited again). */
export function recoveredRun(
  containerizer: Containerizer,
  cp: ExecutorCheckpoint,
  pending: Array<{ frameworkId: string; taskId: string; updateUuid: string }>,
  terminal: (s: TaskState) => boolean,
): ExecutorRun {
  const run: ExecutorRun = { ...newRun(containerizer, cp.frameworkId, cp.spec, cp.checkpoint ?? true), recovered: true };
  const { token, containerId, startTicks, user, uid, gid, startedAt } = cp;
  Object.assign(run, { token, containerId, startTicks, user, uid, gid, startedAt });
  run.container = { ...run.container, sandbox: cp.sandbox, pid: cp.pid, cgroup: cp.cgroup };
  for (const t of cp.tasks) run.tasks.set(t.spec.taskId, { ...t });
  run.container.limits = executorLimits(run, containerizer.pidsLimit, terminal);
  for (const p of pending) if (p.frameworkId === run.frameworkId && run.tasks.has(p.taskId)) run.awaitingAck.set(p.updateUuid, p.taskId);
  return run;
}

/** The executors' tasks for (re-)registration: unfinished, or ended with their end not acknowledged yet. */
export function liveTasks(runs: Iterable<ExecutorRun>, unacknowledged: ReadonlySet<string>, terminal: (s: TaskState) => boolean) {
  return [...runs].flatMap((run) =>
    [...run.tasks.values()]
      .filter((t) => !terminal(t.state) || unacknowledged.has(`${run.frameworkId}/${t.spec.taskId}`))
      .map((t) => ({ frameworkId: run.frameworkId, taskId: t.spec.taskId, state: t.state, resources: t.spec.resources })),
  );
}

/**
 * Notes the control plane's acknowledgement of one of `run`'s updates: the task it was for (else
 * undefined). An ended task whose updates are all acknowledged is forgotten (its executor may
 * run for long); only the last acknowledged uuids are remembered (an executor sends again only
 * what it had not heard of).
 */
export function noteAcknowledged(run: ExecutorRun, updateUuid: string, terminal: (s: TaskState) => boolean): string | undefined {
  const taskId = run.awaitingAck.get(updateUuid);
  if (taskId === undefined) return undefined;
  run.awaitingAck.delete(updateUuid);
  run.acknowledged.add(updateUuid);
  if (run.acknowledged.size > 1024) {
    const [oldest] = run.acknowledged;
    run.acknowledged.delete(oldest);
  }
  const task = run.tasks.get(taskId);
  if (task && terminal(task.state) && ![...run.awaitingAck.values()].includes(taskId)) run.tasks.delete(taskId);
  return taskId;
}

/** The control plane's news of an executor's end. */
export function exitedOf(
  run: ExecutorRun,
  code: number | null,
  signal: NodeJS.Signals | null,
  end: { reason: string; message: string },
): ExecutorExited {
  return {
    frameworkId: run.frameworkId,
    executorId: run.spec.executorId,
    ...(code !== null ? { exitCode: code } : {}),
    ...(signal ? { signal } : {}),
    reason: end.reason,
    message: end.message,
  };
}
