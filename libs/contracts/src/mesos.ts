/**
 * Mesos's v1 scheduler HTTP API (`POST /api/v1/scheduler`), in Mesos's JSON mapping of its
 * protobufs (field names as in mesos/v1/scheduler/scheduler.proto and mesos/v1/mesos.proto,
 * enums as their names, bytes as base64, int64 as a number or a decimal string). The schemas
 * are strict: a field Arbiter does not know is an error naming it, never dropped. A field that
 * Mesos defines but Arbiter cannot honour is accepted here and refused with its own message by
 * the control plane (docs/mesos-compat.md lists every call, event and field).
 *
 * Decoders give `null` the meaning of an absent field first (`withoutNulls`), as clients built
 * from protobuf objects send unset fields as null.
 */
import { z } from 'zod';
import { MesosCheckInfo, MesosCommandInfo, MesosHealthCheck } from './mesos-command';
import { MesosContainerInfo } from './mesos-container';
import { MesosDiskInfo } from './mesos-disk';
import type { TaskStateName } from './task-states';

/** Largest number of items in one repeated field (offers, operations, tasks, resources). */
const MANY = 10_000;

const text = (max = 4096) => z.string().max(max);
/** An id message: `{ "value": "..." }`. */
const IdValue = z.object({ value: z.string().min(1).max(255) }).strict();
const Int64 = z.union([z.number().int(), z.string().regex(/^-?\d{1,19}$/)]).transform((v) => Number(v));
const Labels = z
  .object({
    labels: z
      .array(z.object({ key: text(255), value: text().optional() }).strict())
      .max(1000)
      .optional(),
  })
  .strict();

const Reservation = z
  .object({
    type: z.enum(['STATIC', 'DYNAMIC']).optional(),
    role: text(255).optional(),
    principal: text(255).optional(),
    labels: Labels.optional(),
  })
  .strict();

const MesosValueType = z.enum(['SCALAR', 'RANGES', 'SET', 'TEXT']);

export const MesosResource = z
  .object({
    provider_id: z.unknown().optional(),
    name: z.string().min(1).max(128),
    type: MesosValueType,
    scalar: z.object({ value: z.number() }).strict().optional(),
    ranges: z
      .object({
        range: z
          .array(z.object({ begin: Int64, end: Int64 }).strict())
          .max(MANY)
          .optional(),
      })
      .strict()
      .optional(),
    set: z
      .object({ item: z.array(text(256)).max(MANY).optional() })
      .strict()
      .optional(),
    role: text(255).optional(),
    allocation_info: z
      .object({ role: text(255).optional() })
      .strict()
      .optional(),
    reservation: Reservation.optional(),
    reservations: z.array(Reservation).max(100).optional(),
    disk: MesosDiskInfo.optional(),
    revocable: z.object({}).strict().optional(),
    shared: z.object({}).strict().optional(),
  })
  .strict();
export type MesosResource = z.infer<typeof MesosResource>;

/** Mesos's ExecutorInfo: the framework's executor that runs its tasks (discovery refused by name). */
export const MesosExecutorInfo = z
  .object({
    type: z.enum(['UNKNOWN', 'DEFAULT', 'CUSTOM']).optional(),
    executor_id: IdValue,
    framework_id: IdValue.optional(),
    command: MesosCommandInfo.optional(),
    container: MesosContainerInfo.optional(),
    resources: z.array(MesosResource).max(1000).optional(),
    name: text(255).optional(),
    source: text(255).optional(),
    data: z.string().max(1_398_104).optional(),
    discovery: z.unknown().optional(),
    shutdown_grace_period: z.object({ nanoseconds: Int64 }).strict().optional(),
    labels: Labels.optional(),
  })
  .strict();
export type MesosExecutorInfo = z.infer<typeof MesosExecutorInfo>;

/** Fields of TaskInfo Arbiter cannot honour: refused by name when given. */
export const MESOS_TASK_UNSUPPORTED = ['limits'] as const;

/** A duration (Mesos's DurationInfo). */
const Duration = z.object({ nanoseconds: Int64 }).strict();

const Visibility = z.enum(['FRAMEWORK', 'CLUSTER', 'EXTERNAL']);

/** Mesos's DiscoveryInfo: how service discovery finds a task (stored and shown, not acted on). */
export const MesosDiscoveryInfo = z
  .object({
    visibility: Visibility,
    name: text(255).optional(),
    environment: text(255).optional(),
    location: text(255).optional(),
    version: text(255).optional(),
    ports: z
      .object({
        ports: z
          .array(
            z
              .object({
                number: z.number().int(),
                name: text(255).optional(),
                protocol: text(255).optional(),
                visibility: Visibility.optional(),
                labels: Labels.optional(),
              })
              .strict(),
          )
          .max(1000)
          .optional(),
      })
      .strict()
      .optional(),
    labels: Labels.optional(),
  })
  .strict();
export type MesosDiscoveryInfo = z.infer<typeof MesosDiscoveryInfo>;
export type MesosLabels = z.infer<typeof Labels>;

export const MesosTaskInfo = z
  .object({
    name: z.string().min(1).max(255),
    task_id: IdValue,
    agent_id: IdValue,
    resources: z.array(MesosResource).max(1000).optional(),
    command: MesosCommandInfo.optional(),
    executor: MesosExecutorInfo.optional(),
    container: MesosContainerInfo.optional(),
    kill_policy: z.object({ grace_period: Duration.optional() }).strict().optional(),
    /** Bytes for the executor, base64. */
    data: z.string().max(1_398_104).optional(),
    labels: Labels.optional(),
    discovery: MesosDiscoveryInfo.optional(),
    max_completion_time: Duration.optional(),
    health_check: MesosHealthCheck.optional(),
    check: MesosCheckInfo.optional(),
    ...Object.fromEntries(MESOS_TASK_UNSUPPORTED.map((f) => [f, z.unknown().optional()])),
  })
  .strict();
export type MesosTaskInfo = z.infer<typeof MesosTaskInfo>;

const MESOS_OPERATION_TYPES = [
  'UNKNOWN',
  'LAUNCH',
  'LAUNCH_GROUP',
  'RESERVE',
  'UNRESERVE',
  'CREATE',
  'DESTROY',
  'GROW_VOLUME',
  'SHRINK_VOLUME',
  'CREATE_DISK',
  'DESTROY_DISK',
] as const;

export const MesosOperation = z
  .object({
    type: z.enum(MESOS_OPERATION_TYPES),
    id: IdValue.optional(),
    launch: z
      .object({ task_infos: z.array(MesosTaskInfo).max(MANY).optional() })
      .strict()
      .optional(),
    launch_group: z
      .object({
        executor: MesosExecutorInfo.optional(),
        task_group: z
          .object({ tasks: z.array(MesosTaskInfo).max(MANY).optional() })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    reserve: z
      .object({ source: z.array(MesosResource).max(1000).optional(), resources: z.array(MesosResource).max(1000).optional() })
      .strict()
      .optional(),
    unreserve: z
      .object({ resources: z.array(MesosResource).max(1000).optional() })
      .strict()
      .optional(),
    create: z
      .object({ volumes: z.array(MesosResource).max(100).optional() })
      .strict()
      .optional(),
    destroy: z
      .object({ volumes: z.array(MesosResource).max(100).optional() })
      .strict()
      .optional(),
    grow_volume: z.unknown().optional(),
    shrink_volume: z.unknown().optional(),
    create_disk: z.unknown().optional(),
    destroy_disk: z.unknown().optional(),
  })
  .strict();
export type MesosOperation = z.infer<typeof MesosOperation>;

const Filters = z.object({ refuse_seconds: z.number().min(0).optional() }).strict();

const ResourceQuantities = z
  .object({
    quantities: z.record(z.string().max(128), z.object({ value: z.number().nonnegative() }).strict()).optional(),
  })
  .strict();

export const MesosFrameworkInfo = z
  .object({
    user: text(255),
    name: z.string().min(1).max(255),
    id: IdValue.optional(),
    failover_timeout: z.number().min(0).optional(),
    checkpoint: z.boolean().optional(),
    role: text(255).optional(),
    roles: z.array(text(255)).max(100).optional(),
    hostname: text(253).optional(),
    principal: text(255).optional(),
    webui_url: text(2048).optional(),
    capabilities: z
      .array(z.object({ type: z.string().max(64) }).strict())
      .max(50)
      .optional(),
    labels: Labels.optional(),
    offer_filters: z
      .record(
        text(255),
        z
          .object({
            min_allocatable_resources: z
              .object({ quantities: z.array(ResourceQuantities).max(20).optional() })
              .strict()
              .optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();
export type MesosFrameworkInfo = z.infer<typeof MesosFrameworkInfo>;

const MESOS_CALL_TYPES = [
  'UNKNOWN',
  'SUBSCRIBE',
  'TEARDOWN',
  'ACCEPT',
  'DECLINE',
  'ACCEPT_INVERSE_OFFERS',
  'DECLINE_INVERSE_OFFERS',
  'REVIVE',
  'KILL',
  'SHUTDOWN',
  'ACKNOWLEDGE',
  'ACKNOWLEDGE_OPERATION_STATUS',
  'RECONCILE',
  'RECONCILE_OPERATIONS',
  'MESSAGE',
  'REQUEST',
  'SUPPRESS',
  'UPDATE_FRAMEWORK',
] as const;

/** ACCEPT_INVERSE_OFFERS and DECLINE_INVERSE_OFFERS: the inverse offers answered. */
const InverseOfferIds = z.object({ inverse_offer_ids: z.array(IdValue).max(1000).optional(), filters: Filters.optional() }).strict();

const Roles = z.object({ roles: z.array(text(255)).max(100).optional() }).strict();

/** SUBSCRIBE and UPDATE_FRAMEWORK: the framework's info, the roles it wants no offers for. */
const FrameworkInfoCall = z
  .object({
    framework_info: MesosFrameworkInfo,
    suppressed_roles: z.array(text(255)).max(100).optional(),
    offer_constraints: z.unknown().optional(),
  })
  .strict();

export const MesosCall = z
  .object({
    framework_id: IdValue.optional(),
    type: z.enum(MESOS_CALL_TYPES),
    subscribe: FrameworkInfoCall.optional(),
    accept: z
      .object({
        offer_ids: z.array(IdValue).max(1000).optional(),
        operations: z.array(MesosOperation).max(1000).optional(),
        filters: Filters.optional(),
      })
      .strict()
      .optional(),
    decline: z
      .object({ offer_ids: z.array(IdValue).max(1000).optional(), filters: Filters.optional() })
      .strict()
      .optional(),
    accept_inverse_offers: InverseOfferIds.optional(),
    decline_inverse_offers: InverseOfferIds.optional(),
    revive: Roles.optional(),
    suppress: Roles.optional(),
    kill: z
      .object({
        task_id: IdValue,
        agent_id: IdValue.optional(),
        kill_policy: z
          .object({ grace_period: z.object({ nanoseconds: Int64 }).strict().optional() })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    shutdown: z.object({ executor_id: IdValue, agent_id: IdValue }).strict().optional(),
    acknowledge: z
      .object({ agent_id: IdValue.optional(), task_id: IdValue, uuid: z.string().max(64) })
      .strict()
      .optional(),
    acknowledge_operation_status: z
      .object({ agent_id: IdValue.optional(), resource_provider_id: IdValue.optional(), uuid: z.string().max(64), operation_id: IdValue })
      .strict()
      .optional(),
    reconcile: z
      .object({
        tasks: z
          .array(z.object({ task_id: IdValue, agent_id: IdValue.optional() }).strict())
          .max(100_000)
          .optional(),
      })
      .strict()
      .optional(),
    reconcile_operations: z
      .object({
        operations: z
          .array(z.object({ operation_id: IdValue, agent_id: IdValue.optional(), resource_provider_id: IdValue.optional() }).strict())
          .max(100_000)
          .optional(),
      })
      .strict()
      .optional(),
    message: z
      .object({ agent_id: IdValue, executor_id: IdValue, data: z.string().max(1_000_000) })
      .strict()
      .optional(),
    request: z
      .object({ requests: z.array(z.unknown()).max(1000).optional() })
      .strict()
      .optional(),
    update_framework: FrameworkInfoCall.optional(),
  })
  .strict();
export type MesosCall = z.infer<typeof MesosCall>;

/** What the Mesos events Arbiter sends hold (a subset of Mesos's Event; see docs/mesos-compat.md). */
export const MESOS_EVENT_TYPES = [
  'SUBSCRIBED',
  'OFFERS',
  'INVERSE_OFFERS',
  'RESCIND',
  'RESCIND_INVERSE_OFFER',
  'UPDATE',
  'UPDATE_OPERATION_STATUS',
  'MESSAGE',
  'FAILURE',
  'ERROR',
  'HEARTBEAT',
] as const;
export type MesosEventType = (typeof MESOS_EVENT_TYPES)[number];

/** A Mesos JSON value with every `null` (an unset protobuf field) removed, recursively. */
export function withoutNulls(value: unknown, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.filter((v) => v !== null).map((v) => withoutNulls(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v, depth + 1);
  return out;
}

/** Mesos's task state name of an Arbiter task state (`RUNNING` → `TASK_RUNNING`). */
export const mesosTaskState = <S extends TaskStateName>(state: S): `TASK_${S}` => `TASK_${state}`;
