import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../../../migrations';
import { ENTITIES } from './database.entities';
import { SnakeNamingStrategy } from './database.naming';

/**
 * The one way the control plane describes its database: entities, the committed migrations,
 * snake_case names, and never `synchronize` (the schema changes only through migrations).
 */
export function dataSourceOptions(url: string, overrides: Partial<{ poolSize: number; applicationName: string }> = {}): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
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

export function createDataSource(url: string, overrides?: Parameters<typeof dataSourceOptions>[1]): DataSource {
  return new DataSource(dataSourceOptions(url, overrides));
}

/** The TypeORM data source, for the application's wiring. */
export { DataSource } from 'typeorm';
