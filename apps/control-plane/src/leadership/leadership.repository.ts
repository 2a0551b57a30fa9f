/**
 * The replica's coordination connection: one PostgreSQL session of its own (not from a pool)
 * that holds the leader lock while this replica leads and receives the notifications other
 * replicas send. PostgreSQL ends the session once it has been silent for the lease
 * (idle_session_timeout), which frees the lock of a leader that was cut off or paused.
 */
import { Injectable } from '@nestjs/common';
import { Client, type Notification } from 'pg';

export type { Notification } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';

/** Session advisory lock held by the leader for its whole term. */
export const LEADER_LOCK = 7_340_000;
/** Taken shared by every fenced statement, exclusively by a new term's start (see the migration). */
export const FENCE_LOCK = 7_340_001;

export interface Term {
  epoch: number;
  url: string;
  replica: string;
  startedAt: Date;
}

interface TermRow {
  epoch: string;
  url: string;
  replica: string;
  started_at: Date;
}

const toTerm = (r: TermRow): Term => ({ epoch: Number(r.epoch), url: r.url, replica: r.replica, startedAt: r.started_at });

export class CoordinationConnection {
  private closed = false;

  private constructor(private readonly client: Client) {}

  /**
   * Connects, sets the session's idle limit to the lease and listens on `channels`;
   * `onNotification` gets what arrives, `onLost` is called once if the session ends.
   */
  static async open(options: {
    url: string;
    replica: string;
    leaseMs: number;
    channels: readonly string[];
    onNotification: (n: Notification) => void;
    onLost: (err: unknown) => void;
  }): Promise<CoordinationConnection> {
    const client = new Client({
      connectionString: options.url,
      application_name: `arbiter-coordination ${options.replica}`.slice(0, 63),
      keepAlive: true,
      connectionTimeoutMillis: options.leaseMs / 2,
      // A query that does not answer within the lease counts as a lost connection.
      query_timeout: options.leaseMs,
    });
    let lost = false;
    let connection: CoordinationConnection | undefined;
    const fail = (err: unknown) => {
      if (lost || connection?.closed) return;
      lost = true;
      options.onLost(err);
      void client.end().catch(() => undefined);
    };
    client.on('error', fail);
    client.on('end', () => fail(new Error('the coordination connection ended')));
    try {
      await client.connect();
      await client.query(`SET idle_session_timeout = ${Math.round(options.leaseMs)}`);
      for (const channel of options.channels) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      lost = true;
      await client.end().catch(() => undefined);
      throw err;
    }
    client.on('notification', options.onNotification);
    return (connection = new CoordinationConnection(client));
  }

  /** Takes the leader lock if no other session holds it. */
  async tryLeaderLock(): Promise<boolean> {
    const { rows } = await this.client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [LEADER_LOCK]);
    return rows[0].locked;
  }

  /**
   * Begins a new term (with the leader lock held): waits for fenced statements in flight to
   * finish, then records the term, whose epoch is one above every earlier one.
   */
  async beginTerm(replica: string, url: string): Promise<Term> {
    await this.client.query('BEGIN');
    try {
      await this.client.query('SELECT pg_advisory_xact_lock($1)', [FENCE_LOCK]);
      const { rows } = await this.client.query<TermRow>(
        'INSERT INTO leader_terms (replica, url) VALUES ($1, $2) RETURNING epoch, url, replica, started_at',
        [replica, url],
      );
      await this.client.query('COMMIT');
      return toTerm(rows[0]);
    } catch (err) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  /** The current term (the latest), if any replica ever led. */
  async currentTerm(): Promise<Term | undefined> {
    const { rows } = await this.client.query<TermRow>(
      'SELECT epoch, url, replica, started_at FROM leader_terms ORDER BY epoch DESC LIMIT 1',
    );
    return rows[0] ? toTerm(rows[0]) : undefined;
  }

  async listen(channel: string): Promise<void> {
    await this.client.query(`LISTEN ${channel}`);
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.client.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /** Ends the session (and with it the lock, if held). */
  async close(): Promise<void> {
    this.closed = true;
    await this.client.end().catch(() => undefined);
  }
}

/** What leadership needs of the REST API's pool: the database's URL, and NOTIFY after a commit. */
@Injectable()
export class LeadershipRepository {
  constructor(private readonly dataSource: DataSource) {}

  databaseUrl(): string {
    const url = (this.dataSource.options as PostgresDataSourceOptions).url;
    if (!url) throw new Error('the database has no URL');
    return url;
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.dataSource.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }
}
