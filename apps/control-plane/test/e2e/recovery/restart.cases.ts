/**
 * The embedded PostgreSQL path end to end, as a user runs it (`arbiter control-plane` with no
 * DATABASE_URL), whatever database the rest of the run uses: data written through the API
 * survives a restart of the service and of its embedded server.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../../src/database/database.embedded';
import { makeDataDir, removeDataDir } from '../../support/data-dir';
import { spawnControlPlane, type ControlPlaneProcess } from '../../support/process';

describe('arbiter control-plane on the embedded PostgreSQL', () => {
  const dataDir = makeDataDir('arbiter-restart-');
  let running: ControlPlaneProcess | undefined;
  afterAll(async () => {
    await running?.stop('SIGKILL');
    removeDataDir(dataDir);
  });

  const call = async (cp: ControlPlaneProcess, token: string, method: string, route: string) => {
    const res = await fetch(cp.url + route, { method, headers: { authorization: `Bearer ${token}` } });
    const body: unknown = await res.json();
    return { status: res.status, body };
  };

  it('starts with nothing but a data directory, keeps data across a restart and stops cleanly on Ctrl-C', async () => {
    const dbPort = await freePort();
    const env = {
      DATABASE_URL: undefined,
      ARBITER_ADMIN_TOKEN: undefined,
      ARBITER_DATA_DIR: dataDir,
      ARBITER_EMBEDDED_DB_PORT: String(dbPort),
      PORT: '0',
    };
    running = await spawnControlPlane(env);
    const token = running.token ?? '';
    expect(token).toMatch(/^arb_/);
    expect(running.output()).toContain(`embedded PostgreSQL, data in ${dataDir}`);
    expect(((await fetch(`${running.url}/health`).then((r) => r.json())) as { database: string }).database).toBe('ok');

    // An agent as registration would write it, straight into the embedded database.
    const password = fs.readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
    const pg = new Client({ connectionString: `postgres://postgres:${password}@127.0.0.1:${dbPort}/arbiter` });
    await pg.connect();
    await pg.query(
      `INSERT INTO agents (id, hostname, attributes, resources, status, activated, first_seen_at, last_seen_at)
       VALUES ('keep-me', 'persistent.example', '{}', '[{"name":"cpus","value":2}]', 'REACHABLE', true, now(), now())`,
    );
    await pg.end();
    expect((await call(running, token, 'POST', '/api/v1/agents/keep-me/deactivate')).status).toBe(200);
    expect(await running.stop('SIGINT')).toBe(0);

    running = await spawnControlPlane(env);
    expect(running.token).toBeUndefined();
    expect(running.output()).toContain('the one printed on first start');
    expect((await call(running, token, 'GET', '/api/v1/agents/keep-me')).body).toMatchObject({
      hostname: 'persistent.example',
      activated: false,
    });
    const audit = await call(running, token, 'GET', '/api/v1/audit?action=agent.*');
    expect(audit.body).toHaveProperty('items');
    expect((audit.body as { items: unknown }).items).toEqual([
      expect.objectContaining({ action: 'agent.deactivate', targetId: 'keep-me', actor: 'admin' }),
    ]);
    expect(await running.stop('SIGTERM')).toBe(0);
    running = undefined;
  }, 120_000);
});
