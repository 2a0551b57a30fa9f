/** Shapes shared by every protocol: resources, task states, status updates, replies. */
import { z } from 'zod';
import { Check, CheckStatus, Command, ContainerSpec, FetchUri, HealthCheck } from './task-parts';
import type { ErrorCodeName } from './errors';
import { TASK_STATES } from './task-states';

/**
 * A role path, one rule wherever a role is named (subscriptions, weights, quota, reservations,
 * resources, ACL role objects): segments of letters, digits and `_ . @ + -` separated by `/`,
 * none `.` or `..` and none starting with `-` (Mesos's rules for role names, with a narrower
 * character set). Characters of the resource text form (`cpus(eng):2;mem:1`), `:`, `*`,
 * spaces and control characters are refused, so every role can be written in it.
 * @arbiter/allocator reads stored resources with a rule that accepts every role this one does.
 */
export const ROLE_PATTERN = /^(?!-)(?!\.\.?(?:\/|$))[A-Za-z0-9_.@+-]+(?:\/(?!-)(?!\.\.?(?:\/|$))[A-Za-z0-9_.@+-]+)*$/;

export const ROLE_RULE =
  "must be a role path such as 'eng' or 'eng/ml': letters, digits and _ . @ + - in segments separated by '/' (no '.' or '..' segment, none starting with '-')";

export const Role = z.string().min(1).max(255).regex(ROLE_PATTERN, ROLE_RULE);

/** A resource name, as @arbiter/allocator accepts it: `cpus`, `mem`, `gpus`, `ports`, `disk_ssd`. */
const ResourceName = z
  .string()
  .min(1)
  .max(128)
  .regex(
    /^[A-Za-z_][A-Za-z0-9_.-]*$/,
    "must be a resource name such as 'cpus' or 'disk_ssd': a letter or _, then letters, digits and _ . -",
  );

/** Largest scalar amount of one resource (as @arbiter/allocator's MAX_SCALAR). */
const MAX_RESOURCE_SCALAR = 1e12;

/** One piece of resources, as @arbiter/allocator's `ResourceEntry` (its canonical JSON form). */
export const ResourceEntry = z
  .object({
    name: ResourceName,
    value: z.number().nonnegative().max(MAX_RESOURCE_SCALAR).optional(),
    ranges: z
      .array(
        z
          .tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])
          .refine(([begin, end]) => begin <= end, 'a range is [begin, end] with begin <= end'),
      )
      .max(10_000)
      .optional(),
    set: z.array(z.string().min(1).max(256)).max(10_000).optional(),
    /** The role the piece is reserved for; absent or `*`: unreserved. */
    reservation: z.union([z.literal('*'), Role]).optional(),
    revocable: z.boolean().optional(),
    shared: z.boolean().optional(),
    volume: z.string().min(1).max(255).optional(),
    /** A disk's source other than the agent's root disk: PATH (shared out in any amount) or MOUNT (used only whole). */
    source: z
      .object({ type: z.enum(['PATH', 'MOUNT']), root: z.string().min(2).max(4096).startsWith('/') })
      .strict()
      .optional(),
  })
  .strict()
  .refine((e) => [e.value, e.ranges, e.set].filter((k) => k !== undefined).length === 1, {
    message: 'give exactly one of value, ranges or set',
  });
export type ResourceEntry = z.infer<typeof ResourceEntry>;

export const Resources = z.array(ResourceEntry).max(1000);

export const TaskState = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof TaskState>;

export const Id = z
  .string()
  .min(1)
  .max(255)
  // One regular expression (no refinement: ids are checked in every message, thousands a second).
  .regex(/^(?!\.\.?$)[A-Za-z0-9._:@-]+$/, "only letters, digits and . _ : @ -, and not '.' or '..'");

/** An operating-system user name (POSIX portable: what useradd accepts). */
export const OsUser = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z_][a-z0-9_-]*[$]?$/, 'must be an operating-system user name such as nobody or svc-batch');

const Env = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(65_536));

/** A key with an optional value (Mesos's Label), kept with a task and shown to operators. */
export const Label = z.object({ key: z.string().min(1).max(255), value: z.string().max(4096).optional() }).strict();
export type Label = z.infer<typeof Label>;
export const Labels = z.array(Label).max(100);

/** Opaque bytes, base64-encoded, at most 1 MiB once decoded (Mesos's TaskInfo.data, framework messages). */
export const Bytes = z.base64().max(1_398_104);

/**
 * How a task is found by service discovery (Mesos's DiscoveryInfo): stored with the task and
 * returned wherever the task is shown; Arbiter itself does not act on it.
 */
export const Discovery = z
  .object({
    visibility: z.enum(['FRAMEWORK', 'CLUSTER', 'EXTERNAL']),
    name: z.string().max(255).optional(),
    environment: z.string().max(255).optional(),
    location: z.string().max(255).optional(),
    version: z.string().max(255).optional(),
    ports: z
      .array(
        z
          .object({
            number: z.number().int().min(0).max(65_535),
            name: z.string().max(255).optional(),
            protocol: z.string().max(32).optional(),
            visibility: z.enum(['FRAMEWORK', 'CLUSTER', 'EXTERNAL']).optional(),
            labels: Labels.optional(),
          })
          .strict(),
      )
      .max(100)
      .optional(),
    labels: Labels.optional(),
  })
  .strict();
export type Discovery = z.infer<typeof Discovery>;

/**
 * The framework's own program on an agent that runs its tasks (Mesos's ExecutorInfo): one
 * process per (framework, executorId) on an agent, started with the first task that names it,
 * reused by later ones, speaking the executor API (Mesos's v1 executor HTTP API). `DEFAULT` is
 * the agent's built-in default executor (task groups), which takes no command. Its resources are
 * its own, accounted beside its tasks'.
 */
export const ExecutorSpec = z
  .object({
    executorId: Id,
    type: z.enum(['CUSTOM', 'DEFAULT']).default('CUSTOM'),
    name: z.string().min(1).max(255).optional(),
    /** Required for CUSTOM executors; DEFAULT executors take none. */
    command: Command.optional(),
    env: Env.optional(),
    resources: Resources,
    /** The operating-system user, as for tasks; absent: the framework's, else the agent's task user. */
    user: OsUser.optional(),
    /** Handed to the executor (Mesos's ExecutorInfo.data). */
    data: Bytes.optional(),
    labels: Labels.optional(),
    /** Artifacts fetched into its sandbox before it starts. */
    uris: z.array(FetchUri).max(100).optional(),
    /** The executor's container (its tasks share it); absent: a plain process. */
    container: ContainerSpec.optional(),
    /** How long the executor has to end after SHUTDOWN before it is killed (default 5 s). */
    shutdownGracePeriodSeconds: z.number().nonnegative().max(3600).optional(),
  })
  .strict()
  .refine((e) => e.type === 'DEFAULT' || e.command !== undefined, { message: 'a CUSTOM executor needs a command', path: ['command'] });
export type ExecutorSpec = z.infer<typeof ExecutorSpec>;

/** A task as a framework launches it and an agent runs it. */
export const TaskSpec = z
  .object({
    taskId: Id,
    name: z.string().min(1).max(255),
    /** What the task runs under the command executor; absent when an executor runs it. */
    command: Command.optional(),
    env: Env.optional(),
    resources: Resources,
    /**
     * The operating-system user the task runs as (Mesos's CommandInfo.user). Absent: the
     * framework's user, else the agent's task user. Subject to the run_tasks ACL.
     */
    user: OsUser.optional(),
    /** The executor that runs the task; absent: the agent's command executor runs `command`. */
    executor: ExecutorSpec.optional(),
    /** Artifacts fetched into its sandbox before it starts. */
    uris: z.array(FetchUri).max(100).optional(),
    healthCheck: HealthCheck.optional(),
    check: Check.optional(),
    /** The task's container, under the command executor; absent: a plain process. */
    container: ContainerSpec.optional(),
    /** Handed to the executor with the task (Mesos's TaskInfo.data). */
    data: Bytes.optional(),
    labels: Labels.optional(),
    discovery: Discovery.optional(),
    /** SIGTERM, then SIGKILL after this many seconds, unless a kill names its own (Mesos's KillPolicy). */
    killPolicy: z
      .object({ gracePeriodSeconds: z.number().nonnegative().max(3600) })
      .strict()
      .optional(),
    /** Killed and TASK_FAILED (REASON_MAX_COMPLETION_TIME_REACHED) when still running this long after it started. */
    maxCompletionTimeSeconds: z
      .number()
      .positive()
      .max(10 * 365 * 24 * 3600)
      .optional(),
  })
  .strict()
  .refine((t) => t.command !== undefined || t.executor !== undefined, {
    message: 'a task needs a command, or an executor to run it',
    path: ['command'],
  })
  // As in Mesos: an executor's URIs are fetched when it starts; a task it runs gets no fetch of its own.
  .refine((t) => t.executor === undefined || !t.uris?.length, {
    message: 'a task run by an executor gets no fetch of its own: give the URIs to its executor',
    path: ['uris'],
  });
export type TaskSpec = z.infer<typeof TaskSpec>;

/**
 * A time a message may carry: ISO 8601 with an offset, from the year 2000 to 2099. Anything
 * else (year 0000, which PostgreSQL would store as 1 BC) is a broken clock or a forged
 * message, refused as INVALID_MESSAGE rather than stored.
 */
export const PlausibleTime = z.iso.datetime({ offset: true }).refine((t) => {
  const ms = Date.parse(t);
  return ms >= Date.UTC(2000, 0, 1) && ms < Date.UTC(2100, 0, 1);
}, 'must be a time from the year 2000 to 2099');

/** A change of a task's state, persisted by the control plane before it reaches the framework. */
export const StatusUpdate = z
  .object({
    /** Identifies the update for acknowledgement and de-duplication. */
    updateUuid: z.uuid(),
    frameworkId: Id,
    taskId: Id,
    agentId: Id,
    state: TaskState,
    /** Machine-readable cause, e.g. REASON_MEMORY_LIMIT, REASON_COMMAND_EXITED, REASON_AGENT_REMOVED. */
    reason: z.string().max(100).optional(),
    message: z.string().max(10_000).optional(),
    /** ISO 8601 time the state was observed. */
    timestamp: PlausibleTime,
    /** Who observed it: the agent, the master, or the task's executor (through its agent). */
    source: z.enum(['SOURCE_AGENT', 'SOURCE_MASTER', 'SOURCE_EXECUTOR']),
    /** From an executor (Mesos's TaskStatus data, healthy, labels): passed on to the framework, kept with the update until acknowledged. */
    data: Bytes.optional(),
    healthy: z.boolean().optional(),
    /** A general check's result (`check`), from the agent or executor running it. */
    checkStatus: CheckStatus.optional(),
    labels: Labels.optional(),
    /** From the agent, for a task in a container: the image it runs (as normalized, and its manifest digest). */
    container: z
      .object({
        image: z
          .object({ reference: z.string().min(1).max(1024), digest: z.string().regex(/^sha256:[0-9a-f]{64}$/) })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type StatusUpdate = z.infer<typeof StatusUpdate>;

/** A protocol error: a stable code and a message a person can act on. */
interface WireError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Every client call is acknowledged with a reply: its result, or an error. */
export type Reply<T = object> = ({ ok: true } & T) | { ok: false; error: WireError };

/** The codes of the socket protocols' errors (every one in the registry, ERROR_CODES). */
export const PROTOCOL_ERRORS = {
  /** The message does not match the schema (details.issues lists what is wrong). */
  INVALID_MESSAGE: 'INVALID_MESSAGE',
  /** The socket has not subscribed or registered yet. */
  NOT_SUBSCRIBED: 'NOT_SUBSCRIBED',
  UNKNOWN_OFFER: 'UNKNOWN_OFFER',
  OFFER_NOT_YOURS: 'OFFER_NOT_YOURS',
  OFFER_STALE: 'OFFER_STALE',
  OFFERS_FROM_SEVERAL_AGENTS: 'OFFERS_FROM_SEVERAL_AGENTS',
  INSUFFICIENT_OFFERED_RESOURCES: 'INSUFFICIENT_OFFERED_RESOURCES',
  DUPLICATE_TASK: 'DUPLICATE_TASK',
  UNKNOWN_TASK: 'UNKNOWN_TASK',
  UNKNOWN_FRAMEWORK: 'UNKNOWN_FRAMEWORK',
  FRAMEWORK_COMPLETED: 'FRAMEWORK_COMPLETED',
  ROLE_NOT_SUBSCRIBED: 'ROLE_NOT_SUBSCRIBED',
  UNKNOWN_AGENT: 'UNKNOWN_AGENT',
  AGENT_GONE: 'AGENT_GONE',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  /** The principal may not do this (its kind, or an ACL). */
  FORBIDDEN: 'FORBIDDEN',
  FRAMEWORK_PRINCIPAL_MISMATCH: 'FRAMEWORK_PRINCIPAL_MISMATCH',
  AGENT_PRINCIPAL_MISMATCH: 'AGENT_PRINCIPAL_MISMATCH',
  /** Another agent, registered and connected, holds the hostname. */
  AGENT_HOSTNAME_IN_USE: 'AGENT_HOSTNAME_IN_USE',
  TASK_NOT_ON_AGENT: 'TASK_NOT_ON_AGENT',
  ALREADY_SUBSCRIBED: 'ALREADY_SUBSCRIBED',
  NOT_LEADER: 'NOT_LEADER',
  /** The control plane cannot reach its database just now; the call changed nothing and may be sent again. */
  DATABASE_UNAVAILABLE: 'DATABASE_UNAVAILABLE',
  RESOURCES_BELOW_RESERVATIONS: 'RESOURCES_BELOW_RESERVATIONS',
  MACHINE_DOWN: 'MACHINE_DOWN',
  UNSUPPORTED: 'UNSUPPORTED',
  /** The principal has as many frameworks (not completed) as it may; one more is refused. */
  TOO_MANY_FRAMEWORKS: 'TOO_MANY_FRAMEWORKS',
  UNKNOWN_EXECUTOR: 'UNKNOWN_EXECUTOR',
  EXECUTOR_MISMATCH: 'EXECUTOR_MISMATCH',
  AGENT_CANNOT_RUN_IMAGES: 'AGENT_CANNOT_RUN_IMAGES',
  TASK_REFUSED_BY_MODULE: 'TASK_REFUSED_BY_MODULE',
} as const satisfies Record<string, ErrorCodeName>;

/** Parses a message; the error names every bad field. */
export function parseMessage<S extends z.ZodType>(
  schema: S,
  payload: unknown,
): { ok: true; value: z.infer<S> } | { ok: false; error: WireError } {
  const r = schema.safeParse(payload);
  if (r.success) return { ok: true, value: r.data };
  const issues = r.error.issues.map((i) => ({ path: i.path.join('.') || '(message)', message: i.message }));
  return {
    ok: false,
    error: {
      code: PROTOCOL_ERRORS.INVALID_MESSAGE,
      message: `invalid message: ${issues
        .slice(0, 5)
        .map((i) => `${i.path}: ${i.message}`)
        .join('; ')}`,
      details: { issues },
    },
  };
}
