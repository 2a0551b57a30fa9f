/**
 * The control plane's one configuration schema. Every setting has an environment variable and
 * a matching command-line flag (flags win); `loadConfig` validates them all at once and throws
 * a ConfigError naming each bad setting, so a wrong value stops the process before it binds a
 * port or touches a database. Each setting's text is parsed by a zod schema.
 */
import * as path from 'node:path';
import { Role } from '@arbiter/contracts';
import type { ModulesFile } from '@arbiter/modules';
import { z } from 'zod';
import {
  aclsFile,
  adminToken,
  certificateKeyMismatch,
  databaseUrl,
  flag,
  httpUrl,
  integer,
  LOG_LEVELS,
  logLevel,
  type LogLevel,
  minAllocatable,
  numberIn,
  pemFile,
  resourceNames,
} from './config.values';
import { LIMIT_SETTINGS, type LimitsConfig } from './config.limits';
import { modulesFile } from './config.modules';
import { RETENTION_SETTINGS, type RetentionConfig } from './config.retention';

export { LOG_LEVELS, type LogLevel } from './config.values';

export interface AppConfig extends LimitsConfig, RetentionConfig {
  /** HTTP port; 0 picks a free one. */
  port: number;
  /** External PostgreSQL; when unset an embedded server runs with its data in dataDir. */
  databaseUrl?: string;
  dataDir: string;
  /** Port of the embedded PostgreSQL server; 0 picks a free one at each start. */
  embeddedDbPort: number;
  adminToken?: string;
  /** PEM certificate (chain) and key: the control plane serves HTTPS and WSS. Both or neither. */
  tlsCert?: { file: string; pem: string };
  tlsKey?: { file: string; pem: string };
  /** Mesos-format ACLs read from this file at start (they replace the stored ones). */
  acls?: { file: string; document: Record<string, unknown> };
  /** Seconds between allocation cycles. */
  allocationInterval: number;
  /**
   * Milliseconds a cycle holds the event loop before it gives it back (between two agents) and
   * goes on at the next turn; 0 runs each cycle in one go.
   */
  allocationSliceMs: number;
  /** Seconds without a heartbeat after which an agent is unreachable (its tasks LOST). */
  agentTimeout: number;
  /**
   * Seconds an agent known before a start of the control plane has to register again before
   * it is unreachable (its tasks LOST); its reconnect may back off past agentTimeout.
   */
  agentReregisterTimeout: number;
  /**
   * Seconds frameworks connected when the master last stopped (a restart, a failover) have to
   * subscribe again before their failover timeout starts.
   */
  frameworkResubscribeGrace: number;
  /** Seconds an offer stays outstanding before it is rescinded; 0 = forever. */
  offerTimeout: number;
  /** An offer must hold every quantity of at least one of these (Mesos's --min_allocatable_resources). */
  minAllocatableResources: Array<Record<string, number>>;
  /** Resources left out of shares (Mesos's --fair_sharing_excluded_resource_names). */
  fairSharingExcludedResourceNames: string[];
  /** Agents with gpus are offered only to frameworks with GPU_RESOURCES (Mesos's --filter_gpu_resources). */
  filterGpuResources: boolean;
  /** Which agents are offered first: `mesos` (shuffled, as Mesos) or `pack` (most used first; docs/allocator.md). */
  placement: 'mesos' | 'pack';
  /** Modules to load at start (hooks, allocator policies; docs/modules.md), from a modules file. */
  modules?: ModulesFile;
  /**
   * Mesos scheduler API frameworks may subscribe without credentials (Mesos's
   * --authenticate_http_frameworks=false); the ACLs still apply to them, as principal type ANY.
   */
  mesosAllowAnonymous: boolean;
  /** Mesos's read-only endpoints and operator reads answer without credentials, as principal type ANY (docs/security.md). */
  mesosReadonlyAnonymous: boolean;
  /** The role a Mesos framework subscribed as `*` (no role) is in. */
  mesosDefaultRole: string;
  logLevel: LogLevel;
  /** The URL this replica gives clients that must reach the leader; unset: its own http(s)://<host>:<port>. */
  advertiseUrl?: string;
  /**
   * Seconds a leader may go without confirming its lock with PostgreSQL before it steps down;
   * PostgreSQL ends a silent leader's session (and frees the lock) after the same time.
   */
  leaderLease: number;
  /** Seconds between the server's pings on each socket (sent to clients in the handshake). */
  pingInterval: number;
  /** Seconds a ping may go unanswered before the socket is closed; a client closes after interval + timeout without one. */
  pingTimeout: number;
}

interface Setting<K extends keyof AppConfig> {
  key: K;
  env: string;
  flag: string;
  description: string;
  default?: AppConfig[K];
  /** Never echoed back in error messages. */
  secret?: boolean;
  /** Parses the raw text of the variable or flag; the first issue's message names what is wrong. */
  schema: z.ZodType<AppConfig[K], string>;
}

export const SETTINGS: ReadonlyArray<Setting<keyof AppConfig>> = [
  {
    key: 'port',
    env: 'PORT',
    flag: '--port',
    description: 'HTTP port of the REST API (0 picks a free port)',
    default: 8080,
    schema: integer(0, 65535),
  },
  {
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    flag: '--database-url',
    description: 'PostgreSQL URL; unset runs an embedded PostgreSQL server',
    secret: true,
    schema: databaseUrl,
  },
  {
    key: 'dataDir',
    env: 'ARBITER_DATA_DIR',
    flag: '--data-dir',
    description: "directory of the embedded PostgreSQL's data",
    default: './.arbiter',
    schema: z.string(),
  },
  {
    key: 'embeddedDbPort',
    env: 'ARBITER_EMBEDDED_DB_PORT',
    flag: '--embedded-db-port',
    description: 'port of the embedded PostgreSQL server (0 picks a free port)',
    default: 0,
    schema: integer(0, 65535),
  },
  {
    key: 'adminToken',
    env: 'ARBITER_ADMIN_TOKEN',
    flag: '--admin-token',
    description: 'the first admin API token; unset generates one on first start and prints it once',
    secret: true,
    schema: adminToken,
  },
  {
    key: 'tlsCert',
    env: 'ARBITER_TLS_CERT',
    flag: '--tls-cert',
    description: 'a PEM certificate (chain) file: serve HTTPS and WSS (with --tls-key)',
    schema: pemFile('CERTIFICATE'),
  },
  {
    key: 'tlsKey',
    env: 'ARBITER_TLS_KEY',
    flag: '--tls-key',
    description: "the PEM private key file of --tls-cert's certificate",
    schema: pemFile('PRIVATE KEY'),
  },
  {
    key: 'acls',
    env: 'ARBITER_ACLS',
    flag: '--acls',
    description: "a JSON file of ACLs in Mesos's format, applied at start (see docs/security.md); unset keeps the stored ACLs",
    schema: aclsFile,
  },
  {
    key: 'allocationInterval',
    env: 'ARBITER_ALLOCATION_INTERVAL',
    flag: '--allocation-interval',
    description: 'seconds between allocation cycles',
    default: 1,
    schema: numberIn(0.05, 3600, 'must be a number of seconds from 0.05 to 3600'),
  },
  {
    key: 'allocationSliceMs',
    env: 'ARBITER_ALLOCATION_SLICE_MS',
    flag: '--allocation-slice-ms',
    description:
      'milliseconds an allocation cycle holds the event loop before it lets requests and messages through and goes on (0: each cycle in one go)',
    default: 1,
    schema: numberIn(0, 1000, 'must be a number of milliseconds from 0 to 1000'),
  },
  {
    key: 'agentTimeout',
    env: 'ARBITER_AGENT_TIMEOUT',
    flag: '--agent-timeout',
    description:
      'seconds without a heartbeat before an agent is unreachable and its tasks LOST (agents heartbeat every 5 s, or three times in a shorter timeout)',
    default: 15,
    schema: numberIn(1, 86_400),
  },
  {
    key: 'agentReregisterTimeout',
    env: 'ARBITER_AGENT_REREGISTER_TIMEOUT',
    flag: '--agent-reregister-timeout',
    description:
      'seconds agents known before a start of the control plane have to register again before they are unreachable and their tasks LOST',
    default: 600,
    schema: numberIn(1, 86_400),
  },
  {
    key: 'frameworkResubscribeGrace',
    env: 'ARBITER_FRAMEWORK_RESUBSCRIBE_GRACE',
    flag: '--framework-resubscribe-grace',
    description:
      'seconds frameworks connected before a start or failover of the control plane have to subscribe again before their failover timeout starts',
    default: 60,
    schema: numberIn(0, 86_400),
  },
  {
    key: 'offerTimeout',
    env: 'ARBITER_OFFER_TIMEOUT',
    flag: '--offer-timeout',
    description: 'seconds before an unanswered offer is rescinded (0: never)',
    default: 0,
    schema: numberIn(0, 86_400),
  },
  {
    key: 'minAllocatableResources',
    env: 'ARBITER_MIN_ALLOCATABLE_RESOURCES',
    flag: '--min-allocatable-resources',
    description: "an offer must hold every quantity of one alternative, e.g. 'cpus:0.01|mem:32' (Mesos's --min_allocatable_resources)",
    default: [{ cpus: 0.01 }, { mem: 32 }],
    schema: minAllocatable,
  },
  {
    key: 'fairSharingExcludedResourceNames',
    env: 'ARBITER_FAIR_SHARING_EXCLUDED_RESOURCE_NAMES',
    flag: '--fair-sharing-excluded-resource-names',
    description: "resources left out of dominant shares, comma-separated, e.g. 'gpus' (Mesos's --fair_sharing_excluded_resource_names)",
    default: [],
    schema: resourceNames,
  },
  {
    key: 'filterGpuResources',
    env: 'ARBITER_FILTER_GPU_RESOURCES',
    flag: '--filter-gpu-resources',
    description: "offer agents with gpus only to frameworks with the GPU_RESOURCES capability (Mesos's --filter_gpu_resources)",
    default: true,
    schema: flag,
  },
  {
    key: 'placement',
    env: 'ARBITER_PLACEMENT',
    flag: '--placement',
    description:
      "which agents are offered first: 'mesos' (shuffled each cycle, as Mesos) or 'pack' (the most used first, big free machines kept whole for big tasks)",
    default: 'mesos',
    schema: z.enum(['mesos', 'pack']),
  },
  {
    key: 'modules',
    env: 'ARBITER_MODULES',
    flag: '--modules',
    description:
      "a JSON file naming modules to load at start, in order, with their parameters (Mesos's --modules; docs/modules.md): task-launch hooks, a sorter, a placement",
    schema: modulesFile,
  },
  {
    key: 'mesosAllowAnonymous',
    env: 'ARBITER_MESOS_ALLOW_ANONYMOUS',
    flag: '--mesos-allow-anonymous',
    description:
      "Mesos scheduler API frameworks may subscribe without credentials (Mesos's --authenticate_http_frameworks=false); ACL entries for principal type ANY still apply",
    default: false,
    schema: flag,
  },
  {
    key: 'mesosReadonlyAnonymous',
    env: 'ARBITER_MESOS_READONLY_ANONYMOUS',
    flag: '--mesos-readonly-anonymous',
    description:
      "Mesos's read-only endpoints (GET /master/state, /master/state-summary... and the operator API's GET_* calls) answer without credentials, under the ACL entries for principal type ANY; for monitoring in a trusted network only",
    default: false,
    schema: flag,
  },
  {
    key: 'mesosDefaultRole',
    env: 'ARBITER_MESOS_DEFAULT_ROLE',
    flag: '--mesos-default-role',
    description: "the role of a Mesos framework that subscribes without one (Mesos's '*')",
    default: 'default',
    schema: Role,
  },
  ...RETENTION_SETTINGS,
  {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: '--log-level',
    description: `log level: ${LOG_LEVELS.join(', ')}`,
    default: 'info',
    schema: logLevel,
  },
  {
    key: 'advertiseUrl',
    env: 'ARBITER_ADVERTISE_URL',
    flag: '--advertise-url',
    description: "the URL other replicas send clients to when this one leads (default: http(s)://<this host's name>:<port>)",
    schema: httpUrl,
  },
  {
    key: 'leaderLease',
    env: 'ARBITER_LEADER_LEASE',
    flag: '--leader-lease',
    description: 'seconds a leader that cannot reach PostgreSQL keeps leading before it steps down (a standby takes over after it)',
    default: 10,
    schema: numberIn(2, 120, 'must be a number of seconds from 2 to 120'),
  },
  ...LIMIT_SETTINGS,
  {
    key: 'pingInterval',
    env: 'ARBITER_PING_INTERVAL',
    flag: '--ping-interval',
    description:
      "seconds between pings on agents' and frameworks' sockets: a client that hears none for interval + timeout moves to another replica",
    default: 5,
    schema: numberIn(0.5, 60, 'must be a number of seconds from 0.5 to 60'),
  },
  {
    key: 'pingTimeout',
    env: 'ARBITER_PING_TIMEOUT',
    flag: '--ping-timeout',
    description: 'seconds a ping may go unanswered before the control plane closes the socket',
    default: 5,
    schema: numberIn(0.5, 60, 'must be a number of seconds from 0.5 to 60'),
  },
] as ReadonlyArray<Setting<keyof AppConfig>>;

export class ConfigError extends Error {
  constructor(readonly problems: ReadonlyArray<{ setting: string; message: string }>) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p.setting} ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the configuration: a flag (by setting key) overrides its environment variable, which
 * overrides the default. Empty environment variables count as unset.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: Partial<Record<keyof AppConfig, string>> = {}): AppConfig {
  const out: Partial<Record<keyof AppConfig, unknown>> = {};
  const problems: Array<{ setting: string; message: string }> = [];
  for (const s of SETTINGS) {
    const fromFlag = flags[s.key];
    const fromEnv = env[s.env];
    const raw = fromFlag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
    const name = fromFlag !== undefined ? `${s.flag} (${s.env})` : s.env;
    if (raw === undefined) {
      if (s.default !== undefined) out[s.key] = s.default;
      continue;
    }
    const parsed = s.schema.safeParse(raw);
    if (parsed.success) out[s.key] = parsed.data;
    else {
      const message = parsed.error.issues[0]?.message ?? 'is invalid';
      problems.push({ setting: name, message: s.secret ? message : `${message} (got '${raw}')` });
    }
  }
  const cert = out.tlsCert as AppConfig['tlsCert'];
  const key = out.tlsKey as AppConfig['tlsKey'];
  if (cert && !key) problems.push({ setting: 'ARBITER_TLS_KEY (--tls-key)', message: `is required with the certificate ${cert.file}` });
  else if (key && !cert) problems.push({ setting: 'ARBITER_TLS_CERT (--tls-cert)', message: `is required with the key ${key.file}` });
  else if (cert && key) {
    const mismatch = certificateKeyMismatch(cert.pem, key.pem);
    if (mismatch) problems.push({ setting: 'ARBITER_TLS_CERT / ARBITER_TLS_KEY', message: mismatch });
  }
  if (problems.length) throw new ConfigError(problems);
  const config = out as AppConfig;
  config.dataDir = path.resolve(config.dataDir);
  return config;
}

/** The injection token of the AppConfig value. */
export const APP_CONFIG = Symbol('APP_CONFIG');
