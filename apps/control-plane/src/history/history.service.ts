/**
 * Allocation history: the cycles the loop recorded (offers, decision trace, dominant shares),
 * share-over-time series and exports. A caller sees the offers, shares and trace entries of the
 * roles and frameworks its view_roles and view_frameworks ACLs allow (a cycle's time, duration,
 * offer count and reason counts are the cluster's).
 */
import { csvLine } from '../common/csv';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import { PrincipalKind } from '../auth/principal.entity';
import { Injectable } from '@nestjs/common';
import { Resources } from '@arbiter/allocator';
import type { AllocationCycleEntity } from '../allocation/allocation-cycle.entity';
import { ShareClientKind } from '../allocation/allocation-share.entity';
import type { CappedPage } from '../common/pagination.dto';
import { ArbiterException } from '../errors/errors.exception';
import type { CycleDetailDto, CycleDto, SharePointDto } from './history.dto';
import { HistoryErrorCode } from './history.errors';
import { type CycleRow, HistoryRepository } from './history.repository';

type Trace = { entries?: Array<Record<string, unknown>>; counts?: Record<string, number>; truncated?: boolean } | null;

/** Which roles and frameworks a caller may see in the history. */
interface HistoryView {
  role(role: string): boolean;
  framework(id: string): boolean;
}

const EVERYTHING: HistoryView = { role: () => true, framework: () => true };

@Injectable()
export class HistoryService {
  constructor(
    private readonly repo: HistoryRepository,
    private readonly acls: AclsService,
  ) {}

  /** What the actor may see of these frameworks and of every role (view_frameworks by the framework's user, view_roles). */
  private async view(actor: Actor | undefined, frameworkIds: Iterable<string>): Promise<HistoryView> {
    if (actor?.kind === undefined || actor.kind === null || actor.kind === PrincipalKind.ADMIN) return EVERYTHING;
    const users = await this.repo.frameworkUsers([...new Set(frameworkIds)]);
    return {
      role: (role) => this.acls.allows(actor, 'view_roles', role),
      framework: (id) => this.acls.allows(actor, 'view_frameworks', users.get(id) ?? ''),
    };
  }

  async cycles(
    filter: { from?: Date; to?: Date; role?: string; frameworkId?: string; agentId?: string },
    limit: number,
    offset: number,
    actor?: Actor,
  ): Promise<CappedPage<CycleDto>> {
    // Which cycles offered to a role or framework out of the caller's view is not its to know.
    const view = await this.view(actor, filter.frameworkId ? [filter.frameworkId] : []);
    if ((filter.role && !view.role(filter.role)) || (filter.frameworkId && !view.framework(filter.frameworkId)))
      return { items: [], total: 0, totalCapped: false, limit, offset };
    const { rows, total, totalCapped } = await this.repo.cycles(filter, limit, offset);
    return { items: rows.map(fromRow), total, totalCapped, limit, offset };
  }

  async cycle(id: string, actor?: Actor): Promise<CycleDetailDto> {
    const c = /^\d{1,18}$/.test(id) ? await this.repo.cycle(id) : null;
    if (!c)
      throw new ArbiterException(HistoryErrorCode.CYCLE_NOT_FOUND, `no allocation cycle ${id}; GET /api/v1/allocations lists them`, {
        id,
      });
    const [allOffers, allShares] = await Promise.all([this.repo.offersOf([c.id]), this.repo.sharesOf([c.id])]);
    const trace = c.trace as Trace;
    const entries = trace?.entries ?? [];
    const view = await this.view(actor, [
      ...allOffers.map((o) => o.frameworkId),
      ...allShares.filter((s) => s.clientKind === ShareClientKind.FRAMEWORK).map((s) => s.client),
      ...entries.flatMap((e) => (typeof e.framework === 'string' ? [e.framework] : [])),
    ]);
    const offers = allOffers.filter((o) => view.role(o.role) && view.framework(o.frameworkId));
    const shares = allShares.filter((s) => (s.clientKind === ShareClientKind.ROLE ? view.role(s.client) : view.framework(s.client)));
    const visible = (e: Record<string, unknown>) =>
      (typeof e.role !== 'string' || view.role(e.role)) && (typeof e.framework !== 'string' || view.framework(e.framework));
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
      trace: view === EVERYTHING || !trace ? c.trace : { ...trace, entries: entries.filter(visible) },
    };
  }

  /** Dominant share per cycle for roles or frameworks, oldest first (the newest `points`). */
  async shares(
    kind: 'ROLE' | 'FRAMEWORK',
    client: string | undefined,
    from: Date | undefined,
    to: Date | undefined,
    points: number,
    actor?: Actor,
  ): Promise<SharePointDto[]> {
    const rows = await this.repo.shares(kind, client, from, to, points);
    const view = await this.view(actor, kind === 'FRAMEWORK' ? rows.map((r) => r.client) : []);
    const visible = (client: string) => (kind === 'ROLE' ? view.role(client) : view.framework(client));
    return rows
      .filter((r) => visible(r.client))
      .map((r) => ({
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
    actor?: Actor,
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
    const [allOffers, allShares] = await Promise.all([this.repo.offersOf(ids), this.repo.sharesOf(ids)]);
    const view = await this.view(actor, [
      ...allOffers.map((o) => o.frameworkId),
      ...allShares.filter((s) => s.clientKind === ShareClientKind.FRAMEWORK).map((s) => s.client),
    ]);
    const offers = allOffers.filter((o) => view.role(o.role) && view.framework(o.frameworkId));
    const shares = allShares.filter((s) => (s.clientKind === ShareClientKind.ROLE ? view.role(s.client) : view.framework(s.client)));
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
