/** Offers as operators read them: every offer made, outstanding or closed. */
import { Resources } from '@arbiter/allocator';
import { Injectable } from '@nestjs/common';
import type { CappedPage } from '../common/pagination.dto';
import type { OfferState } from './offer.entity';
import type { OfferDto } from './offers.dto';
import { OfferListRepository } from './offers.repository';

@Injectable()
export class OffersService {
  constructor(private readonly repo: OfferListRepository) {}

  async list(
    filter: { state?: OfferState; frameworkId?: string; agentId?: string },
    limit: number,
    offset: number,
  ): Promise<CappedPage<OfferDto>> {
    const { rows, total, totalCapped } = await this.repo.list(filter, limit, offset);
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
