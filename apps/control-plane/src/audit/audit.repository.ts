import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ViewScope } from '../common/view-scopes';
import { scopeCondition } from '../database/scope-condition';
import { AuditEntryEntity } from './audit-entry.entity';

export interface AuditFilter {
  actor?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  since?: Date;
  until?: Date;
  /** The principals whose entries the caller may see (the view_audit ACL). */
  actors?: ViewScope;
  /** The roles whose entries the caller may see (view_roles; plain values, `a/*` patterns kept). */
  roles?: ViewScope;
}

@Injectable()
export class AuditRepository {
  /** One plain INSERT (every audited change writes one, inside its own transaction and lock). */
  async insert(tx: EntityManager, entry: Omit<AuditEntryEntity, 'id'>): Promise<void> {
    const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
    await tx.query(
      `INSERT INTO audit_log (at, actor, principal_id, token_id, action, target_type, target_id, before, after, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10)`,
      [
        entry.at,
        entry.actor,
        entry.principalId,
        entry.tokenId,
        entry.action,
        entry.targetType,
        entry.targetId,
        json(entry.before),
        json(entry.after),
        entry.requestId,
      ],
    );
  }

  /** Newest first. `action` ending in `.*` matches a prefix (`quota.*`). */
  async list(tx: EntityManager, filter: AuditFilter, limit: number, offset: number): Promise<{ items: AuditEntryEntity[]; total: number }> {
    const q = tx.createQueryBuilder(AuditEntryEntity, 'a');
    if (filter.actor) q.andWhere('a.actor = :actor', { actor: filter.actor });
    if (filter.action?.endsWith('.*'))
      q.andWhere('a.action LIKE :prefix', { prefix: filter.action.slice(0, -1).replace(/[\\%_]/g, '\\$&') + '%' });
    else if (filter.action) q.andWhere('a.action = :action', { action: filter.action });
    if (filter.targetType) q.andWhere('a.target_type = :targetType', { targetType: filter.targetType });
    if (filter.targetId) q.andWhere('a.target_id = :targetId', { targetId: filter.targetId });
    if (filter.since) q.andWhere('a.at >= :since', { since: filter.since });
    if (filter.until) q.andWhere('a.at < :until', { until: filter.until });
    if (filter.actors && ('only' in filter.actors || filter.actors.except.length))
      q.andWhere(...scopeCondition('a.actor', filter.actors, 'actors'));
    if (filter.roles && ('only' in filter.roles || filter.roles.except.length)) {
      const [condition, params] = scopeCondition('a.target_id', filter.roles, 'roles');
      q.andWhere(`(a.target_type <> 'role' OR a.target_id IS NULL OR ${condition})`, params);
    }
    const [items, total] = await q.orderBy('a.id', 'DESC').take(limit).skip(offset).getManyAndCount();
    return { items, total };
  }
}
