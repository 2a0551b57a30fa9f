import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { OUTSTANDING_OFFERS_SQL } from './allocation-usage.repository';
import { type RevocableUsage, sumRevocable } from './revocable';
import { TERMINAL_TASK_STATES_SQL } from './task-state';

/** Rows whose resources hold a revocable entry (jsonb containment: any element with revocable true). */
const REVOCABLE = `resources @> '[{"revocable": true}]'::jsonb`;

/** A standby's view of the live cluster, from what the leader keeps in the database. */
@Injectable()
export class LiveViewRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Frameworks subscribed to the leader (it marks them ACTIVE while connected). */
  async connectedFrameworks(): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(`SELECT id FROM frameworks WHERE state = 'ACTIVE'`);
    return rows.map((r) => r.id);
  }

  /** Reachable agents the leader has recorded a sign of life from within `withinSeconds`. */
  async recentlySeenAgents(withinSeconds: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM agents WHERE status = 'REACHABLE' AND last_seen_at > now() - make_interval(secs => $1)`,
      [withinSeconds],
    );
    return rows.map((r) => r.id);
  }

  /** Offers outstanding, with their age. */
  async outstandingOffers(): Promise<Array<{ frameworkId: string; ageMs: number }>> {
    const rows: Array<{ framework_id: string; age_ms: string }> = await this.dataSource.query(
      `SELECT o.framework_id, EXTRACT(EPOCH FROM now() - o.created_at) * 1000 AS age_ms
         FROM offers o JOIN outstanding_offers x ON x.offer_id = o.id`,
    );
    return rows.map((r) => ({ frameworkId: r.framework_id, ageMs: Number(r.age_ms) }));
  }

  /** Revocable resources on reachable agents of these ids: their totals, what live tasks and running executors hold, what outstanding offers hold. */
  async revocable(agentIds: readonly string[]): Promise<Map<string, RevocableUsage>> {
    const rows = (from: string): Promise<Array<{ agentId: string; resources: ResourceEntry[] }>> =>
      this.dataSource.query(`SELECT agent_id AS "agentId", resources FROM (${from}) src WHERE agent_id = ANY($1) AND ${REVOCABLE}`, [
        agentIds,
      ]);
    const [totals, tasks, executors, offers] = await Promise.all([
      rows(`SELECT id AS agent_id, resources FROM agents WHERE status = 'REACHABLE'`),
      rows(`SELECT agent_id, resources FROM tasks WHERE state NOT IN ${TERMINAL_TASK_STATES_SQL}`),
      rows(`SELECT agent_id, resources FROM executors WHERE state = 'RUNNING'`),
      rows(OUTSTANDING_OFFERS_SQL),
    ]);
    const on = (list: typeof totals, id: string) => sumRevocable(list.filter((r) => r.agentId === id).map((r) => r.resources));
    const reachable = new Set(totals.map((r) => r.agentId));
    return new Map(
      agentIds.map((id) => [
        id,
        reachable.has(id)
          ? { total: on(totals, id), used: on([...tasks, ...executors], id), offered: on(offers, id) }
          : { total: {}, used: {}, offered: {} },
      ]),
    );
  }
}
