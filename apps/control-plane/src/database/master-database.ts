/**
 * The master's own connection pool, opened for one leadership term: each of its sessions
 * carries the term's epoch (`arbiter.epoch`), so PostgreSQL refuses its writes once a later
 * term has begun (the fence in the leadership migration). The REST API's pool carries no term
 * and is never fenced. Outside a term there is no pool: a master write fails at once.
 */
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import type { PostgresDataSourceOptions as PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';

/** Postgres error code the fence raises. */
export const FENCED_ERROR_CODE = 'AR001';

/** A master write outside a term: this replica does not lead (any more). */
export class NotLeaderError extends Error {
  constructor() {
    super('the master database is closed: this replica is not the leader');
  }
}

/**
 * Whether `err` says this replica's term is over: a write refused by the fence, or one made
 * after the pool closed. The caller is told NOT_LEADER (go to the leader), not that the control
 * plane failed.
 */
export function isNotLeader(err: unknown): boolean {
  if (err instanceof NotLeaderError) return true;
  const driver = err instanceof QueryFailedError ? (err.driverError as unknown) : err;
  return (driver as { code?: unknown } | null | undefined)?.code === FENCED_ERROR_CODE;
}

@Injectable()
export class MasterDatabase {
  private current?: DataSource;

  constructor(
    private readonly main: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The term's data source; throws outside a term. */
  get dataSource(): DataSource {
    if (!this.current?.isInitialized) throw new NotLeaderError();
    return this.current;
  }

  /** Opens a pool whose sessions carry `epoch`. */
  async open(epoch: number): Promise<void> {
    await this.close();
    const base = this.main.options as PostgresConnectionOptions;
    const extra = (base.extra as Record<string, unknown> | undefined) ?? {};
    const options: PostgresConnectionOptions = {
      ...base,
      applicationName: `arbiter-master term ${epoch}`,
      extra: {
        ...extra,
        options: `-c arbiter.epoch=${epoch}`,
        // A write that does not answer within the lease (the database is cut off) fails.
        query_timeout: Math.max(this.config.leaderLease * 1000, 10_000),
        keepAlive: true,
      },
    };
    const ds = new DataSource(options);
    await ds.initialize();
    this.current = ds;
  }

  /** Closes the pool without waiting for writes in flight (they fail, or are fenced). */
  async close(): Promise<void> {
    const ds = this.current;
    this.current = undefined;
    if (ds?.isInitialized) void ds.destroy().catch(() => undefined);
    return Promise.resolve();
  }
}
