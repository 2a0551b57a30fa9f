import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

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
}
