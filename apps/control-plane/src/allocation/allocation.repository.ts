/** The master's writes of allocation cycles: a cycle with its offers and the shares after it, in one statement. */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Leadership } from '../leadership/leadership.service';
import { MasterDatabase } from '../database/master-database';
import { ShareClientKind } from './allocation-share.entity';

export interface CycleRecord {
  startedAt: Date;
  durationMs: number;
  trace: unknown;
  /** When the cycle's offers expire (null: never). */
  expiresAt: Date | null;
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
         INSERT INTO allocation_cycles (started_at, duration_ms, offer_count, trace, leader) VALUES ($1, $2, $3, $4::jsonb, $16) RETURNING id),
       offers AS (
         INSERT INTO offers (id, framework_id, agent_id, role, resources, state, cycle_id, created_at, expires_at, closed_at)
         SELECT o.id, o.framework_id, o.agent_id, o.role, o.resources::jsonb, 'OUTSTANDING', (SELECT id FROM cycle), $1, $5, NULL
           FROM unnest($6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[]) AS o(id, framework_id, agent_id, role, resources)),
       outstanding AS (INSERT INTO outstanding_offers (offer_id) SELECT unnest($6::uuid[])),
       shares AS (
         INSERT INTO allocation_shares (cycle_id, client_kind, client, role, dominant_share, shares)
         SELECT (SELECT id FROM cycle), s.kind::share_client_kind, s.client, s.role, s.dominant_share, s.shares::jsonb
           FROM unnest($11::text[], $12::text[], $13::text[], $14::float8[], $15::text[]) AS s(kind, client, role, dominant_share, shares))
       SELECT id FROM cycle`,
      [
        c.startedAt,
        c.durationMs,
        c.offers.length,
        JSON.stringify(c.trace ?? {}),
        c.expiresAt,
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
