/**
 * Allocation history: the cycles the loop recorded (offers, decision trace, dominant shares),
 * share-over-time series, exports, and "why did this framework (not) get offers?".
 */
import { Injectable } from '@nestjs/common';
import { In, type SelectQueryBuilder } from 'typeorm';
import { Resources } from '@arbiter/allocator';
import { AllocationCycleEntity } from '../allocation/allocation-cycle.entity';
import { AllocationShareEntity } from '../allocation/allocation-share.entity';
import { type CappedPage, cappedTotal } from '../common/pagination.dto';
import { Database } from '../database/database.service';
import { ArbiterException } from '../errors/errors.exception';
import { FrameworkEntity, FrameworkState } from '../frameworks/framework.entity';
import { FrameworksErrorCode } from '../frameworks/frameworks.errors';
import { ClusterState } from '../kernel/cluster-state';
import { OfferEntity } from '../offers/offer.entity';
import type { CycleDetailDto, CycleDto, ExplainDto, SharePointDto } from './history.dto';

type Trace = { entries?: Array<Record<string, unknown>>; counts?: Record<string, number>; truncated?: boolean } | null;

const fmt = (q: unknown) =>
  q && typeof q === 'object'
    ? Object.entries(q as Record<string, number>)
        .map(([k, v]) => `${k} ${Math.round(v * 1000) / 1000}`)
        .join(', ') || 'nothing'
    : String(q);

@Injectable()
export class HistoryService {
  constructor(
    private readonly db: Database,
    private readonly master: ClusterState,
  ) {}

  async cycles(
    filter: { from?: Date; to?: Date; role?: string; frameworkId?: string; agentId?: string },
    limit: number,
    offset: number,
  ): Promise<CappedPage<CycleDto>> {
    const q = this.db.manager.createQueryBuilder(AllocationCycleEntity, 'c');
    if (filter.from) q.andWhere('c.started_at >= :from', { from: filter.from });
    if (filter.to) q.andWhere('c.started_at < :to', { to: filter.to });
    const offerFilter: string[] = [];
    const params: Record<string, string> = {};
    if (filter.role) (offerFilter.push('o.role = :role'), (params.role = filter.role));
    if (filter.frameworkId) (offerFilter.push('o.framework_id = :frameworkId'), (params.frameworkId = filter.frameworkId));
    if (filter.agentId) (offerFilter.push('o.agent_id = :agentId'), (params.agentId = filter.agentId));
    if (offerFilter.length) q.andWhere(`EXISTS (SELECT 1 FROM offers o WHERE o.cycle_id = c.id AND ${offerFilter.join(' AND ')})`, params);
    const [items, count] = await Promise.all([this.cycleRows(q.clone(), limit, offset), cappedTotal(q, offset)]);
    return { items, ...count, limit, offset };
  }

  /** Cycles newest first, without their traces (but with the traces' counts): a trace can hold thousands of entries. */
  private async cycleRows(q: SelectQueryBuilder<AllocationCycleEntity>, limit: number, offset = 0): Promise<CycleDto[]> {
    const rows: Array<{ id: string; started_at: Date; duration_ms: number; offer_count: number; counts: Record<string, number> | null }> =
      await q
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
    return rows.map((r) => cycleDto(r.id, r.started_at, r.duration_ms, r.offer_count, r.counts));
  }

  async cycle(id: string): Promise<CycleDetailDto> {
    const c = /^\d{1,18}$/.test(id) ? await this.db.manager.findOne(AllocationCycleEntity, { where: { id } }) : null;
    if (!c)
      throw new ArbiterException(FrameworksErrorCode.CYCLE_NOT_FOUND, `no allocation cycle ${id}; GET /api/v1/allocations lists them`, {
        id,
      });
    const offers = await this.db.manager.find(OfferEntity, { where: { cycleId: c.id }, order: { frameworkId: 'ASC', agentId: 'ASC' } });
    const shares = await this.db.manager.find(AllocationShareEntity, {
      where: { cycleId: c.id },
      order: { clientKind: 'ASC', client: 'ASC' },
    });
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
    const rows: Array<{ cycle_id: string; started_at: Date; client: string; dominant_share: number }> = await this.db.manager.query(
      `SELECT * FROM (
         SELECT s.cycle_id, c.started_at, s.client, s.dominant_share FROM allocation_shares s JOIN allocation_cycles c ON c.id = s.cycle_id
          WHERE s.client_kind = $1 AND ($2::text IS NULL OR s.client = $2) AND ($3::timestamptz IS NULL OR c.started_at >= $3) AND ($4::timestamptz IS NULL OR c.started_at < $4)
          ORDER BY s.cycle_id DESC, s.client LIMIT $5) t
       ORDER BY cycle_id, client`,
      [kind, client ?? null, from ?? null, to ?? null, points],
    );
    return rows.map((r) => ({
      cycleId: String(r.cycle_id),
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
    const q = this.db.manager.createQueryBuilder(AllocationCycleEntity, 'c');
    if (from) q.andWhere('c.started_at >= :from', { from });
    if (to) q.andWhere('c.started_at < :to', { to });
    const cycles = await this.cycleRows(q, 10_000);
    const ids = cycles.map((c) => c.id);
    const offers = ids.length ? await this.db.manager.find(OfferEntity, { where: { cycleId: In(ids) } }) : [];
    const shares = ids.length ? await this.db.manager.find(AllocationShareEntity, { where: { cycleId: In(ids) } }) : [];
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
    const esc = (v: unknown) => {
      const s = String(v ?? '');
      return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    };
    const lines = ['cycle_id,started_at,duration_ms,offer_count,framework_id,role,agent_id,resources'];
    for (const c of rows) {
      if (!c.offers.length) lines.push([c.id, c.startedAt, c.durationMs, c.offerCount, '', '', '', ''].map(esc).join(','));
      for (const o of c.offers)
        lines.push([c.id, c.startedAt, c.durationMs, c.offerCount, o.frameworkId, o.role, o.agentId, o.resources].map(esc).join(','));
    }
    return lines.join('\n') + '\n';
  }

  /** Why a framework got, or did not get, offers in the recent recorded cycles. */
  async explain(frameworkId: string, cycles: number): Promise<ExplainDto> {
    const fw = await this.db.manager.findOne(FrameworkEntity, { where: { id: frameworkId } });
    if (!fw) throw new ArbiterException(FrameworksErrorCode.FRAMEWORK_NOT_FOUND, `no framework with id '${frameworkId}'`, { frameworkId });
    const recent = await this.db.manager.find(AllocationCycleEntity, { order: { id: 'DESC' }, take: cycles });
    const ids = recent.map((c) => c.id);
    const offers = ids.length
      ? await this.db.manager.find(OfferEntity, { where: { cycleId: In(ids), frameworkId }, order: { createdAt: 'DESC' } })
      : [];
    const reasons: Record<string, number> = {};
    const examples: Array<Record<string, unknown>> = [];
    const agentWide: Record<string, number> = {};
    for (const c of recent) {
      for (const e of (c.trace as Trace)?.entries ?? []) {
        if (e.framework === frameworkId) {
          reasons[String(e.reason)] = (reasons[String(e.reason)] ?? 0) + 1;
          if (examples.length < 50) examples.push({ cycleId: String(c.id), ...e });
        } else if (!('framework' in e) && !('role' in e)) agentWide[String(e.reason)] = (agentWide[String(e.reason)] ?? 0) + 1;
      }
    }
    const summary: string[] = [];
    const connected = this.master.isFrameworkConnected(frameworkId);
    if (fw.state === FrameworkState.COMPLETED)
      summary.push(`The framework completed at ${fw.completedAt?.toISOString()}; completed frameworks get no offers.`);
    else if (!connected)
      summary.push(
        `The framework is not connected${fw.disconnectedAt ? ` (since ${fw.disconnectedAt.toISOString()})` : ''}; it gets no offers until it subscribes again.`,
      );
    if (fw.suppressedRoles.length)
      summary.push(
        `It suppressed offers for ${fw.suppressedRoles.map((r) => `'${r}'`).join(', ')}; it gets none for those roles until it revives them.`,
      );
    summary.push(
      offers.length
        ? `It received ${offers.length} offer${offers.length === 1 ? '' : 's'} in the last ${recent.length} recorded cycles, the latest at ${offers[0].createdAt.toISOString()} (${Resources.of(offers[0].resources).toString()} on agent ${offers[0].agentId}).`
        : `It received no offers in the last ${recent.length} recorded cycles.`,
    );
    const latest = (reason: string) => examples.find((e) => e.reason === reason) ?? {};
    const sentences: Record<string, (n: number, e: Record<string, unknown>) => string> = {
      FRAMEWORK_FILTERED: (n, e) =>
        `${n} time(s) an agent was skipped because the framework declined its resources with a filter (refuse_seconds); e.g. agent ${e.agent} was filtered until t=${Math.round(Number(e.until) * 10) / 10} s on the allocator's clock. Revive to clear filters.`,
      FRAMEWORK_SUPPRESSED: (n) => `${n} time(s) passed over because offers were suppressed for the role.`,
      FRAMEWORK_INACTIVE: (n) => `${n} time(s) passed over because the framework was disconnected.`,
      ROLE_AT_QUOTA_LIMIT: (n, e) =>
        `${n} offer(s) were cut because role '${e.role}' is at its quota limit (limit ${fmt(e.limit)}; consumed ${fmt(e.consumed)}).`,
      HEADROOM_RESERVED: (n, e) =>
        `${n} offer(s) were cut to keep resources free for other roles' unmet quota guarantees (needed ${fmt(e.required)}; unallocated ${fmt(e.available)}).`,
      MISSING_CAPABILITY: (n, e) =>
        `${n} time(s) an agent was skipped because it has ${e.capability === 'GPU_RESOURCES' ? 'GPUs' : 'resources'} and the framework lacks the ${e.capability} capability.`,
      BELOW_MIN_ALLOCATABLE: (n, e) =>
        `${n} time(s) what was left on an agent (${fmt(e.leftover)}) was below the minimum allocatable resources.`,
      NO_QUOTA_GUARANTEE_ON_AGENT: (n, e) =>
        `${n} time(s) an agent had none of what role '${e.role}' still needs for its guarantee (${fmt(e.unmet)}).`,
    };
    for (const [reason, n] of Object.entries(reasons).sort(([, a], [, b]) => b - a))
      summary.push((sentences[reason] ?? ((k: number) => `${k} time(s): ${reason}.`))(n, latest(reason)));
    const skipped = Object.entries(agentWide).filter(([r]) =>
      ['AGENT_NOT_WHITELISTED', 'AGENT_DEACTIVATED', 'AGENT_IN_MAINTENANCE'].includes(r),
    );
    if (skipped.length)
      summary.push(
        `For every framework, agents were skipped: ${skipped.map(([r, n]) => `${n} × ${r.toLowerCase().replace(/_/g, ' ')}`).join(', ')}.`,
      );
    if (!offers.length && !Object.keys(reasons).length && connected && !fw.suppressedRoles.length) {
      const shares = await this.db.manager.query(
        `SELECT client, dominant_share FROM allocation_shares WHERE client_kind = 'FRAMEWORK' AND cycle_id = (SELECT max(cycle_id) FROM allocation_shares) ORDER BY dominant_share`,
      );
      const mine = (shares as Array<{ client: string; dominant_share: number }>).find((s) => s.client === frameworkId);
      summary.push(
        `No decision in those cycles concerned it: the resources went to frameworks ahead of it in DRF order, or nothing was free.` +
          (mine
            ? ` Its dominant share in the latest cycle was ${Math.round(mine.dominant_share * 1000) / 1000}; lower shares are served first.`
            : ''),
      );
    }
    return { frameworkId, summary, cyclesExamined: recent.length, offersReceived: offers.length, reasons, examples };
  }
}

function toCycleDto(c: AllocationCycleEntity): CycleDto {
  return cycleDto(c.id, c.startedAt, c.durationMs, c.offerCount, (c.trace as Trace)?.counts);
}

function cycleDto(
  id: string | number,
  startedAt: Date,
  durationMs: number,
  offerCount: number,
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
