/**
 * Allocation history: the cycles the loop recorded (offers, decision trace, dominant shares),
 * share-over-time series and exports.
 */
import { csvLine } from '../common/csv';
import { Injectable } from '@nestjs/common';
import { Resources } from '@arbiter/allocator';
import type { AllocationCycleEntity } from '../offers/allocation-cycle.entity';
import type { CappedPage } from '../common/pagination.dto';
import { ArbiterException } from '../errors/errors.exception';
import type { CycleDetailDto, CycleDto, SharePointDto } from './history.dto';
import { HistoryErrorCode } from './history.errors';
import { type CycleRow, HistoryRepository } from './history.repository';

type Trace = { entries?: Array<Record<string, unknown>>; counts?: Record<string, number>; truncated?: boolean } | null;

@Injectable()
export class HistoryService {
  constructor(private readonly repo: HistoryRepository) {}

  async cycles(
    filter: { from?: Date; to?: Date; role?: string; frameworkId?: string; agentId?: string },
    limit: number,
    offset: number,
  ): Promise<CappedPage<CycleDto>> {
    const { rows, total, totalCapped } = await this.repo.cycles(filter, limit, offset);
    return { items: rows.map(fromRow), total, totalCapped, limit, offset };
  }

  async cycle(id: string): Promise<CycleDetailDto> {
    const c = /^\d{1,18}$/.test(id) ? await this.repo.cycle(id) : null;
    if (!c)
      throw new ArbiterException(HistoryErrorCode.CYCLE_NOT_FOUND, `no allocation cycle ${id}; GET /api/v1/allocations lists them`, {
        id,
      });
    const [offers, shares] = await Promise.all([this.repo.offersOf([c.id]), this.repo.sharesOf([c.id])]);
    return {
      ...toCycleDto(c),
      offers: offers.map((o) => ({
        id: o.id,
        frameworkId: o.frameworkId,
        agentId: o.agentId,
        role: o.role,
        resources: o.resources,
        resourcesText: Resources.of(o.resources).toString(),
        state: o.state,
        cycleId: String(o.cycleId),
        createdAt: o.createdAt.toISOString(),
        closedAt: o.closedAt?.toISOString() ?? null,
      })),
      shares: shares.map((s) => ({ kind: s.clientKind, client: s.client, dominantShare: s.dominantShare })),
      trace: c.trace,
    };
  }

  /** Dominant share per cycle for roles or frameworks, oldest first (the newest `points`). */
  async shares(
    kind: 'ROLE' | 'FRAMEWORK',
    client: string | undefined,
    from: Date | undefined,
    to: Date | undefined,
    points: number,
  ): Promise<SharePointDto[]> {
    const rows = await this.repo.shares(kind, client, from, to, points);
    return rows.map((r) => ({
      cycleId: r.cycle_id,
      at: new Date(r.started_at).toISOString(),
      client: r.client,
      dominantShare: r.dominant_share,
    }));
  }

  /** Cycles with their offers and shares, for export (at most 10,000 cycles, newest). */
  async export(
    from: Date | undefined,
    to: Date | undefined,
  ): Promise<
    Array<
      CycleDto & {
        offers: Array<{ frameworkId: string; role: string; agentId: string; resources: string }>;
        shares: Record<string, number>;
      }
    >
  > {
    const cycles = (await this.repo.cyclesInRange(from, to, 10_000)).map(fromRow);
    const ids = cycles.map((c) => c.id);
    const [offers, shares] = await Promise.all([this.repo.offersOf(ids), this.repo.sharesOf(ids)]);
    const byCycle = <T extends { cycleId: string | null }>(rows: T[]) => {
      const m = new Map<string, T[]>();
      for (const r of rows) {
        const list = m.get(String(r.cycleId));
        if (list) list.push(r);
        else m.set(String(r.cycleId), [r]);
      }
      return m;
    };
    const offersOf = byCycle(offers);
    const sharesOf = byCycle(shares);
    return cycles.reverse().map((c) => ({
      ...c,
      offers: (offersOf.get(c.id) ?? []).map((o) => ({
        frameworkId: o.frameworkId,
        role: o.role,
        agentId: o.agentId,
        resources: Resources.of(o.resources).toString(),
      })),
      shares: Object.fromEntries((sharesOf.get(c.id) ?? []).map((s) => [`${s.clientKind.toLowerCase()}:${s.client}`, s.dominantShare])),
    }));
  }

  exportCsv(rows: Awaited<ReturnType<HistoryService['export']>>): string {
    const lines = ['cycle_id,started_at,duration_ms,offer_count,framework_id,role,agent_id,resources'];
    for (const c of rows) {
      if (!c.offers.length) lines.push(csvLine([c.id, c.startedAt, c.durationMs, c.offerCount, '', '', '', '']));
      for (const o of c.offers)
        lines.push(csvLine([c.id, c.startedAt, c.durationMs, c.offerCount, o.frameworkId, o.role, o.agentId, o.resources]));
    }
    return lines.join('\n') + '\n';
  }
}

const fromRow = (r: CycleRow): CycleDto => cycleDto(r.id, r.started_at, r.duration_ms, r.offer_count, r.counts);

function toCycleDto(c: AllocationCycleEntity): CycleDto {
  return cycleDto(c.id, c.startedAt, c.durationMs, c.offerCount, (c.trace as Trace)?.counts);
}

function cycleDto(
  id: string | number,
  startedAt: Date,
  // Raw rows may carry numeric columns as strings.
  durationMs: number | string,
  offerCount: number | string,
  counts: Record<string, number> | null | undefined,
): CycleDto {
  return {
    id: String(id),
    startedAt: new Date(startedAt).toISOString(),
    durationMs: Math.round(Number(durationMs) * 1000) / 1000,
    offerCount: Number(offerCount),
    ...(counts ? { reasons: counts } : {}),
  };
}
