/**
 * What the handlers send a framework, as Mesos's Events (the other way of mesos-codec.ts), with
 * no I/O; and the RecordIO framing of the event stream.
 */
import { type InverseOffer, mesosTaskState, type Offer, type StatusUpdate } from '@arbiter/contracts';
import { mesosCheckStatus } from './mesos-checks-codec';
import { MESOS_STAR, type RoleMap, toMesosResource, uuidToMesosBytes } from './mesos-codec';

/** Who the events are for: how its roles are named and what it is capable of. */
export interface EventContext extends RoleMap {
  frameworkId: string;
  multiRole: boolean;
  /** Whether the framework subscribed as `*` (its offers say `*` back). */
  star: boolean;
}

const toMesosRole = (role: string, ctx: EventContext) => (ctx.star && role === ctx.defaultRole ? MESOS_STAR : role);

export function mesosOffer(
  o: Offer,
  ctx: EventContext,
  agent: {
    ip?: string;
    port?: number;
    executorIds?: string[];
    volume?: (role: string, id: string) => { containerPath: string; mode: string; principal: string } | undefined;
  },
): Record<string, unknown> {
  const allocationRole = ctx.multiRole ? toMesosRole(o.role, ctx) : undefined;
  return {
    id: { value: o.id },
    framework_id: { value: o.frameworkId },
    agent_id: { value: o.agentId },
    hostname: o.hostname,
    url: {
      scheme: 'http',
      address: { hostname: o.hostname, ip: agent.ip ?? o.hostname, port: agent.port ?? 0 },
      path: '/agent',
    },
    resources: o.resources.map((r) =>
      toMesosResource(r, allocationRole, r.volume && r.reservation ? agent.volume?.(r.reservation, r.volume) : undefined),
    ),
    attributes: Object.entries(o.attributes).map(([name, v]) =>
      typeof v === 'number' ? { name, type: 'SCALAR', scalar: { value: v } } : { name, type: 'TEXT', text: { value: v } },
    ),
    // The framework's executors running on the agent.
    executor_ids: (agent.executorIds ?? []).map((value) => ({ value })),
    ...(allocationRole !== undefined ? { allocation_info: { role: allocationRole } } : {}),
  };
}

const TIME = (iso: string) => Date.parse(iso) / 1000;

/** Mesos's TaskStatus.Reason values (mesos-v1.proto); a status carries only these. */
const MESOS_REASONS = new Set([
  'REASON_COMMAND_EXECUTOR_FAILED',
  'REASON_CONTAINER_LAUNCH_FAILED',
  'REASON_CONTAINER_LIMITATION',
  'REASON_CONTAINER_LIMITATION_DISK',
  'REASON_CONTAINER_LIMITATION_MEMORY',
  'REASON_CONTAINER_PREEMPTED',
  'REASON_CONTAINER_UPDATE_FAILED',
  'REASON_MAX_COMPLETION_TIME_REACHED',
  'REASON_EXECUTOR_REGISTRATION_TIMEOUT',
  'REASON_EXECUTOR_REREGISTRATION_TIMEOUT',
  'REASON_EXECUTOR_TERMINATED',
  'REASON_EXECUTOR_UNREGISTERED',
  'REASON_FRAMEWORK_REMOVED',
  'REASON_GC_ERROR',
  'REASON_INVALID_FRAMEWORKID',
  'REASON_INVALID_OFFERS',
  'REASON_IO_SWITCHBOARD_EXITED',
  'REASON_MASTER_DISCONNECTED',
  'REASON_RECONCILIATION',
  'REASON_RESOURCES_UNKNOWN',
  'REASON_AGENT_DISCONNECTED',
  'REASON_AGENT_DRAINING',
  'REASON_AGENT_REMOVED',
  'REASON_AGENT_REMOVED_BY_OPERATOR',
  'REASON_AGENT_REREGISTERED',
  'REASON_AGENT_RESTARTED',
  'REASON_AGENT_UNKNOWN',
  'REASON_TASK_KILLED_DURING_LAUNCH',
  'REASON_TASK_CHECK_STATUS_UPDATED',
  'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED',
  'REASON_TASK_GROUP_INVALID',
  'REASON_TASK_GROUP_UNAUTHORIZED',
  'REASON_TASK_INVALID',
  'REASON_TASK_UNAUTHORIZED',
  'REASON_TASK_UNKNOWN',
]);
/** Arbiter's own reasons with a Mesos equivalent; the others (REASON_COMMAND_EXITED, REASON_TASK_KILLED) have none and are left out. */
const REASON_FOR_MESOS: Record<string, string> = { REASON_TASK_USER_INVALID: 'REASON_TASK_INVALID' };

/** The Mesos reason of an Arbiter reason, if Mesos has one (its message says the rest). */
export function mesosReason(reason: string | undefined): string | undefined {
  if (reason === undefined) return undefined;
  const mapped = REASON_FOR_MESOS[reason] ?? reason;
  return MESOS_REASONS.has(mapped) ? mapped : undefined;
}

/**
 * A status update as Mesos's TaskStatus. Answers to reconciliation carry no uuid: as in Mesos,
 * they are not acknowledged.
 */
export function mesosStatus(s: StatusUpdate): Record<string, unknown> {
  const reconciliation = s.reason === 'REASON_RECONCILIATION';
  const reason = mesosReason(s.reason);
  return {
    task_id: { value: s.taskId },
    state: mesosTaskState(s.state),
    ...(s.message ? { message: s.message } : {}),
    source: s.source,
    ...(reason ? { reason } : {}),
    agent_id: { value: s.agentId },
    timestamp: TIME(s.timestamp),
    ...(reconciliation ? {} : { uuid: uuidToMesosBytes(s.updateUuid) }),
    ...(s.data ? { data: s.data } : {}),
    ...(s.healthy !== undefined ? { healthy: s.healthy } : {}),
    ...(s.checkStatus ? { check_status: mesosCheckStatus(s.checkStatus) } : {}),
    ...(s.labels ? { labels: { labels: s.labels } } : {}),
  };
}

export function mesosInverseOffer(io: InverseOffer): Record<string, unknown> {
  const startNs = Date.parse(io.unavailability.start) * 1e6;
  return {
    id: { value: io.id },
    framework_id: { value: io.frameworkId },
    agent_id: { value: io.agentId },
    url: { scheme: 'http', address: { hostname: io.hostname, ip: io.hostname, port: 0 }, path: '/agent' },
    unavailability: {
      start: { nanoseconds: startNs },
      ...(io.unavailability.durationSeconds !== null ? { duration: { nanoseconds: io.unavailability.durationSeconds * 1e9 } } : {}),
    },
  };
}

/** One RecordIO record: the byte length of the record, a newline, the record. */
export function recordIo(record: Buffer | string): Buffer {
  const body = typeof record === 'string' ? Buffer.from(record) : record;
  return Buffer.concat([Buffer.from(`${body.length}\n`), body]);
}
