/**
 * The test run's PostgreSQL: DATABASE_URL's server when set (CI points it at the machine's
 * server), otherwise an embedded server started for the run. Global setup migrates a template
 * database once; each test file copies it (CREATE DATABASE ... TEMPLATE), which takes
 * milliseconds and gives every file the real schema and nothing else.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { adminQuery, withDatabase } from '../../src/database/database.connection';

export interface TestPostgres {
  /** URL of the server's maintenance database (postgres). */
  serverUrl: string;
  template: string;
  /** Data directory of the embedded server, when one was started. */
  embeddedDir?: string;
}

/** Where global setup leaves the run's server for the test files (workers are separate processes). */
export const STATE_FILE = path.join(os.tmpdir(), `arbiter-test-postgres-${process.ppid}-${process.pid}.json`);
export const STATE_ENV = 'ARBITER_TEST_POSTGRES';

export function testPostgres(): TestPostgres {
  const file = process.env[STATE_ENV];
  if (!file || !fs.existsSync(file)) throw new Error('the control-plane test setup did not run (jest globalSetup)');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as TestPostgres;
}

/** The start of the names of the run's test databases (its template's suffix tells the run's apart). */
export function runDatabasePrefix(pg: TestPostgres): string {
  return `arbiter_test_${pg.template.replace(/^arbiter_template_/, '')}_`;
}

/**
 * A new database copied from the migrated template. `drop` hands it back: the run's databases
 * are dropped together when the run ends (global teardown), not one by one as files end, since
 * PostgreSQL makes every DROP DATABASE wait for a checkpoint of the whole server, which flushes
 * what every other test has written meanwhile (seconds on a loaded machine, and each test file's
 * last hook waited on it).
 */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const pg = testPostgres();
  const name = `${runDatabasePrefix(pg)}${crypto.randomBytes(6).toString('hex')}`;
  await adminQuery(pg.serverUrl, `CREATE DATABASE ${name} TEMPLATE ${pg.template}`);
  return { url: withDatabase(pg.serverUrl, name), drop: () => Promise.resolve() };
}
