/**
 * Where the guard records the calls it refuses. Authentication sits below the audit log, so it
 * names only what it needs; the audit log's `AccessLog` is what AuditModule provides for it.
 */
import type { Actor } from './auth.actor';

/** A refused call. */
export interface Refusal {
  /** The call refused, e.g. 'PUT /api/v1/quota' or 'subscribe'. */
  what: string;
  reason: string;
  targetType?: string;
  targetId?: string | null;
}

export abstract class RefusalLog {
  /** Records that `actor`'s call was refused (never throws: a failure to record is logged). */
  abstract denied(actor: Actor, refusal: Refusal, now?: Date): Promise<void>;
}
