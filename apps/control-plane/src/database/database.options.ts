import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../../../migrations';
import type { EntityClass } from './database.entities';
import { SnakeNamingStrategy } from './database.naming';

export type DataSourceOverrides = Partial<{
  poolSize: number;
  applicationName: string;
  /**
   * A query that has not answered after this long fails (client side: a database that went
   * silent, a partition, a pool whose connections hang), and so does waiting that long for a
   * connection. Unset: no limit, for tools and migrations whose statements may run for long.
   */
  queryTimeoutMs: number;
}>;

/**
 * The one way the control plane describes its database: the entities its modules own (the
 * composition root gathers them: src/app.module.ts), the committed migrations, snake_case names,
 * and never `synchronize` (the schema changes only through migrations).
 */
function dataSourceOptions(url: string, entities: readonly EntityClass[], overrides: DataSourceOverrides = {}): DataSourceOptions {
  const timeout = overrides.queryTimeoutMs;
  return {
    type: 'postgres',
    url,
    entities: [...entities],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'all',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    logging: false,
    poolSize: overrides.poolSize ?? 10,
    applicationName: overrides.applicationName ?? 'arbiter-control-plane',
    connectTimeoutMS: timeout ?? 10_000,
    // TCP keep-alive finds a dead peer; query_timeout a silent one.
    extra: { keepAlive: true, ...(timeout ? { query_timeout: timeout } : {}) },
    // gen_random_uuid() is built into PostgreSQL 13+; no extension to install.
    uuidExtension: 'pgcrypto',
  };
}

export function dataSourceFor(url: string, entities: readonly EntityClass[], overrides?: DataSourceOverrides): DataSource {
  return new DataSource(dataSourceOptions(url, entities, overrides));
}

/** The TypeORM data source, for the application's wiring. */
export { DataSource } from 'typeorm';
