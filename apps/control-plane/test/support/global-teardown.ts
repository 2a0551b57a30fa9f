import * as fs from 'node:fs';
import { adminQuery } from '../../src/database/database.connection';
import { removeDataDir } from './data-dir';
import { STATE_ENV, testPostgres } from './postgres';

export default async function globalTeardown(): Promise<void> {
  // The first project to finish tears down what the projects shared; the others find it gone.
  if (!process.env[STATE_ENV] || !fs.existsSync(process.env[STATE_ENV])) return;
  const pg = testPostgres();
  await adminQuery(pg.serverUrl, `DROP DATABASE IF EXISTS ${pg.template} WITH (FORCE)`).catch(() => undefined);
  await globalThis.__arbiterEmbeddedStop?.();
  if (pg.embeddedDir) removeDataDir(pg.embeddedDir);
  fs.rmSync(process.env[STATE_ENV], { force: true });
}
