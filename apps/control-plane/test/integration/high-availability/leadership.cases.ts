/**
 * Several replicas on one database: one leads, the others serve the API as standbys, hand
 * operations that need the leader to it, send agents and frameworks to it, and take over when
 * it goes; a deposed leader's writes are refused by the fence.
 */
import { Scheduler } from '@arbiter/scheduler-sdk';
import { Client } from 'pg';
import { AllocatorSync } from '../../../src/cluster-sync/allocator-sync.handler';
import { FENCED_ERROR_CODE } from '../../../src/database/master-database';
import { ClusterState } from '../../../src/master/cluster-state';
import { Leadership } from '../../../src/leadership/leadership.service';
import { ADMIN_TOKEN, STARTUP_TIMEOUT_MS, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { freshDatabase } from '../../support/postgres';
import { until } from '../../support/until';

interface Health {
  status: string;
  role: 'leader' | 'standby';
  leader: string | null;
  epoch: number | null;
}

const health = async (t: TestControlPlane) => (await t.request('GET', '/health')).body as Health;

describe('leadership', () => {
  let db: { url: string; drop: () => Promise<void> };
  let first: TestControlPlane;
  let second: TestControlPlane;
  const started: TestControlPlane[] = [];
  // These tests are not about the lease running out (leadership-faults.cases.ts is): a lease long
  // enough that a replica starting in the same process (its start holds the event loop for a
  // second or more on a loaded machine) cannot depose the leader by delaying its polls. A leader
  // that stops resigns at once, so a standby still takes over within a poll.
  const start = async () => {
    const t = await startTestControlPlane({ databaseUrl: db.url, config: { allocationInterval: 0.1, leaderLease: 30 } });
    started.push(t);
    return t;
  };

  beforeEach(async () => {
    db = await freshDatabase();
    first = await start();
    second = await start();
  }, STARTUP_TIMEOUT_MS);

  afterEach(async () => {
    for (const t of started.splice(0).reverse()) await t.stop().catch(() => undefined);
    await db.drop();
  }, STARTUP_TIMEOUT_MS);

  it('elects one leader; the other replica is a standby that names it', async () => {
    const [a, b] = [await health(first), await health(second)];
    expect(a).toMatchObject({ status: 'ok', role: 'leader', epoch: 1 });
    expect(b).toMatchObject({ status: 'ok', role: 'standby', epoch: 1, leader: a.leader });
    expect(a.leader).toMatch(new RegExp(`:${first.cp.port}$`));
    const metrics = String((await second.request('GET', '/metrics')).body);
    expect(metrics).toMatch(/^arbiter_leader 0$/m);
    expect(metrics).toMatch(/^arbiter_leader_epoch 1$/m);
    expect(String((await first.request('GET', '/metrics')).body)).toMatch(/^arbiter_leader 1$/m);
  });

  it("applies a quota set through a standby to the leader's allocator", async () => {
    const allocator = first.cp.app.get(ClusterState).allocator;
    const setQuota = jest.spyOn(allocator, 'setQuota');
    const put = await second.request('PUT', '/api/v1/quota', { quotas: [{ role: 'analytics', limits: 'cpus:3' }], force: true });
    expect(put.status).toBe(200);
    await until(() => setQuota.mock.calls.some(([role]) => role === 'analytics'), 5_000, "the quota in the leader's allocator");
    expect(setQuota).toHaveBeenCalledWith('analytics', {}, { cpus: 3 });
  });

  it('sends frameworks to the leader and hands a teardown through a standby to it', async () => {
    const scheduler = new Scheduler({
      master: `${second.cp.url},${first.cp.url}`,
      token: ADMIN_TOKEN,
      framework: { name: 'ha', roles: ['web'], failoverTimeoutSeconds: 60 },
    });
    const { frameworkId } = await scheduler.start();
    const completed = new Promise((resolve) => scheduler.once('completed', resolve));
    // The standby reads the framework's state from the database.
    await until(
      async () => ((await second.request('GET', `/api/v1/frameworks/${frameworkId}`)).body as { connected?: boolean }).connected === true,
    );
    const teardown = await second.request('POST', `/api/v1/frameworks/${frameworkId}/teardown`);
    expect(teardown.status).toBe(200);
    expect(teardown.body).toMatchObject({ id: frameworkId, state: 'COMPLETED' });
    await completed;
    const audit = (await second.request('GET', `/api/v1/audit?targetId=${frameworkId}`)).body as { items: Array<{ action: string }> };
    expect(audit.items.map((a) => a.action)).toContain('framework.teardown');
    scheduler.close();
  });

  it(
    'a standby takes over when the leader stops, and the old term is fenced',
    async () => {
      await first.stop();
      started.splice(started.indexOf(first), 1);
      await until(async () => (await health(second)).role === 'leader', 10_000, 'the standby to lead');
      expect(await health(second)).toMatchObject({ role: 'leader', epoch: 2 });
      // A write made under the first term, as a deposed leader's late write would be.
      const late = new Client({ connectionString: db.url, options: '-c arbiter.epoch=1' });
      await late.connect();
      try {
        await expect(late.query(`UPDATE agents SET last_seen_at = now()`)).rejects.toMatchObject({ code: FENCED_ERROR_CODE });
      } finally {
        await late.end();
      }
      const current = new Client({ connectionString: db.url, options: '-c arbiter.epoch=2' });
      await current.connect();
      try {
        await expect(current.query(`UPDATE agents SET last_seen_at = now()`)).resolves.toBeDefined();
      } finally {
        await current.end();
      }
      // A replica started now is a standby of the new leader.
      const third = await start();
      expect(await health(third)).toMatchObject({ role: 'standby', epoch: 2, leader: (await health(second)).leader });
    },
    STARTUP_TIMEOUT_MS,
  );

  it('refuses agent and framework sessions on a standby with the leader named', async () => {
    const refused = new Scheduler({ master: second.cp.url, token: ADMIN_TOKEN, framework: { name: 'x', roles: ['web'] } });
    const error = new Promise<Error & { data?: unknown }>((resolve) =>
      (refused as unknown as { socket: { once(e: string, f: (err: Error) => void): void } }).socket.once('connect_error', resolve),
    );
    void refused.start().catch(() => undefined);
    const err = await error;
    expect(err.data).toEqual({ code: 'NOT_LEADER', leader: (await health(first)).leader });
    expect(err.message).toMatch(/standby: connect to the leader at/);
    refused.close();
  });

  it('answers Mesos clients on a standby with 307 and the leader, as a Mesos master does', async () => {
    const leader = (await health(first)).leader;
    const subscribe = await fetch(`${second.cp.url}/api/v1/scheduler`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ type: 'SUBSCRIBE', subscribe: { framework_info: { user: 'u', name: 'm', role: 'r' } } }),
      redirect: 'manual',
    });
    expect([subscribe.status, subscribe.headers.get('location')]).toEqual([307, `${String(leader)}/api/v1/scheduler`]);
    const redirect = await fetch(`${second.cp.url}/master/redirect`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([307, `//${new URL(String(leader)).host}`]);
  });

  it('fences every table but the migrations and the terms', async () => {
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ tablename: string; fenced: boolean }>(
        `SELECT t.tablename, EXISTS (SELECT 1 FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
                                      WHERE c.relname = t.tablename AND g.tgname = 'fence_' || t.tablename) AS fenced
           FROM pg_tables t WHERE t.schemaname = current_schema()`,
      );
      const unfenced = rows.filter((r) => !r.fenced).map((r) => r.tablename);
      expect(unfenced.sort()).toEqual(['leader_terms', 'migrations']);
      expect(rows.length).toBeGreaterThan(15);
    } finally {
      await pg.end();
    }
  });
});

describe('a leader whose start is long', () => {
  it('keeps confirming its lock while it starts, and leads on in the same term', async () => {
    const db = await freshDatabase();
    // The rebuild (a large cluster's state) takes longer than half the lease, after which a
    // leader that has not confirmed its lock steps down.
    const lease = 2;
    const { rebuild: original } = Object.getOwnPropertyDescriptors(AllocatorSync.prototype);
    const rebuild = jest.spyOn(AllocatorSync.prototype, 'rebuild').mockImplementationOnce(async function (this: AllocatorSync) {
      await new Promise((r) => setTimeout(r, lease * 1000));
      return (original.value as (this: AllocatorSync) => Promise<void>).call(this);
    });
    let t: TestControlPlane | undefined;
    try {
      t = await startTestControlPlane({ databaseUrl: db.url, config: { allocationInterval: 0.1, leaderLease: lease } });
      const leadership = t.cp.app.get<Leadership, { lastConfirmed: number }>(Leadership);
      // lastConfirmed is on the monotonic clock.
      const started = performance.now();
      // A poll after the start has confirmed the lock: the watchdog has looked at it by then.
      await until(() => leadership.lastConfirmed > started, 5_000, 'a confirmation after the start');
      expect(await health(t)).toMatchObject({ role: 'leader', epoch: 1 });
      expect(rebuild).toHaveBeenCalledTimes(1);
    } finally {
      rebuild.mockRestore();
      await t?.stop().catch(() => undefined);
      await db.drop();
    }
  });
});
