/**
 * The settings that bound what one client can make the control plane do: how much a request may
 * send before and after it authenticates, how many connections it may hold and for how long
 * their headers may take, how many what-if simulations run at once, how many frameworks one
 * principal may have and how much may wait for a reader (docs/security.md, "Limits under
 * hostile load", "Slow readers and many frameworks").
 */
import { integer, numberIn } from './config.values';

export interface LimitsConfig {
  /** Bytes an authenticated request body may have (and the most any request may declare). */
  bodyLimit: number;
  /** Bytes a request without valid credentials may send (anonymous Mesos frameworks, public routes). */
  unauthenticatedBodyLimit: number;
  /** Open connections at most, all addresses together; 0: no limit. */
  maxConnections: number;
  /** Open connections at most from one remote address; 0: no limit. */
  maxConnectionsPerAddress: number;
  /** Seconds a client has to send a request's headers. */
  headersTimeout: number;
  /** Seconds a client has to send a whole request (headers and body). */
  requestTimeout: number;
  /** What-if simulations run at once (each in a worker thread); more are refused 429. */
  simulations: number;
  /** Frameworks (not completed) one principal may have; the anonymous ones count as one principal. */
  maxFrameworksPerPrincipal: number;
  /** MiB queued for one connection that its peer has not read before it is cut off. */
  connectionQueueMb: number;
  /** MiB queued for all the connections of one principal before the one that adds more is cut off. */
  principalQueueMb: number;
}

export const LIMIT_SETTINGS = [
  {
    key: 'bodyLimit',
    env: 'ARBITER_BODY_LIMIT',
    flag: '--body-limit',
    description: 'bytes an authenticated request body may have; a larger declared Content-Length is refused 413 unread',
    default: 1_048_576,
    schema: integer(1024, 64 * 1_048_576),
  },
  {
    key: 'unauthenticatedBodyLimit',
    env: 'ARBITER_UNAUTHENTICATED_BODY_LIMIT',
    flag: '--unauthenticated-body-limit',
    description: 'bytes a request without valid credentials may send (public routes, anonymous Mesos frameworks)',
    default: 16_384,
    schema: integer(0, 64 * 1_048_576),
  },
  {
    key: 'maxConnections',
    env: 'ARBITER_MAX_CONNECTIONS',
    flag: '--max-connections',
    description: 'open connections at most, from all addresses together (0: no limit); keep it below the open-file limit',
    default: 10_000,
    schema: integer(0, 10_000_000),
  },
  {
    key: 'maxConnectionsPerAddress',
    env: 'ARBITER_MAX_CONNECTIONS_PER_ADDRESS',
    flag: '--max-connections-per-address',
    description: 'open connections at most from one remote address (0: no limit); agents and frameworks behind one NAT share it',
    default: 2_000,
    schema: integer(0, 10_000_000),
  },
  {
    key: 'headersTimeout',
    env: 'ARBITER_HEADERS_TIMEOUT',
    flag: '--headers-timeout',
    description: "seconds a client has to send a request's headers before its connection is closed",
    default: 10,
    schema: numberIn(0.1, 3600),
  },
  {
    key: 'requestTimeout',
    env: 'ARBITER_REQUEST_TIMEOUT',
    flag: '--request-timeout',
    description: 'seconds a client has to send a whole request (headers and body) before it is answered 408',
    default: 30,
    schema: numberIn(0.1, 3600),
  },
  {
    key: 'simulations',
    env: 'ARBITER_SIMULATIONS',
    flag: '--simulations',
    description: 'what-if simulations (POST /api/v1/simulate) run at once, each in a worker thread; more are refused 429',
    default: 1,
    schema: integer(1, 64),
  },
  {
    key: 'maxFrameworksPerPrincipal',
    env: 'ARBITER_MAX_FRAMEWORKS_PER_PRINCIPAL',
    flag: '--max-frameworks-per-principal',
    description: 'frameworks one principal may have (not completed); one more is refused TOO_MANY_FRAMEWORKS',
    default: 100,
    schema: integer(1, 1_000_000),
  },
  {
    key: 'connectionQueueMb',
    env: 'ARBITER_CONNECTION_QUEUE_MB',
    flag: '--connection-queue-mb',
    description: 'MiB queued for one socket or Mesos event stream that its reader has not taken before it is cut off',
    default: 16,
    schema: numberIn(0.01, 4096),
  },
  {
    key: 'principalQueueMb',
    env: 'ARBITER_PRINCIPAL_QUEUE_MB',
    flag: '--principal-queue-mb',
    description: "MiB queued for all of one principal's connections before the one that adds more is cut off",
    default: 64,
    schema: numberIn(0.01, 65_536),
  },
] as const;
