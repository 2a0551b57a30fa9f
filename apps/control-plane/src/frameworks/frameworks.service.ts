/**
 * Reads of frameworks for operators (their teardown is the frameworks' lifecycle's, framework-lifecycle/).
 * Usage and dominant share come from live tasks (offers outstanding are listed separately).
 */
import { Injectable } from '@nestjs/common';
import { AllocationUsageRepository } from '../master/allocation-usage.repository';
import type { Actor } from '../auth/auth.actor';
import { AclsService } from '../acls/acls.service';
import type { Page } from '../common/pagination.dto';
import { Database } from '../database/database.service';
import { ArbiterException } from '../errors/errors.exception';
import { LiveView } from '../master/live-view';
import { type FrameworkEntity, FrameworkState } from './framework.entity';
import { FrameworksRepository } from './frameworks.repository';
import type { FrameworkDto } from './frameworks.dto';
import { FrameworksErrorCode } from './frameworks.errors';
import { ExecutorState } from '../executors/executor.entity';
import { ExecutorsService } from '../executors/executors.service';

@Injectable()
export class FrameworksService {
  constructor(
    private readonly db: Database,
    private readonly repo: FrameworksRepository,
    private readonly live: LiveView,
    private readonly acls: AclsService,
    private readonly usage: AllocationUsageRepository,
    private readonly executors: ExecutorsService,
  ) {}

  async list(filter: { state?: FrameworkState; role?: string }, limit: number, offset: number, actor: Actor): Promise<Page<FrameworkDto>> {
    const [rows, total] = await this.repo.list({ ...filter, users: this.acls.scope(actor, 'view_frameworks') }, limit, offset);
    return { items: await this.describe(rows), total, limit, offset };
  }

  /** One framework; with an actor, only if the view_frameworks ACL lets it see the framework's user. */
  async get(id: string, actor?: Actor): Promise<FrameworkDto> {
    const row = await this.repo.find(id);
    if (!row)
      throw new ArbiterException(
        FrameworksErrorCode.FRAMEWORK_NOT_FOUND,
        `no framework with id '${id}'; GET /api/v1/frameworks lists them`,
        { frameworkId: id },
      );
    if (!actor) return (await this.describe([row]))[0];
    await this.acls.authorize(actor, 'view_frameworks', row.user ?? '', `view framework ${id}`);
    const [described, executors] = await Promise.all([
      this.describe([row]),
      // Its running executors, seen as its tasks are (view_tasks).
      this.executors.list({ frameworkId: id, state: ExecutorState.RUNNING }, 500, 0, actor),
    ]);
    return Object.assign(described[0], { executors: executors.items });
  }

  private async describe(rows: FrameworkEntity[]): Promise<FrameworkDto[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const usage = await this.usage.liveByFramework(this.db.manager, ids);
    const total = await this.usage.reachableCapacity(this.db.manager);
    const live = await this.live.snapshot();
    const outstanding = live.offers;
    const offersOf = new Map<string, number>();
    for (const o of outstanding) offersOf.set(o.frameworkId, (offersOf.get(o.frameworkId) ?? 0) + 1);
    return rows.map((r) => {
      const mine = usage.get(r.id) ?? { tasks: 0, used: {} };
      const usedQ = mine.used;
      const shares: Record<string, number> = {};
      for (const [name, amount] of Object.entries(usedQ)) {
        const of = total.get(name) ?? 0;
        if (of > 0) shares[name] = Math.round((amount / of) * 1e6) / 1e6;
      }
      return {
        id: r.id,
        name: r.name,
        principal: r.principal,
        protocol: r.protocol,
        webuiUrl: r.webuiUrl,
        user: r.user,
        hostname: r.hostname,
        checkpoint: r.checkpoint,
        roles: r.roles,
        suppressedRoles: r.suppressedRoles,
        capabilities: r.capabilities,
        state: r.state,
        connected: live.connectedFrameworks.has(r.id),
        failoverTimeoutSeconds: r.failoverTimeoutSeconds,
        registeredAt: r.registeredAt.toISOString(),
        disconnectedAt: r.disconnectedAt?.toISOString() ?? null,
        completedAt: r.completedAt?.toISOString() ?? null,
        activeTasks: mine.tasks,
        outstandingOffers: offersOf.get(r.id) ?? 0,
        used: usedQ,
        shares,
        dominantShare: Math.max(0, ...Object.values(shares)),
      };
    });
  }
}
