/**
 * Leadership under faults, in process on real PostgreSQL: the leader's coordination session
 * is killed (as a connection reset, a killed backend or a pooler reset would end it), and the
 * leader's wall clock steps. The leader must stop leading the moment its session fails (a
 * standby may hold the lock within a poll), and no step of the wall clock may depose it. A
 * deposed leader that has not noticed yet answers the calls it can no longer carry out with
 * NOT_LEADER, never INTERNAL_ERROR.
 */
import { Resources } from '@arbiter/allocator';
import { Scheduler } from '@arbiter/scheduler-sdk';
import { Client } from 'pg';
import type { TimerHandle } from '../../../src/kernel/clock';
import { FENCE_LOCK, LEADER_LOCK } from '../../../src/leadership/leadership.repository';
import { Leadership } from '../../../src/leadership/leadership.service';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { freshDatabase } from '../../support/postgres';
import { until } from '@arbiter/test-support';

describe('leadership under faults', () => {
  let db: { url: string; drop: () => Promise<void> };
  const started: TestControlPlane[] = [];
  // A long lease: the watchdog (lease/2 = 5 s) is far from what these tests measure.
  const start = async () => {
    const t = await startTestControlPlane({ databaseUrl: db.url, config: { allocationInterval: 0.1, leaderLease: 10 } });
    started.push(t);
    return t;
  };
  const leadershipOf = (t: TestControlPlane) => t.cp.app.get(Leadership);

  beforeEach(async () => {
    db = await freshDatabase();
  });

  afterEach(async () => {
    jest.useRealTimers();
    for (const t of started.splice(0).reverse()) await t.stop().catch(() => undefined);
    await db.drop();
  });

  /** Ends the backend holding the leader lock, as an abrupt connection loss would. */
  const killLockSession = async () => {
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_locks
          WHERE locktype = 'advisory' AND objid = $1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [LEADER_LOCK],
      );
      expect(rows).toEqual([{ ended: true }]);
    } finally {
      await pg.end();
    }
  };

  it('a leader whose lock session is killed steps down at once, before a standby leads, not after half the lease', async () => {
    const first = await start();
    const second = await start();
    const [a, b] = [leadershipOf(first), leadershipOf(second)];
    expect([a.role, b.role]).toEqual(['leader', 'standby']);

    // Watches both replicas every few milliseconds: two leaders at once is what must not happen.
    let bothLeading = 0;
    const watch = setInterval(() => (a.isLeader && b.isLeader ? bothLeading++ : undefined), 2);
    try {
      const killedAt = Date.now();
      await killLockSession();
      await until(() => !a.isLeader, 5_000, 'the old leader stepping down');
      const stepDownMs = Date.now() - killedAt;
      // Whichever replica takes the free lock first leads, under a new term.
      await until(() => (a.isLeader || b.isLeader) && a.epoch === 2 && b.epoch === 2, 10_000, 'a leader under term 2');
      // At once: well before the watchdog's lease/2 (5 s), and before the standby's next poll.
      expect(stepDownMs).toBeLessThan(1_000);
      expect(bothLeading).toBe(0);
    } finally {
      clearInterval(watch);
    }
    const [leader, standby] = a.isLeader ? [a, b] : [b, a];
    expect([standby.role, standby.leaderUrl]).toEqual(['standby', leader.url]);
  }, 30_000);

  it('a lone leader whose lock session is killed steps down, then leads again under a new term', async () => {
    const only = await start();
    const l = leadershipOf(only);
    expect([l.role, l.epoch]).toEqual(['leader', 1]);
    const roles: string[] = [];
    const watch = setInterval(() => (roles.at(-1) !== l.role ? roles.push(l.role) : undefined), 2);
    try {
      await killLockSession();
      // It must not lead on under term 1 without the lock: it begins a new term once it holds it again.
      await until(() => l.isLeader && l.epoch === 2, 10_000, 'leading again under term 2');
    } finally {
      clearInterval(watch);
    }
    // The role now, which the sampling may not have seen yet (until's poll can come first).
    if (roles.at(-1) !== l.role) roles.push(l.role);
    expect(roles).toEqual(['leader', 'standby', 'leader']);
  }, 30_000);

  it('a step of the wall clock (+1 h) does not depose the leader', async () => {
    const only = await start();
    const l = leadershipOf(only);
    const confirmations = l as unknown as { lastConfirmed: number };
    expect(l.role).toBe('leader');
    // The step comes just after a confirmation: the next poll's watchdog looks before it confirms again.
    const before = confirmations.lastConfirmed;
    await until(() => confirmations.lastConfirmed !== before, 5_000, 'a confirmation');
    // Only the wall clock (Date) steps; timers and the monotonic clock run on.
    jest.useFakeTimers({
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
      advanceTimers: true,
    });
    jest.setSystemTime(Date.now() + 3_600_000);
    // Two polls after the step: the watchdog has looked at the lock twice by then.
    for (let i = 0; i < 2; i++) {
      const confirmed = confirmations.lastConfirmed;
      await until(() => confirmations.lastConfirmed !== confirmed, 5_000, `confirmation ${i + 1} after the step`);
    }
    expect([l.role, l.epoch]).toEqual(['leader', 1]);
  }, 30_000);

  it('a deposed leader that has not noticed answers NOT_LEADER to agents and frameworks, not INTERNAL_ERROR', async () => {
    const t = await start();
    const agent = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
      hostname: 'deposed-1',
      resources: Resources.fromScalars({ cpus: 2, mem: 1024 }).toJSON(),
    });
    const scheduler = new Scheduler({ master: t.cp.url, token: ADMIN_TOKEN, framework: { name: 'deposed', roles: ['web'] } });
    const late = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
      hostname: 'deposed-2',
      resources: Resources.fromScalars({ cpus: 1 }).toJSON(),
    });
    try {
      await agent.register();
      const offer = new Promise<Parameters<Scheduler['launch']>[0]>((resolve) => scheduler.once('offers', (offers) => resolve(offers[0])));
      scheduler.on('error', () => undefined);
      await scheduler.start();
      const offered = await offer;
      await until(() => late.socket.connected, 5_000, 'the second agent connected');

      // The replica stops polling (as a paused one would), and another term begins meanwhile.
      t.cp.app.get<Leadership, { timer: TimerHandle }>(Leadership).timer.cancel();
      const pg = new Client({ connectionString: db.url });
      await pg.connect();
      try {
        await pg.query('BEGIN');
        await pg.query('SELECT pg_advisory_xact_lock($1)', [FENCE_LOCK]);
        await pg.query(`INSERT INTO leader_terms (replica, url) VALUES ('elsewhere', 'http://elsewhere:1')`);
        await pg.query('COMMIT');
      } finally {
        await pg.end();
      }

      const launched = scheduler.launch(offered, [
        { taskId: 't1', name: 't1', command: { shell: 'true' }, resources: Resources.fromScalars({ cpus: 0.1, mem: 8 }).toJSON() },
      ]);
      await expect(launched).rejects.toMatchObject({ code: 'NOT_LEADER' });
      const registered = (await late.socket.timeout(10_000).emitWithAck('register', {
        hostname: 'deposed-2',
        resources: Resources.fromScalars({ cpus: 1 }).toJSON(),
        tasks: [],
      })) as { ok: boolean; error?: { code: string } };
      expect(registered).toMatchObject({ ok: false, error: { code: 'NOT_LEADER' } });
    } finally {
      scheduler.close();
      agent.close();
      late.close();
    }
  }, 30_000);
});
