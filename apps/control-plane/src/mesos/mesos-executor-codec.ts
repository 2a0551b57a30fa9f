/**
 * Mesos's executors in Arbiter's terms, with no I/O: an ExecutorInfo (of a TaskInfo or a
 * LAUNCH_GROUP) as an ExecutorSpec, the SHUTDOWN and MESSAGE calls as the SDK's calls, and the
 * executors' events (MESSAGE, FAILURE) as Mesos's. What Arbiter cannot honour (discovery of
 * the executor, and the container fields mesos-container-codec.ts refuses) is refused by name.
 */
import { constants } from 'node:os';
import {
  ExecutorCall,
  type ExecutorFailure,
  type ContainerSpec,
  type ExecutorSpec,
  type MesosContainerInfo,
  type MesosCall,
  type MesosCommandInfo,
  type MesosExecutorInfo,
  type MesosResource,
  PROTOCOL_ERRORS,
  type ResourceEntry,
  SchedulerMessage,
} from '@arbiter/contracts';
import { ProtocolError } from '../kernel/protocol-error';
import { toMesosContainer } from './mesos-container-codec';

/** What the executor codec borrows from the task codec (mesos-codec.ts), so that commands and resources read alike. */
export interface TaskCodecParts {
  command(c: MesosCommandInfo | undefined, where: string): Pick<ExecutorSpec, 'command' | 'env' | 'user' | 'uris'>;
  resources(list: MesosResource[] | undefined, where: string): ResourceEntry[];
  container(c: MesosContainerInfo, where: string): ContainerSpec;
}

const unsupported = (what: string, why: string) => new ProtocolError(PROTOCOL_ERRORS.UNSUPPORTED, `${what} is not supported: ${why}`);

/** An ExecutorInfo as Arbiter's ExecutorSpec (checked by the task's schema with the rest of its accept). */
export function executorOf(e: MesosExecutorInfo, where: string, parts: TaskCodecParts): ExecutorSpec {
  const at = `${where} executor '${e.executor_id.value}'`;
  if (e.discovery !== undefined) throw unsupported(`${at}: ExecutorInfo.discovery`, 'Arbiter keeps discovery on tasks, not executors');
  const type = e.type === 'DEFAULT' ? 'DEFAULT' : 'CUSTOM';
  const ns = e.shutdown_grace_period?.nanoseconds;
  return {
    executorId: e.executor_id.value,
    type,
    ...(e.name !== undefined ? { name: e.name } : {}),
    // A DEFAULT executor's command is the agent's own; Mesos ignores one given.
    ...(type === 'CUSTOM' ? parts.command(e.command, at) : {}),
    resources: parts.resources(e.resources, `${at} resources`),
    ...(e.container !== undefined ? { container: parts.container(e.container, at) } : {}),
    ...(e.data !== undefined ? { data: e.data } : {}),
    ...(e.labels?.labels?.length ? { labels: e.labels.labels } : {}),
    ...(ns !== undefined ? { shutdownGracePeriodSeconds: ns / 1e9 } : {}),
  };
}

/** SHUTDOWN as the SDK's shutdownExecutor call. */
export function shutdownOf(call: MesosCall): ExecutorCall {
  const s = call.shutdown;
  if (!s)
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, "SHUTDOWN: the call needs a 'shutdown' field with executor_id and agent_id");
  return parsed(ExecutorCall.safeParse({ agentId: s.agent_id.value, executorId: s.executor_id.value }), 'SHUTDOWN');
}

/** MESSAGE as the SDK's message call (data: base64, as Mesos's JSON has bytes). */
export function messageOf(call: MesosCall): SchedulerMessage {
  const m = call.message;
  if (!m)
    throw new ProtocolError(
      PROTOCOL_ERRORS.INVALID_MESSAGE,
      "MESSAGE: the call needs a 'message' field with agent_id, executor_id and data",
    );
  return parsed(SchedulerMessage.safeParse({ agentId: m.agent_id.value, executorId: m.executor_id.value, data: m.data }), 'MESSAGE');
}

function parsed<T>(
  r: { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } },
  call: string,
): T {
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(call)', message: i.message }));
  throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${call}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
    issues,
  });
}

/** A running executor as Mesos's /master/state lists it under its framework (`resources`: Mesos's resource map). */
export function mesosStateExecutor(
  e: { agentId: string; frameworkId: string; spec: ExecutorSpec },
  resources: Record<string, number | string>,
): Record<string, unknown> {
  const c = e.spec.command;
  const command =
    c === undefined
      ? undefined
      : 'shell' in c
        ? { shell: true, value: c.shell }
        : { shell: false, value: c.value, arguments: [c.value, ...(c.arguments ?? [])] };
  return {
    executor_id: e.spec.executorId,
    name: e.spec.name ?? '',
    framework_id: e.frameworkId,
    type: e.spec.type,
    ...(command ? { command } : {}),
    resources,
    ...(e.spec.container ? { container: toMesosContainer(e.spec.container) } : {}),
    ...(e.spec.labels?.length ? { labels: e.spec.labels } : {}),
    slave_id: e.agentId,
    agent_id: e.agentId,
  };
}

/** An executor's message as Mesos's MESSAGE event. */
export function mesosMessage(m: SchedulerMessage): Record<string, unknown> {
  return { agent_id: { value: m.agentId }, executor_id: { value: m.executorId }, data: m.data };
}

/**
 * An executor's end as Mesos's FAILURE event: its status is the wait status, as Mesos reports it
 * (the exit code in the high byte, or the number of the signal that ended it).
 */
export function mesosExecutorFailure(f: ExecutorFailure): Record<string, unknown> {
  const signal = f.signal !== undefined ? (constants.signals as Record<string, number | undefined>)[f.signal] : undefined;
  const status = signal ?? (f.exitCode !== undefined ? (f.exitCode & 0xff) << 8 : undefined);
  return { agent_id: { value: f.agentId }, executor_id: { value: f.executorId }, ...(status !== undefined ? { status } : {}) };
}
