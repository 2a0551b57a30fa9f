/**
 * The master's writes of allocation cycles: a cycle with its offers and the shares after it, in
 * one statement. Their times are the database's (`now()`), not the leader's clock: a standby,
 * or a later leader, compares them with its own `now()` (an offer's age, the OFFERS_HELD
 * alert), and a leader whose clock is off must not make them look old or new.
 */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Leadership } from '../leadership/leadership.service';
import { MasterDatabase } from '../database/master-database';
import { ShareClientKind } from './allocation-share.entity';

export interface CycleRecord {
  /** How long the cycle took: it is recorded as started that long before the database's now(). */
  durationMs: number;
  trace: unknown;
  /** Seconds the cycle's offers stay outstanding, from the database's now() (0: forever). */
  offerTimeoutSeconds: number;
  offers: Array<{ id: string; frameworkId: string; agentId: string; role: string; resources: unknown }>;
  shares: Array<{ kind: ShareClientKind; client: string; role: string | null; dominantShare: number; shares: Record<string, number> }>;
}

@Injectable()
export class AllocationRepository {
  constructor(
    private readonly masterDb: MasterDatabase,
    private readonly leadership: Leadership,
  ) {}

  /** The master's pool for the current leadership term (its writes are fenced). */
  private get dataSource(): DataSource {
    return this.masterDb.dataSource;
  }

  /** Records a cycle; its offers are outstanding from then on. Resolves with the cycle's id. */
  async recordCycle(c: CycleRecord): Promise<string> {
    const [cycle]: Array<{ id: string }> = await this.dataSource.query(
      `WITH cycle AS (
         INSERT INTO allocation_cycles (started_at, duration_ms, offer_count, trace, leader)
         VALUES (now() - make_interval(secs => $1::float8 / 1000), $1, $2, $3::jsonb, $15) RETURNING id),
       offers AS (
         INSERT INTO offers (id, framework_id, agent_id, role, resources, state, cycle_id, created_at, expires_at, closed_at)
         SELECT o.id, o.framework_id, o.agent_id, o.role, o.resources::jsonb, 'OUTSTANDING', (SELECT id FROM cycle), now(),
                CASE WHEN $4::float8 > 0 THEN now() + make_interval(secs => $4::float8) END, NULL
           FROM unnest($5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[]) AS o(id, framework_id, agent_id, role, resources)),
       outstanding AS (INSERT INTO outstanding_offers (offer_id) SELECT unnest($5::uuid[])),
       shares AS (
         INSERT INTO allocation_shares (cycle_id, client_kind, client, role, dominant_share, shares)
         SELECT (SELECT id FROM cycle), s.kind::share_client_kind, s.client, s.role, s.dominant_share, s.shares::jsonb
           FROM unnest($10::text[], $11::text[], $12::text[], $13::float8[], $14::text[]) AS s(kind, client, role, dominant_share, shares))
       SELECT id FROM cycle`,
      [
        c.durationMs,
        c.offers.length,
        JSON.stringify(c.trace ?? {}),
        c.offerTimeoutSeconds,
        c.offers.map((o) => o.id),
        c.offers.map((o) => o.frameworkId),
        c.offers.map((o) => o.agentId),
        c.offers.map((o) => o.role),
        c.offers.map((o) => JSON.stringify(o.resources)),
        c.shares.map((r) => r.kind),
        c.shares.map((r) => r.client),
        c.shares.map((r) => r.role),
        c.shares.map((r) => r.dominantShare),
        c.shares.map((r) => JSON.stringify(r.shares)),
        `${this.leadership.url} (term ${this.leadership.epoch})`,
      ],
    );
    return cycle.id;
  }
}
