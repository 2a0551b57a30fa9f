import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../../../migrations';
import type { EntityClass } from './database.entities';
import { SnakeNamingStrategy } from './database.naming';

export type DataSourceOverrides = Partial<{ poolSize: number; applicationName: string }>;

/**
 * The one way the control plane describes its database: the entities its modules own (the
 * composition root gathers them: src/app.module.ts), the committed migrations, snake_case names,
 * and never `synchronize` (the schema changes only through migrations).
 */
function dataSourceOptions(url: string, entities: readonly EntityClass[], overrides: DataSourceOverrides = {}): DataSourceOptions {
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
    connectTimeoutMS: 10_000,
    // gen_random_uuid() is built into PostgreSQL 13+; no extension to install.
    uuidExtension: 'pgcrypto',
  };
}

export function dataSourceFor(url: string, entities: readonly EntityClass[], overrides?: DataSourceOverrides): DataSource {
  return new DataSource(dataSourceOptions(url, entities, overrides));
}

/** The TypeORM data source, for the application's wiring. */
export { DataSource } from 'typeorm';
