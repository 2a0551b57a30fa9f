/**
 * The executor side of Mesos's v1 executor API: what an executor is told in its environment,
 * the events it is sent (SUBSCRIBED, LAUNCH, LAUNCH_GROUP, KILL, ACKNOWLEDGED, MESSAGE, SHUTDOWN, HEARTBEAT),
 * and its calls once authenticated (SUBSCRIBE, UPDATE, MESSAGE). The HTTP side (framing,
 * credentials, status codes) is api/executor-api.ts.
 */
import { type CheckStatus, isTerminalTaskState, TaskState } from '@arbiter/contracts';
import { mesosAgentInfo, mesosExecutorInfo, mesosFrameworkInfo, mesosTaskInfo } from './api/mesos-info';
import { uuidBytes, uuidOf, type WireCall, WireError, type WireStatus } from './api/wire';
import type { EventStream, ExecutorHooks, ExecutorRun, ExecutorTask } from './executor-run';
import type { Executors } from './executors';

/** Mesos's way of writing a duration in the environment (e.g. `60secs`, `15mins`, `500ms`). */
export function mesosDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}mins`;
  if (ms % 1000 === 0) return `${ms / 1000}secs`;
  return `${ms}ms`;
}

/**
 * A duration as an operator writes it (ARBITER_EXECUTOR_REGISTRATION_TIMEOUT, the agent's
 * flags): seconds, or a number with ms, s, m, h, d, w, or Mesos's secs/mins/hrs/days/weeks; undefined when it is none.
 */
export function durationMs(text: string | undefined): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|secs?|m|mins?|h|hrs?|hours?|d|days?|w|weeks?)?\s*$/.exec(text ?? '');
  if (!m) return undefined;
  const [, amount, unit = 's'] = m;
  const n = Number(amount);
  const scale = unit === 'ms' ? 1 : ({ s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const)[unit[0] as 's'];
  return Math.round(n * scale);
}

const id = (value: string) => ({ value });
const withoutUndefined = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export class ExecutorProtocol {
  constructor(
    private readonly executors: Executors,
    private readonly hooks: ExecutorHooks,
    private readonly heartbeatMs: number,
  ) {}

  /** Mesos's executor environment (the launcher adds MESOS_SANDBOX). */
  environment(run: ExecutorRun): Record<string, string> {
    const { endpoint, agentId } = this.hooks.agent();
    const opts = this.executors.options;
    return {
      MESOS_FRAMEWORK_ID: run.frameworkId,
      MESOS_EXECUTOR_ID: run.spec.executorId,
      MESOS_DIRECTORY: run.container.sandbox,
      MESOS_AGENT_ENDPOINT: endpoint ? `${endpoint.host}:${endpoint.port}` : '',
      MESOS_CHECKPOINT: run.checkpoint ? '1' : '0',
      MESOS_RECOVERY_TIMEOUT: mesosDuration(opts.recoveryTimeoutMs ?? 15 * 60_000),
      MESOS_SUBSCRIPTION_BACKOFF_MAX: mesosDuration(opts.subscriptionBackoffMaxMs ?? 2_000),
      MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD: mesosDuration((run.spec.shutdownGracePeriodSeconds ?? 5) * 1000),
      MESOS_EXECUTOR_AUTHENTICATION_TOKEN: run.token,
      ...(agentId ? { MESOS_AGENT_ID: agentId, MESOS_SLAVE_ID: agentId } : {}),
    };
  }

  // ------------------------------------------------------------------ events

  /** Tasks to the executor: LAUNCH for each on its own, one LAUNCH_GROUP (Mesos's TaskGroupInfo) for each group. */
  deliver(run: ExecutorRun, tasks: ExecutorTask[]): void {
    const info = (t: ExecutorTask) => mesosTaskInfo(run.frameworkId, this.agentId(), t.spec);
    const groups = new Map<string, ExecutorTask[]>();
    for (const task of tasks) {
      task.delivered = true;
      if (task.group) groups.set(task.group, [...(groups.get(task.group) ?? []), task]);
      else run.stream?.send({ type: 'LAUNCH', launch: { task: info(task) } });
    }
    for (const group of groups.values())
      run.stream?.send({ type: 'LAUNCH_GROUP', launch_group: { task_group: { tasks: group.map(info) } } });
  }

  kill(run: ExecutorRun, taskId: string, gracePeriodSeconds?: number): void {
    const grace = gracePeriodSeconds ?? run.tasks.get(taskId)?.spec.killPolicy?.gracePeriodSeconds;
    const policy = grace !== undefined ? { kill_policy: { grace_period: { nanoseconds: Math.round(grace * 1e9) } } } : {};
    run.stream?.send({ type: 'KILL', kill: { task_id: id(taskId), ...policy } });
  }

  shutdown(run: ExecutorRun): void {
    run.stream?.send({ type: 'SHUTDOWN' });
  }

  frameworkMessage(run: ExecutorRun, data: string): void {
    run.stream?.send({ type: 'MESSAGE', message: { data } });
  }

  acknowledged(run: ExecutorRun, taskId: string, updateUuid: string): void {
    run.stream?.send({ type: 'ACKNOWLEDGED', acknowledged: { task_id: id(taskId), uuid: uuidBytes(updateUuid) } });
  }

  // ------------------------------------------------------------------ calls

  /**
   * SUBSCRIBE: the stream opens with SUBSCRIBED, then the tasks queued for the executor; updates
   * it lists as unacknowledged are acknowledged at once when they were, awaited when journaled,
   * and taken as new otherwise (the control plane de-duplicates by uuid). Its first SUBSCRIBE
   * after an agent restart also settles the tasks it was handed and never reported on, as
   * Mesos's agent does: those it does not list as held never reached it (TASK_LOST,
   * REASON_AGENT_RESTARTED); tasks it lists that the agent does not know are ignored.
   */
  subscribe(run: ExecutorRun, call: WireCall, stream: EventStream): void {
    if (run.state === 'TERMINATING' || run.state === 'TERMINATED') throw new WireError(403, 'Executor is terminating');
    const updates = call.subscribe?.unacknowledged_updates ?? [];
    for (const u of updates) this.checkStatus(run, call, u.status);
    const recovered = run.recovered;
    run.recovered = false;
    this.executors.subscribed(run, stream);
    if (recovered) {
      const held = new Set((call.subscribe?.unacknowledged_tasks ?? []).map((t) => t.task_id.value));
      for (const t of [...run.tasks.values()])
        if (t.delivered && t.state === 'STAGING' && !held.has(t.spec.taskId))
          this.executors.endTask(run, t.spec.taskId, 'LOST', 'REASON_AGENT_RESTARTED', 'Task launched during agent restart');
    }
    const agent = this.hooks.agent();
    stream.send({
      type: 'SUBSCRIBED',
      subscribed: {
        executor_info: mesosExecutorInfo(run.frameworkId, run.spec),
        framework_info: mesosFrameworkInfo(run.frameworkId, run.user ?? 'nobody', run.checkpoint),
        agent_info: mesosAgentInfo(agent.agentId, agent.hostname, agent.endpoint?.port ?? 0, agent.resources),
        container_id: id(run.containerId),
      },
    });
    this.deliver(
      run,
      [...run.tasks.values()].filter((t) => !t.delivered && t.state === 'STAGING'),
    );
    for (const u of updates) this.take(run, u.status);
    this.executors.tryCheckpoint(run);
    const beat = setInterval(() => (stream.closed ? clearInterval(beat) : stream.send({ type: 'HEARTBEAT' })), this.heartbeatMs);
    beat.unref();
    run.timers.heartbeat = beat;
  }

  /** UPDATE: one of its tasks' status, journaled (ACKNOWLEDGED follows the control plane's acknowledgement). */
  update(run: ExecutorRun, call: WireCall): void {
    if (!call.update) throw new WireError(400, "Failed to validate Executor::Call: Expecting 'update' to be present");
    this.checkStatus(run, call, call.update.status);
    this.take(run, call.update.status);
  }

  /** MESSAGE: to its scheduler. */
  message(run: ExecutorRun, call: WireCall): void {
    if (!call.message) throw new WireError(400, "Failed to validate Executor::Call: Expecting 'message' to be present");
    this.hooks.message({ frameworkId: run.frameworkId, executorId: run.spec.executorId, data: call.message.data });
  }

  /** Mesos's checks of an executor's TaskStatus, and ours: only its own tasks. */
  private checkStatus(run: ExecutorRun, call: WireCall, status: WireStatus): void {
    const bad = (message: string) => new WireError(400, `Failed to validate Executor::Call: ${message}`);
    if (status.uuid === undefined) throw bad("Expecting 'uuid' to be present");
    if (!uuidOf(status.uuid)) throw bad("'uuid' is not a UUID (16 bytes)");
    if (status.executor_id && status.executor_id.value !== call.executor_id.value)
      throw bad(`ExecutorID in Call: ${call.executor_id.value} does not match ExecutorID in TaskStatus: ${status.executor_id.value}`);
    if (status.source !== 'SOURCE_EXECUTOR')
      throw bad(
        `Received Call from executor ${call.executor_id.value} of framework ${call.framework_id.value} with invalid source, expecting 'SOURCE_EXECUTOR'`,
      );
    if (status.state === 'TASK_STAGING')
      throw bad(
        `Received TASK_STAGING from executor ${call.executor_id.value} of framework ${call.framework_id.value} which is not allowed`,
      );
    if (!status.state.startsWith('TASK_') || !TaskState.safeParse(status.state.slice(5)).success)
      throw bad(`'${status.state}' is not a task state an executor may report`);
    if (!run.tasks.has(status.task_id.value))
      throw new WireError(
        403,
        `task '${status.task_id.value}' is not a task of executor '${run.spec.executorId}' of framework '${run.frameworkId}'`,
      );
  }

  private take(run: ExecutorRun, status: WireStatus): void {
    const uuid = uuidOf(status.uuid ?? '') ?? '';
    const taskId = status.task_id.value;
    if (run.awaitingAck.has(uuid)) return;
    // Taken before, or after the task's end (Mesos's status update stream takes nothing after a
    // terminal update): acknowledged, so the executor stops sending it, and nothing changes.
    if (run.acknowledged.has(uuid) || isTerminalTaskState(run.tasks.get(taskId)?.state ?? 'STAGING')) {
      this.acknowledged(run, taskId, uuid);
      return;
    }
    const { reason, message, data, healthy, labels } = status;
    const checkStatus = checkStatusOf(status.check_status);
    this.executors.recordUpdate(run, taskId, uuid, {
      state: TaskState.parse(status.state.slice(5)),
      ...withoutUndefined({ reason, message, data, healthy, checkStatus }),
      ...(labels?.labels?.length ? { labels: labels.labels } : {}),
    });
  }

  private agentId(): string {
    return this.hooks.agent().agentId ?? 'unregistered';
  }
}

/** An executor's CheckStatusInfo as Arbiter's CheckStatus (none for a check of no known type). */
function checkStatusOf(c: WireStatus['check_status']): CheckStatus | undefined {
  if (c?.type === 'COMMAND') return { type: 'COMMAND', ...withoutUndefined({ exitCode: c.command?.exit_code }) };
  if (c?.type === 'HTTP') return { type: 'HTTP', ...withoutUndefined({ statusCode: c.http?.status_code }) };
  if (c?.type === 'TCP') return { type: 'TCP', ...withoutUndefined({ succeeded: c.tcp?.succeeded }) };
  return undefined;
}
