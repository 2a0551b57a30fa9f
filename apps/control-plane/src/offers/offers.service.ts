/** Offers as operators read them: every offer made, outstanding or closed. */
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import { Resources } from '@arbiter/allocator';
import { Injectable } from '@nestjs/common';
import type { CappedPage } from '../common/pagination.dto';
import type { OfferState } from './offer.entity';
import type { OfferDto } from './offers.dto';
import { OfferListRepository } from './offers.repository';

@Injectable()
export class OffersService {
  constructor(
    private readonly repo: OfferListRepository,
    private readonly acls: AclsService,
  ) {}

  /** Offers of the frameworks and roles the actor may see (the view_frameworks and view_roles ACLs). */
  async list(
    filter: { state?: OfferState; frameworkId?: string; agentId?: string },
    limit: number,
    offset: number,
    actor: Actor,
  ): Promise<CappedPage<OfferDto>> {
    const scoped = { ...filter, users: this.acls.scope(actor, 'view_frameworks'), roles: this.acls.scope(actor, 'view_roles') };
    const { rows, total, totalCapped } = await this.repo.list(scoped, limit, offset);
    return {
      items: rows.map((o) => ({
        id: o.id,
        frameworkId: o.frameworkId,
        agentId: o.agentId,
        role: o.role,
        resources: o.resources,
        resourcesText: Resources.of(o.resources).toString(),
        state: o.state,
        cycleId: o.cycleId,
        createdAt: o.createdAt.toISOString(),
        closedAt: o.closedAt?.toISOString() ?? null,
      })),
      total,
      totalCapped,
      limit,
      offset,
    };
  }
}
