import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { removeDataDir } from './data-dir';
import { runDatabasePrefix, STATE_ENV, testPostgres } from './postgres';

export default async function globalTeardown(): Promise<void> {
  // The first project to finish tears down what the projects shared; the others find it gone.
  if (!process.env[STATE_ENV] || !fs.existsSync(process.env[STATE_ENV])) return;
  const pg = testPostgres();
  if (pg.embeddedDir) {
    // An embedded server goes with its data directory.
    await globalThis.__arbiterEmbeddedStop?.();
    removeDataDir(pg.embeddedDir);
  } else {
    // On DATABASE_URL's server the run's databases and its template are dropped by a process of
    // their own that the run does not wait for: every DROP DATABASE waits for a checkpoint of the
    // whole server (150 of them: 18 s on an idle 2-core machine), which kept the run's end waiting.
    console.log(`\ncontrol-plane tests: the run's databases (${runDatabasePrefix(pg)}*) and its template are dropped in the background`);
    spawn(process.execPath, [path.join(__dirname, 'drop-databases.js'), pg.serverUrl, runDatabasePrefix(pg), pg.template], {
      detached: true,
      stdio: 'ignore',
    }).unref();
  }
  fs.rmSync(process.env[STATE_ENV], { force: true });
}
