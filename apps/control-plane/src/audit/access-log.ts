/**
 * Refused calls in the audit log (`access.denied`), rate-limited per principal so that a flood
 * of refused calls cannot fill the table: at most BURST entries per principal per WINDOW_MS;
 * the next entry after a quiet spell says how many were left out.
 */
import { Injectable, Logger } from '@nestjs/common';
import type { Actor } from '../auth/auth.actor';
import type { Refusal, RefusalLog } from '../auth/refusal-log';
import { Database } from '../database/database.service';
import { AuditService } from './audit.service';

const WINDOW_MS = 60_000;
const BURST = 10;

@Injectable()
export class AccessLog implements RefusalLog {
  private readonly logger = new Logger('AccessLog');
  private readonly windows = new Map<string, { start: number; count: number; dropped: number }>();

  constructor(
    private readonly db: Database,
    private readonly audit: AuditService,
  ) {}

  async denied(actor: Actor, refusal: Refusal, now = new Date()): Promise<void> {
    const key = actor.name;
    let w = this.windows.get(key);
    if (!w || now.getTime() - w.start >= WINDOW_MS) {
      const dropped = w?.dropped ?? 0;
      w = { start: now.getTime(), count: 0, dropped };
      this.windows.set(key, w);
      if (this.windows.size > 10_000) this.windows.delete(this.windows.keys().next().value ?? key);
    }
    if (w.count >= BURST) {
      w.dropped++;
      return;
    }
    w.count++;
    const dropped = w.dropped;
    w.dropped = 0;
    try {
      await this.db.transaction((tx) =>
        this.audit.record(
          tx,
          actor,
          {
            action: 'access.denied',
            targetType: refusal.targetType ?? 'call',
            targetId: refusal.targetId ?? refusal.what,
            before: null,
            after: { what: refusal.what, reason: refusal.reason, ...(dropped ? { refusalsNotRecorded: dropped } : {}) },
          },
          now,
        ),
      );
    } catch (err) {
      this.logger.warn({ err, principal: actor.name, what: refusal.what }, 'could not record a refused call');
    }
  }
}
