import { createDataSource } from '../../src/database/database.options';
import { pendingSchemaChanges } from '../../src/database/database.migrations';
import { MIGRATIONS } from '../../../../migrations';
import { arrayContaining } from '../support/matchers';
import { freshDatabase } from '../support/postgres';

describe('schema', () => {
  it('the committed migrations produce exactly the entities (`arbiter db check`)', async () => {
    const db = await freshDatabase();
    const ds = createDataSource(db.url, { poolSize: 1 });
    await ds.initialize();
    try {
      const diff = await pendingSchemaChanges(ds);
      // When this fails, run `npx arbiter db generate <Name>` and commit the migration.
      expect(diff.up).toEqual([]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });

  it('every migration can be undone, leaving an empty schema, and applied again', async () => {
    const db = await freshDatabase();
    const ds = createDataSource(db.url, { poolSize: 1 });
    await ds.initialize();
    const tables = async () =>
      (
        await ds.query<Array<{ table_name: string }>>(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations' ORDER BY 1`,
        )
      ).map((r) => r.table_name);
    const types = async () =>
      (
        await ds.query<unknown[]>(
          `SELECT typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public' AND t.typtype = 'e'`,
        )
      ).length;
    try {
      const before = await tables();
      expect(before).toEqual(
        arrayContaining(['agents', 'audit_log', 'quotas', 'reservations', 'tasks', 'task_status_updates', 'allocation_cycles']),
      );
      for (const _ of MIGRATIONS) await ds.undoLastMigration({ transaction: 'all' });
      expect(await tables()).toEqual([]);
      expect(await types()).toBe(0);
      await ds.runMigrations({ transaction: 'all' });
      expect(await tables()).toEqual(before);
      expect((await pendingSchemaChanges(ds)).up).toEqual([]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});
