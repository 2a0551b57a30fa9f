/** The scheduler client's options, the events it emits and the errors its calls reject with (see index.ts). */
import type {
  ExecutorFailure,
  InverseOffer,
  Offer,
  OperationStatus,
  SchedulerMessage,
  StatusUpdate,
  Subscribe,
  SubscribeReply,
} from '@arbiter/contracts';

export class SchedulerError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'SchedulerError';
  }
}

export interface SchedulerOptions {
  /**
   * Base URL of the control plane, e.g. http://127.0.0.1:8080, or a comma-separated list of
   * its replicas' URLs: the scheduler finds the leader, and finds it again after a failover.
   */
  master: string;
  token: string;
  framework: Subscribe;
  /** Acknowledge each task update (and operation status) after the 'update' ('operationStatus') handlers ran (default true). */
  autoAcknowledge?: boolean;
  /** Milliseconds a call waits for its answer (default 30 s). */
  callTimeoutMs?: number;
  /** PEM certificate(s) to trust for an https:// master (a private CA), besides the system's. */
  ca?: string;
  /** Milliseconds a connection attempt may take before the next control plane is tried (default 3 s). */
  connectTimeoutMs?: number;
}

/** A connection failure that retrying will not heal: a refused token or kind, an untrusted certificate. */
export function permanentConnectError(err: Error & { data?: { code?: string }; description?: unknown }): string | undefined {
  const code = err.data?.code;
  if (code && (code.startsWith('AUTH_') || code === 'FORBIDDEN')) return code;
  // The transport's cause: an Error, or ws's ErrorEvent carrying one.
  const cause = err.description as { message?: string; code?: string; error?: { code?: string } } | undefined;
  const text = `${err.message} ${cause?.message ?? ''} ${cause?.code ?? cause?.error?.code ?? ''}`;
  if (/certificate|self[- ]signed|CERT_|ERR_TLS/i.test(text)) return 'TLS_CERTIFICATE_UNTRUSTED';
  return undefined;
}

export interface SchedulerEvents {
  subscribed: [reply: SubscribeReply];
  offers: [offers: Offer[]];
  rescind: [offerId: string, reason: string];
  inverseOffers: [inverseOffers: InverseOffer[]];
  /** An inverse offer no longer holds (its maintenance changed or ended, its agent went). */
  rescindInverseOffer: [inverseOfferId: string, reason: string];
  update: [status: StatusUpdate];
  /** How an operation named with an id ended; one with a uuid is acknowledged after the handlers ran (autoAcknowledge). */
  operationStatus: [status: OperationStatus];
  /** An agent was taken out (unreachable, gone, down for maintenance): its tasks' updates follow. */
  agentLost: [agentId: string, reason: string];
  heartbeat: [at: string];
  /** A message from one of its executors (data: base64). */
  message: [message: SchedulerMessage];
  /** One of its executors ended (its resources are free again; its tasks' updates come as 'update'). */
  failure: [failure: ExecutorFailure];
  disconnected: [reason: string];
  /** The framework has completed (FRAMEWORK_COMPLETED): subscribe a new one to go on. */
  completed: [error: SchedulerError];
  error: [error: Error];
}

/**
 * A launch that was sent but not answered: the tasks may run (the control plane stored them
 * before its answer was lost) or not. Not a failure: the SDK reconciles them.
 */
export const LAUNCH_UNKNOWN = 'LAUNCH_UNKNOWN';
