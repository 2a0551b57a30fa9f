/**
 * The operator audit log. Services call `record` inside the transaction of the change itself,
 * so a change and its entry commit together or not at all.
 */
import type { AuditAction } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../auth/auth.actor';
import { Database, type Tx } from '../database/database.service';
import type { Page } from '../common/pagination.dto';
import { AuditEntryEntity } from './audit-entry.entity';
import { type AuditFilter, AuditRepository } from './audit.repository';

interface AuditChange {
  action: AuditAction;
  targetType: string;
  targetId: string | null;
  before: unknown;
  after: unknown;
}

@Injectable()
export class AuditService {
  constructor(
    private readonly db: Database,
    private readonly repo: AuditRepository,
  ) {}

  async record(tx: Tx, actor: Actor, change: AuditChange, at = new Date()): Promise<void> {
    await this.repo.insert(tx, {
      at,
      actor: actor.name,
      principalId: actor.principalId,
      tokenId: actor.tokenId,
      requestId: actor.requestId,
      action: change.action,
      targetType: change.targetType,
      targetId: change.targetId,
      before: change.before ?? null,
      after: change.after ?? null,
    });
  }

  /** Newest first; `actors` and `roles` limit it to what the caller may see. */
  async list(filter: AuditFilter, limit: number, offset: number): Promise<Page<AuditEntryEntity>> {
    const { items, total } = await this.repo.list(this.db.manager, filter, limit, offset);
    return { items, total, limit, offset };
  }
}
