/**
 * Reads of frameworks, offers and tasks for operators, and the operator's framework teardown.
 * Usage and dominant share come from live tasks (offers outstanding are listed separately).
 */
import { Injectable } from '@nestjs/common';
import { In, Not } from 'typeorm';
import { Resources } from '@arbiter/allocator';
import { AllocationUsageRepository } from '../allocation/allocation-usage.repository';
import type { Actor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import { type CappedPage, cappedTotal, type Page } from '../common/pagination.dto';
import { sumScalars } from '../common/resources.dto';
import { Database } from '../database/database.service';
import { ArbiterException } from '../errors/errors.exception';
import { FrameworkSessions } from './framework-sessions.handler';
import { ClusterState } from '../kernel/cluster-state';
import { OfferEntity, OfferState } from '../offers/offer.entity';
import { outstandingOffers } from '../offers/offers.repository';
import { TaskStatusUpdateEntity } from '../tasks/task-status-update.entity';
import { TaskEntity, type TaskState, TERMINAL_TASK_STATES } from '../tasks/task.entity';
import { FrameworkEntity, type FrameworkState } from './framework.entity';
import type { FrameworkDto, OfferDto, TaskDto } from './frameworks.dto';
import { FrameworksErrorCode } from './frameworks.errors';

@Injectable()
export class FrameworksService {
  constructor(
    private readonly db: Database,
    private readonly master: ClusterState,
    private readonly sessions: FrameworkSessions,
    private readonly audit: AuditService,
    private readonly usage: AllocationUsageRepository,
  ) {}

  async list(filter: { state?: FrameworkState; role?: string }, limit: number, offset: number): Promise<Page<FrameworkDto>> {
    const q = this.db.manager.createQueryBuilder(FrameworkEntity, 'f');
    if (filter.state) q.andWhere('f.state = :state', { state: filter.state });
    if (filter.role) q.andWhere(':role = ANY(f.roles)', { role: filter.role });
    const [rows, total] = await q.orderBy('f.registered_at', 'DESC').addOrderBy('f.id').take(limit).skip(offset).getManyAndCount();
    return { items: await this.describe(rows), total, limit, offset };
  }

  async get(id: string): Promise<FrameworkDto> {
    const row = await this.db.manager.findOne(FrameworkEntity, { where: { id } });
    if (!row)
      throw new ArbiterException(
        FrameworksErrorCode.FRAMEWORK_NOT_FOUND,
        `no framework with id '${id}'; GET /api/v1/frameworks lists them`,
        { frameworkId: id },
      );
    return (await this.describe([row]))[0];
  }

  private async describe(rows: FrameworkEntity[]): Promise<FrameworkDto[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const tasks = await this.db.manager.find(TaskEntity, {
      where: { frameworkId: In(ids), state: Not(In([...TERMINAL_TASK_STATES])) },
      select: { frameworkId: true, resources: true },
    });
    const total = await this.usage.reachableCapacity(this.db.manager);
    const outstanding = this.master.outstandingOffers();
    const tasksOf = new Map<string, Array<{ resources: TaskEntity['resources'] }>>();
    for (const t of tasks) {
      const list = tasksOf.get(t.frameworkId);
      if (list) list.push(t);
      else tasksOf.set(t.frameworkId, [t]);
    }
    const offersOf = new Map<string, number>();
    for (const o of outstanding) offersOf.set(o.frameworkId, (offersOf.get(o.frameworkId) ?? 0) + 1);
    return rows.map((r) => {
      const mine = tasksOf.get(r.id) ?? [];
      const usedQ = sumScalars(mine.map((t) => t.resources));
      const shares: Record<string, number> = {};
      for (const [name, amount] of Object.entries(usedQ)) {
        const of = total.get(name) ?? 0;
        if (of > 0) shares[name] = Math.round((amount / of) * 1e6) / 1e6;
      }
      return {
        id: r.id,
        name: r.name,
        principal: r.principal,
        roles: r.roles,
        suppressedRoles: r.suppressedRoles,
        capabilities: r.capabilities,
        state: r.state,
        connected: this.master.isFrameworkConnected(r.id),
        failoverTimeoutSeconds: r.failoverTimeoutSeconds,
        registeredAt: r.registeredAt.toISOString(),
        disconnectedAt: r.disconnectedAt?.toISOString() ?? null,
        completedAt: r.completedAt?.toISOString() ?? null,
        activeTasks: mine.length,
        outstandingOffers: offersOf.get(r.id) ?? 0,
        used: usedQ,
        shares,
        dominantShare: Math.max(0, ...Object.values(shares)),
      };
    });
  }

  /** Operator teardown: tasks killed, offers rescinded; recorded in the audit log. */
  async teardown(id: string, actor: Actor): Promise<FrameworkDto> {
    const before = await this.get(id);
    if (before.state === 'COMPLETED') return before;
    await this.sessions.teardownById(id);
    const after = await this.get(id);
    await this.db.transaction((tx) =>
      this.audit.record(tx, actor, {
        action: 'framework.teardown',
        targetType: 'framework',
        targetId: id,
        before: { state: before.state, activeTasks: before.activeTasks },
        after: { state: after.state },
      }),
    );
    return after;
  }

  async offers(
    filter: { state?: OfferState; frameworkId?: string; agentId?: string },
    limit: number,
    offset: number,
  ): Promise<CappedPage<OfferDto>> {
    // Outstanding offers through their own small table; the others by state (not indexed: closing an offer touches no index).
    const q =
      filter.state === OfferState.OUTSTANDING ? outstandingOffers(this.db.manager) : this.db.manager.createQueryBuilder(OfferEntity, 'o');
    if (filter.state && filter.state !== OfferState.OUTSTANDING) q.andWhere('o.state = :state', { state: filter.state });
    if (filter.frameworkId) q.andWhere('o.framework_id = :frameworkId', { frameworkId: filter.frameworkId });
    if (filter.agentId) q.andWhere('o.agent_id = :agentId', { agentId: filter.agentId });
    const [rows, count] = await Promise.all([
      q.clone().orderBy('o.created_at', 'DESC').addOrderBy('o.id', 'ASC').take(limit).skip(offset).getMany(),
      cappedTotal(q, offset),
    ]);
    return {
      items: rows.map((o) => ({
        id: o.id,
        frameworkId: o.frameworkId,
        agentId: o.agentId,
        role: o.role,
        resources: o.resources,
        resourcesText: Resources.of(o.resources).toString(),
        state: o.state,
        cycleId: o.cycleId === null ? null : String(o.cycleId),
        createdAt: o.createdAt.toISOString(),
        closedAt: o.closedAt?.toISOString() ?? null,
      })),
      ...count,
      limit,
      offset,
    };
  }

  async tasks(
    filter: { state?: TaskState; frameworkId?: string; agentId?: string },
    limit: number,
    offset: number,
  ): Promise<CappedPage<TaskDto>> {
    const q = this.db.manager.createQueryBuilder(TaskEntity, 't');
    if (filter.state) q.andWhere('t.state = :state', { state: filter.state });
    if (filter.frameworkId) q.andWhere('t.framework_id = :frameworkId', { frameworkId: filter.frameworkId });
    if (filter.agentId) q.andWhere('t.agent_id = :agentId', { agentId: filter.agentId });
    const [rows, count] = await Promise.all([
      q.clone().orderBy('t.created_at', 'DESC').addOrderBy('t.id', 'ASC').take(limit).skip(offset).getMany(),
      cappedTotal(q, offset),
    ]);
    return { items: rows.map(toTaskDto), ...count, limit, offset };
  }

  async task(id: string): Promise<TaskDto> {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await this.db.manager.findOne(TaskEntity, { where: { id } }) : null;
    if (!row)
      throw new ArbiterException(FrameworksErrorCode.TASK_NOT_FOUND, `no task with id '${id}'; GET /api/v1/tasks lists them`, { id });
    const history = await this.db.manager.find(TaskStatusUpdateEntity, { where: { taskRef: row.id }, order: { at: 'ASC', id: 'ASC' } });
    return {
      ...toTaskDto(row),
      history: history.map((h) => ({
        state: h.state,
        reason: h.reason,
        message: h.message,
        source: h.source,
        at: h.at.toISOString(),
        acknowledgedAt: h.acknowledgedAt?.toISOString() ?? null,
      })),
    };
  }
}

function toTaskDto(t: TaskEntity): TaskDto {
  return {
    id: t.id,
    taskId: t.taskId,
    frameworkId: t.frameworkId,
    agentId: t.agentId,
    name: t.name,
    role: t.role,
    resources: t.resources,
    resourcesText: Resources.of(t.resources).toString(),
    state: t.state,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
