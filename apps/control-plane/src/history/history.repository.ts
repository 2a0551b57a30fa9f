/** Every query of the allocation history: cycles, their offers and shares. */
import { Injectable } from '@nestjs/common';
import { DataSource, In, type SelectQueryBuilder } from 'typeorm';
import { AllocationCycleEntity } from '../allocation/allocation-cycle.entity';
import { AllocationShareEntity } from '../allocation/allocation-share.entity';
import { cappedTotal } from '../database/database.paging';
import { OfferEntity } from '../offers/offer.entity';

/** A cycle without its trace (only the trace's counts: a trace can hold thousands of entries). */
export interface CycleRow {
  id: string;
  started_at: Date;
  duration_ms: number;
  offer_count: number;
  counts: Record<string, number> | null;
}

interface CycleFilter {
  from?: Date;
  to?: Date;
  role?: string;
  frameworkId?: string;
  agentId?: string;
}

@Injectable()
export class HistoryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Cycles newest first (those that offered to a role, framework or agent, when given), with a capped total. */
  async cycles(filter: CycleFilter, limit: number, offset: number): Promise<{ rows: CycleRow[]; total: number; totalCapped: boolean }> {
    const q = this.inRange(filter.from, filter.to);
    const offerFilter: string[] = [];
    const params: Record<string, string> = {};
    const byOffer = { role: 'o.role', frameworkId: 'o.framework_id', agentId: 'o.agent_id' } as const;
    for (const key of ['role', 'frameworkId', 'agentId'] as const) {
      const value = filter[key];
      if (value === undefined) continue;
      offerFilter.push(`${byOffer[key]} = :${key}`);
      params[key] = value;
    }
    if (offerFilter.length) q.andWhere(`EXISTS (SELECT 1 FROM offers o WHERE o.cycle_id = c.id AND ${offerFilter.join(' AND ')})`, params);
    const [rows, count] = await Promise.all([this.cycleRows(q.clone(), limit, offset), cappedTotal(q, offset)]);
    return { rows, ...count };
  }

  /** The newest `limit` cycles in a time range, newest first. */
  cyclesInRange(from: Date | undefined, to: Date | undefined, limit: number): Promise<CycleRow[]> {
    return this.cycleRows(this.inRange(from, to), limit);
  }

  cycle(id: string): Promise<AllocationCycleEntity | null> {
    return this.dataSource.manager.findOne(AllocationCycleEntity, { where: { id } });
  }

  /** The newest `n` cycles with their traces. */
  recentCycles(n: number): Promise<AllocationCycleEntity[]> {
    return this.dataSource.manager.find(AllocationCycleEntity, { order: { id: 'DESC' }, take: n });
  }

  /** Offers of these cycles (of one framework, newest first, when given). */
  offersOf(cycleIds: string[], frameworkId?: string): Promise<OfferEntity[]> {
    if (!cycleIds.length) return Promise.resolve([]);
    return this.dataSource.manager.find(OfferEntity, {
      where: { cycleId: In(cycleIds), ...(frameworkId ? { frameworkId } : {}) },
      order: frameworkId ? { createdAt: 'DESC' } : { frameworkId: 'ASC', agentId: 'ASC' },
    });
  }

  sharesOf(cycleIds: string[]): Promise<AllocationShareEntity[]> {
    if (!cycleIds.length) return Promise.resolve([]);
    return this.dataSource.manager.find(AllocationShareEntity, {
      where: { cycleId: In(cycleIds) },
      order: { clientKind: 'ASC', client: 'ASC' },
    });
  }

  /** Dominant share per cycle for roles or frameworks, oldest first (the newest `points`). */
  shares(
    kind: 'ROLE' | 'FRAMEWORK',
    client: string | undefined,
    from: Date | undefined,
    to: Date | undefined,
    points: number,
  ): Promise<Array<{ cycle_id: string; started_at: Date; client: string; dominant_share: number }>> {
    return this.dataSource.manager.query(
      `SELECT * FROM (
         SELECT s.cycle_id, c.started_at, s.client, s.dominant_share FROM allocation_shares s JOIN allocation_cycles c ON c.id = s.cycle_id
          WHERE s.client_kind = $1 AND ($2::text IS NULL OR s.client = $2) AND ($3::timestamptz IS NULL OR c.started_at >= $3) AND ($4::timestamptz IS NULL OR c.started_at < $4)
          ORDER BY s.cycle_id DESC, s.client LIMIT $5) t
       ORDER BY cycle_id, client`,
      [kind, client ?? null, from ?? null, to ?? null, points],
    );
  }

  /** The OS user of each of these frameworks ('' when it named none); unknown ids are left out. */
  async frameworkUsers(ids: string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows: Array<{ id: string; user: string }> = await this.dataSource.manager.query(
      `SELECT id, COALESCE("user", '') AS "user" FROM frameworks WHERE id = ANY($1)`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.user]));
  }

  /** Frameworks' dominant shares in the latest recorded cycle, lowest first. */
  latestFrameworkShares(): Promise<Array<{ client: string; dominant_share: number }>> {
    return this.dataSource.manager.query(
      `SELECT client, dominant_share FROM allocation_shares WHERE client_kind = 'FRAMEWORK' AND cycle_id = (SELECT max(cycle_id) FROM allocation_shares) ORDER BY dominant_share`,
    );
  }

  private inRange(from: Date | undefined, to: Date | undefined): SelectQueryBuilder<AllocationCycleEntity> {
    const q = this.dataSource.manager.createQueryBuilder(AllocationCycleEntity, 'c');
    if (from) q.andWhere('c.started_at >= :from', { from });
    if (to) q.andWhere('c.started_at < :to', { to });
    return q;
  }

  private cycleRows(q: SelectQueryBuilder<AllocationCycleEntity>, limit: number, offset = 0): Promise<CycleRow[]> {
    return q
      .select([
        'c.id AS id',
        'c.started_at AS started_at',
        'c.duration_ms AS duration_ms',
        'c.offer_count AS offer_count',
        "c.trace -> 'counts' AS counts",
      ])
      .orderBy('c.id', 'DESC')
      .limit(limit)
      .offset(offset)
      .getRawMany();
  }
}
