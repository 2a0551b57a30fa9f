import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { getMetadataArgsStorage } from 'typeorm';
import { createDataSource, ENTITIES } from '../../../src/app.module';
import { pendingSchemaChanges } from '../../../src/database/database.migrations';
import { MIGRATIONS } from '../../../../../migrations';
import { arrayContaining } from '../../support/matchers';
import { freshDatabase } from '../../support/postgres';

describe('schema', () => {
  it('the data source and the migration generator see every entity under src/ (each module declares its own)', async () => {
    const src = path.join(__dirname, '../../../src');
    const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.entity.ts'));
    // TypeORM's @Entity records every class it decorates as the file is loaded.
    for (const file of files) await import(path.join(src, file));
    const decorated = getMetadataArgsStorage()
      .tables.map((t) => t.target)
      .filter((t): t is abstract new () => unknown => typeof t === 'function');
    // By name: the storage is the process's, and may hold the classes of another load of src/ too.
    const names = (classes: Array<abstract new () => unknown>) => [...new Set(classes.map((c) => c.name))].sort();
    // When this fails, add the entity to its module's @OwnsEntities(...).
    expect(names(ENTITIES)).toEqual(names(decorated));
    expect(names(ENTITIES)).toHaveLength(ENTITIES.length);
    expect(ENTITIES.length).toBeGreaterThanOrEqual(20);
  });

  it('the committed migrations produce exactly the entities (`arbiter db check`), asking one query at a time of a connection', async () => {
    const db = await freshDatabase();
    const ds = createDataSource(db.url, { poolSize: 1 });
    await ds.initialize();
    // How many queries each pg connection has in flight at most (pg deprecates more than one, and pg 9 refuses it).
    const inFlight = new Map<Client, number>();
    let most = 0;
    const original = Reflect.get(Client.prototype, 'query') as (...args: unknown[]) => unknown;
    const query = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const now = (inFlight.get(this) ?? 0) + 1;
      inFlight.set(this, now);
      most = Math.max(most, now);
      const done = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
      const result: unknown = Reflect.apply(original, this, args);
      if (result instanceof Promise) void result.then(done, done);
      else done();
      return result as never;
    });
    try {
      const diff = await pendingSchemaChanges(ds);
      // When this fails, run `npx arbiter db generate <Name>` and commit the migration.
      expect(diff.up).toEqual([]);
      expect(most).toBe(1);
    } finally {
      query.mockRestore();
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
