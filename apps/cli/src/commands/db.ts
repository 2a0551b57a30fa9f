/**
 * `arbiter db migrate|check|generate`: the control plane's schema.
 *   migrate          apply pending migrations (DATABASE_URL, or the embedded server)
 *   check            fail when the entities and the migrations disagree (on a scratch database)
 *   generate <Name>  write the next migration from the entities (on a scratch database)
 */
import type { Command } from 'commander';

type ControlPlane = typeof import('@arbiter/control-plane');

const load = (): Promise<ControlPlane> => import('@arbiter/control-plane');

async function diffOnScratch(cp: ControlPlane): Promise<{ up: string[]; down: string[] }> {
  return cp.withScratchDatabase(process.env.DATABASE_URL || undefined, async (url) => {
    const ds = cp.createDataSource(url, { poolSize: 1, applicationName: 'arbiter-db-tool' });
    await ds.initialize();
    try {
      await cp.runMigrations(ds);
      return await cp.pendingSchemaChanges(ds);
    } finally {
      await ds.destroy();
    }
  });
}

export function register(program: Command): void {
  const db = program.command('db').description("the control plane's database schema (migrations)");

  db.command('migrate')
    .description('apply pending migrations to DATABASE_URL (or the embedded server under --data-dir)')
    .option('--data-dir <dir>', 'data directory of the embedded server (ARBITER_DATA_DIR)')
    .action(async (opts: { dataDir?: string }) => {
      const cp = await load();
      const config = cp.loadConfig(process.env, { dataDir: opts.dataDir });
      const target = await cp.openDatabase(config);
      const ds = cp.createDataSource(target.url, { poolSize: 1, applicationName: 'arbiter-db-tool' });
      try {
        await ds.initialize();
        const applied = await cp.runMigrations(ds);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
      } finally {
        if (ds.isInitialized) await ds.destroy();
        await target.stop();
      }
    });

  db.command('check')
    .description('fail when the entities and the committed migrations disagree')
    .action(async () => {
      const diff = await diffOnScratch(await load());
      if (diff.up.length === 0) {
        console.log('entities and migrations agree');
        return;
      }
      console.error(`the entities differ from the migrations; \`npx arbiter db generate <Name>\` would write:\n${diff.up.join(';\n')};`);
      process.exitCode = 1;
    });

  db.command('generate')
    .description('generate the next migration from the entities (PascalCase name, e.g. AddAgentLabels)')
    .argument('<name>', 'migration name')
    .action(async (name: string) => {
      const cp = await load();
      const diff = await diffOnScratch(cp);
      if (diff.up.length === 0) {
        console.log('entities and migrations agree: nothing to generate');
        return;
      }
      const file = cp.writeMigration(name, diff);
      console.log(`wrote ${file} (${diff.up.length} statements) and registered it in migrations/index.ts`);
    });
}
