import * as fs from 'node:fs';
import { Client } from 'pg';
import { adminQuery } from '../../src/database/database.connection';
import { removeDataDir } from './data-dir';
import { runDatabasePrefix, STATE_ENV, type TestPostgres, testPostgres } from './postgres';

/**
 * Drops the run's test databases (see freshDatabase), several at once: each DROP DATABASE waits
 * for a checkpoint, and drops waiting together share one.
 */
async function dropRunDatabases(pg: TestPostgres): Promise<void> {
  const client = new Client({ connectionString: pg.serverUrl });
  await client.connect();
  let names: string[];
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [
      runDatabasePrefix(pg),
    ]);
    names = rows.map((r) => r.datname);
  } finally {
    await client.end();
  }
  const drop = async (): Promise<void> => {
    for (let name = names.pop(); name !== undefined; name = names.pop())
      await adminQuery(pg.serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  };
  await Promise.all(Array.from({ length: 8 }, drop));
}

export default async function globalTeardown(): Promise<void> {
  // The first project to finish tears down what the projects shared; the others find it gone.
  if (!process.env[STATE_ENV] || !fs.existsSync(process.env[STATE_ENV])) return;
  const pg = testPostgres();
  // An embedded server goes with its data directory; on DATABASE_URL's, the run's databases are dropped.
  if (!pg.embeddedDir) await dropRunDatabases(pg);
  await adminQuery(pg.serverUrl, `DROP DATABASE IF EXISTS ${pg.template} WITH (FORCE)`).catch(() => undefined);
  await globalThis.__arbiterEmbeddedStop?.();
  if (pg.embeddedDir) removeDataDir(pg.embeddedDir);
  fs.rmSync(process.env[STATE_ENV], { force: true });
}
