/**
 * Every error code Arbiter answers with, REST and socket protocols alike: one registry. A code
 * the REST API answers has its HTTP status; a code only the socket protocols use has none
 * (their replies are `{ ok: false, error: { code, message, details } }`). Codes never change
 * once released: scripts and frameworks branch on them.
 */
export const ERROR_CODES = {
  // Any request
  VALIDATION_FAILED: { status: 400 },
  MALFORMED_JSON: { status: 400 },
  PAYLOAD_TOO_LARGE: { status: 413 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415 },
  /** The Accept header names no encoding the endpoint can answer in. */
  NOT_ACCEPTABLE: { status: 406 },
  ROUTE_NOT_FOUND: { status: 404 },
  CONCURRENT_UPDATE: { status: 409 },
  DATABASE_UNAVAILABLE: { status: 503 },
  INTERNAL_ERROR: { status: 500 },
  /** A standby could not hand an operation that needs the leader to it (no leader, or it did not answer). */
  NO_LEADER: { status: 503 },
  // Authentication
  AUTH_TOKEN_MISSING: { status: 401 },
  AUTH_TOKEN_INVALID: { status: 401 },
  // Authorization, principals, tokens, ACLs
  FORBIDDEN: { status: 403 },
  PRINCIPAL_NOT_FOUND: { status: 404 },
  PRINCIPAL_EXISTS: { status: 409 },
  PRINCIPAL_DISABLED: { status: 409 },
  TOKEN_NOT_FOUND: { status: 404 },
  NOT_A_SESSION: { status: 409 },
  ACLS_INVALID: { status: 400 },
  // Agents
  AGENT_NOT_FOUND: { status: 404 },
  AGENT_GONE: { status: 409 },
  AGENT_STILL_DRAINING: { status: 409 },
  AGENT_ALREADY_DRAINING: { status: 409 },
  // Frameworks, tasks, allocation history
  FRAMEWORK_NOT_FOUND: { status: 404 },
  FRAMEWORK_NOT_CONNECTED: { status: 409 },
  TASK_NOT_FOUND: { status: 404 },
  CYCLE_NOT_FOUND: { status: 404 },
  // Sandbox files (the control plane's relay and the agent's answers alike)
  /** The task's agent is not connected to the control plane, or did not answer in time. */
  SANDBOX_UNREACHABLE: { status: 503 },
  /** A path with `..`, or one that resolves outside the sandbox (a symbolic link out of it). */
  SANDBOX_PATH_INVALID: { status: 400 },
  /** No such file or directory in the sandbox (or no sandbox at all: collected, or never made). */
  SANDBOX_FILE_NOT_FOUND: { status: 404 },
  /** A read of something that is not a regular file (a directory). */
  SANDBOX_NOT_A_FILE: { status: 400 },
  // Roles, weights, quota
  ROLE_REPEATED: { status: 400 },
  QUOTA_NOT_FOUND: { status: 404 },
  QUOTA_GUARANTEE_EXCEEDS_LIMIT: { status: 400 },
  QUOTA_HIERARCHY_VIOLATION: { status: 400 },
  QUOTA_EXCEEDS_CAPACITY: { status: 409 },
  // Reservations
  RESERVATION_NOT_FOUND: { status: 404 },
  RESERVATION_INSUFFICIENT_RESOURCES: { status: 409 },
  RESERVATION_IN_USE: { status: 409 },
  RESERVATION_REFINEMENT_INVALID: { status: 400 },
  // Persistent volumes
  VOLUME_NOT_FOUND: { status: 404 },
  /** A volume with this persistence id exists for the role on the agent. */
  VOLUME_EXISTS: { status: 409 },
  /** Not enough disk reserved for the role (and not in a volume or used by a task) on the agent. */
  VOLUME_INSUFFICIENT_DISK: { status: 409 },
  /** A live task or executor uses the volume. */
  VOLUME_IN_USE: { status: 409 },
  /** The volume's agent is not connected, or did not answer in time (nothing changed). */
  VOLUME_AGENT_UNREACHABLE: { status: 503 },
  /** The agent could not make or remove the volume's directory (the message says why). */
  VOLUME_AGENT_FAILED: { status: 502 },
  // What-if
  /** A what-if change past the bounds of WHAT_IF_LIMITS (added agents, added frameworks). */
  SIMULATION_TOO_LARGE: { status: 400 },
  /** As many what-if simulations as the control plane runs at once are running; try again shortly. */
  SIMULATION_BUSY: { status: 429 },
  // Maintenance
  MAINTENANCE_DUPLICATE_MACHINE: { status: 400 },
  MAINTENANCE_DOWN_MACHINE_REMOVED: { status: 409 },
  MAINTENANCE_MACHINE_NOT_SCHEDULED: { status: 409 },
  MAINTENANCE_MACHINE_ALREADY_DOWN: { status: 409 },
  MAINTENANCE_MACHINE_NOT_DOWN: { status: 409 },
  // The socket protocols only (/agents, /frameworks)
  INVALID_MESSAGE: { status: null },
  NOT_SUBSCRIBED: { status: null },
  UNKNOWN_OFFER: { status: null },
  OFFER_NOT_YOURS: { status: null },
  OFFER_STALE: { status: null },
  OFFERS_FROM_SEVERAL_AGENTS: { status: null },
  INSUFFICIENT_OFFERED_RESOURCES: { status: null },
  DUPLICATE_TASK: { status: null },
  UNKNOWN_TASK: { status: null },
  UNKNOWN_FRAMEWORK: { status: null },
  FRAMEWORK_COMPLETED: { status: null },
  ROLE_NOT_SUBSCRIBED: { status: null },
  UNKNOWN_AGENT: { status: null },
  /** A framework id, or a subscription's `principal`, that belongs to another principal. */
  FRAMEWORK_PRINCIPAL_MISMATCH: { status: null },
  /** An agent id that another principal registered. */
  AGENT_PRINCIPAL_MISMATCH: { status: null },
  /** An agent registering a hostname that another live (registered, connected) agent holds. */
  AGENT_HOSTNAME_IN_USE: { status: null },
  /** A status update for a task that does not run on the reporting agent. */
  TASK_NOT_ON_AGENT: { status: null },
  /** A second subscription on a connection that is subscribed as another framework. */
  ALREADY_SUBSCRIBED: { status: null },
  /** A standby refused an agent or framework session; `leader` names the leader's URL (null while none is known). */
  NOT_LEADER: { status: null },
  /** An agent whose machine is DOWN for maintenance registering (refused until maintenance stops). */
  MACHINE_DOWN: { status: null },
  /** An agent's new resources cannot hold the reservations made on it. */
  RESOURCES_BELOW_RESERVATIONS: { status: null },
  /** A new framework of a principal that has as many as it may (ARBITER_MAX_FRAMEWORKS_PER_PRINCIPAL). */
  TOO_MANY_FRAMEWORKS: { status: null },
  /** A scheduler call or an agent message naming an executor that does not run (for that framework, on that agent). */
  UNKNOWN_EXECUTOR: { status: null },
  /** A task naming an executor id already running with another ExecutorInfo (Mesos refuses it TASK_ERROR). */
  EXECUTOR_MISMATCH: { status: null },
  /** A task with a container image on an agent that cannot run images (no OCI runtime there, or an agent older than containers). */
  AGENT_CANNOT_RUN_IMAGES: { status: null },
  /** A task a control-plane:task-launch hook refused (the message names the module and its reason; Mesos's TASK_ERROR). */
  TASK_REFUSED_BY_MODULE: { status: null },
  /** A call, operation or field Mesos defines that Arbiter cannot honour (the message names it and says why). */
  UNSUPPORTED: { status: null },
} as const satisfies Record<string, { status: number | null }>;

export type ErrorCodeName = keyof typeof ERROR_CODES;

/** The codes the REST API answers with (those with an HTTP status). */
export type RestErrorCode = { [K in ErrorCodeName]: (typeof ERROR_CODES)[K]['status'] extends number ? K : never }[ErrorCodeName];
