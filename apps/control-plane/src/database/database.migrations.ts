/**
 * Migrations: running the committed ones, and asking TypeORM's schema builder what SQL would
 * bring the database to the entities. On a freshly migrated database that SQL must be empty;
 * otherwise it is the body of the next migration (`arbiter db generate <Name>`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';

export const MIGRATIONS_DIR = path.resolve(__dirname, '../../../../migrations');

export interface SchemaDiff {
  up: string[];
  down: string[];
}

export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'all' });
  return applied.map((m) => m.name);
}

/**
 * SQL that would make the database match the entities (up) and undo that (down, in order).
 * TypeORM's schema builder reads the tables with queries sent side by side on its one
 * connection, which pg deprecates (a warning on every `arbiter db check`) and pg 9 will refuse:
 * its connection's queries go one after another here (see oneAtATime).
 */
export async function pendingSchemaChanges(dataSource: DataSource): Promise<SchemaDiff> {
  const sql = await oneAtATime(dataSource, () => dataSource.driver.createSchemaBuilder().log());
  return {
    up: sql.upQueries.map((q) => q.query),
    down: sql.downQueries.map((q) => q.query).reverse(),
  };
}

/**
 * Runs `body` with each query runner the data source makes meanwhile sending its queries one
 * after another: a query starts once the one before it has ended, as pg wants of one connection.
 */
async function oneAtATime<T>(dataSource: DataSource, body: () => Promise<T>): Promise<T> {
  const create = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (...args: Parameters<DataSource['createQueryRunner']>) => {
    const runner = create(...args);
    const query = runner.query.bind(runner);
    let previous: Promise<unknown> = Promise.resolve();
    runner.query = ((...q: Parameters<typeof query>) => {
      const next = previous.then(() => query(...q));
      previous = next.catch(() => undefined);
      return next;
    }) as typeof runner.query;
    return runner;
  };
  try {
    return await body();
  } finally {
    dataSource.createQueryRunner = create;
  }
}

function literal(query: string): string {
  return '`' + query.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';
}

/** Source of a migration class, in TypeORM's generated style. */
export function migrationSource(className: string, timestamp: number, diff: SchemaDiff): string {
  const lines = (qs: string[]) => qs.map((q) => `    await queryRunner.query(${literal(q)});`).join('\n');
  return `import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ${className}${timestamp} implements MigrationInterface {
  name = '${className}${timestamp}';

  public async up(queryRunner: QueryRunner): Promise<void> {
${lines(diff.up)}
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
${lines(diff.down)}
  }
}
`;
}

/**
 * Writes `<timestamp>-<Name>.ts` into the migrations directory and registers it in
 * migrations/index.ts (the list TypeORM runs, in order). Returns the file's path.
 */
export function writeMigration(name: string, diff: SchemaDiff, timestamp = Date.now(), dir = MIGRATIONS_DIR): string {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) throw new Error(`migration name '${name}' must be PascalCase, e.g. AddAgentLabels`);
  const file = path.join(dir, `${timestamp}-${name}.ts`);
  fs.writeFileSync(file, migrationSource(name, timestamp, diff));
  const indexFile = path.join(dir, 'index.ts');
  const index = fs.readFileSync(indexFile, 'utf8');
  const importLine = `import { ${name}${timestamp} } from './${timestamp}-${name}';\n`;
  const updated = index
    .replace(/(\/\/ migrations:imports\n)/, `$1${importLine}`)
    .replace(/(\n)(\s*\/\/ migrations:list)/, `$1  ${name}${timestamp},\n$2`);
  if (updated === index) throw new Error(`${indexFile} lacks the '// migrations:imports' and '// migrations:list' markers`);
  fs.writeFileSync(indexFile, updated);
  return file;
}

/** Serialises migrations between control planes starting on the same database. */
const MIGRATION_LOCK = 7_202_611;

/**
 * Applies the committed migrations, one control plane at a time: the lock is held on a
 * connection of its own, so the data source's pool (even of one) stays free for the work.
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const lock = new Client({ connectionString: (dataSource.options as { url: string }).url, connectionTimeoutMillis: 10_000 });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return await runMigrations(dataSource);
  } finally {
    await lock.end().catch(() => undefined);
  }
}
