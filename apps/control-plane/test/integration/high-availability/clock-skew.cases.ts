/**
 * Replicas whose wall clocks disagree: the times the leader records (offers made, allocation
 * cycles) are the database's, so a standby comparing them with the database's `now()` sees
 * their true age, not the leader's clock error.
 */
import { Scheduler } from '@arbiter/scheduler-sdk';
import { SystemClock } from '../../../src/kernel/clock';
import { ADMIN_TOKEN, STARTUP_TIMEOUT_MS, startTestControlPlane, stopStarted, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { freshDatabase } from '../../support/postgres';
import { until } from '../../support/until';

const HOUR_MS = 3_600_000;

/** The process's clock, its wall clock an hour behind (the monotonic clock is untouched). */
class HourBehindClock extends SystemClock {
  override date(): Date {
    return new Date(Date.now() - HOUR_MS);
  }
}

describe('clock skew between replicas', () => {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let leader: TestControlPlane;
  let standby: TestControlPlane;
  let agent: ProtocolAgent | undefined;
  let framework: Scheduler | undefined;

  beforeAll(async () => {
    db = await freshDatabase();
    // Two replicas start in this process, and the second's start holds the event loop for seconds
    // on a loaded machine: a lease that such a stall cannot expire (these tests are not about it).
    const config = { allocationInterval: 0.1, leaderLease: 30 };
    leader = await startTestControlPlane({ databaseUrl: db.url, config, clock: new HourBehindClock() });
    standby = await startTestControlPlane({ databaseUrl: db.url, config });
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    framework?.close();
    agent?.close();
    await stopStarted(standby, leader);
    await db?.drop();
  }, STARTUP_TIMEOUT_MS);

  it("a leader an hour behind raises no OFFERS_HELD on a standby, and its offers' and cycles' times are the database's", async () => {
    expect((await standby.request('GET', '/health')).body).toMatchObject({ role: 'standby' });
    const a = (agent = new ProtocolAgent(leader.cp.url, ADMIN_TOKEN, {
      hostname: 'skew-1',
      resources: [{ name: 'cpus', value: 2 }],
      attributes: {},
    }));
    await a.register();
    const f = (framework = new Scheduler({ master: leader.cp.url, token: ADMIN_TOKEN, framework: { name: 'holder', roles: ['r'] } }));
    let offered = 0;
    // The framework holds its offer: outstanding for seconds, not an hour.
    f.on('offers', (offers) => (offered += offers.length));
    await f.start();
    await until(() => offered > 0, 10_000, 'an offer');

    const summary = await ok(standby.client.GET('/api/v1/cluster'));
    expect(summary.outstandingOffers).toBe(1);
    expect(summary.alerts.map((a) => a.code)).not.toContain('OFFERS_HELD');

    const rows: Array<{ offer_age_s: number; cycle_age_s: number }> = await standby.cp.dataSource.query(
      `SELECT (SELECT EXTRACT(EPOCH FROM now() - max(created_at)) FROM offers)::float8 AS offer_age_s,
              (SELECT EXTRACT(EPOCH FROM now() - max(started_at)) FROM allocation_cycles)::float8 AS cycle_age_s`,
    );
    expect(rows[0].offer_age_s).toBeLessThan(60);
    expect(rows[0].cycle_age_s).toBeLessThan(60);
  });
});
