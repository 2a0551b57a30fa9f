import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { adminQuery, withDatabase } from '../../src/database/database.connection';
import { startEmbeddedPostgres } from '../../src/database/database.embedded';
import { createDataSource } from '../../src/app.module';
import { migrate } from '../../src/database/database.migrations';
import { makeDataDir } from './data-dir';
import { STATE_ENV, STATE_FILE, type TestPostgres } from './postgres';

declare global {
  var __arbiterEmbeddedStop: (() => Promise<void>) | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Several Jest projects (control plane, dashboard) share one server and template per run.
  if (process.env[STATE_ENV] && fs.existsSync(process.env[STATE_ENV])) return;
  let serverUrl = process.env.DATABASE_URL;
  let embeddedDir: string | undefined;
  if (!serverUrl) {
    embeddedDir = makeDataDir('arbiter-test-pg-');
    const server = await startEmbeddedPostgres({ dataDir: embeddedDir, port: 0, ephemeral: true });
    serverUrl = server.url;
    globalThis.__arbiterEmbeddedStop = () => server.stop();
  }
  const template = `arbiter_template_${crypto.randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${template}`);
  const ds = createDataSource(withDatabase(serverUrl, template), { poolSize: 1, applicationName: 'arbiter-test-setup' });
  await ds.initialize();
  try {
    await migrate(ds);
  } finally {
    await ds.destroy();
  }
  const state: TestPostgres = { serverUrl, template, embeddedDir };
  fs.writeFileSync(STATE_FILE, JSON.stringify(state), { mode: 0o600 });
  process.env[STATE_ENV] = STATE_FILE;
  console.log(`\ncontrol-plane tests: PostgreSQL ${embeddedDir ? 'embedded' : 'from DATABASE_URL'}, template ${template}`);
}
