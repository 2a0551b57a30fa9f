/**
 * A silent database outage (the network to PostgreSQL drops every byte, no connection is
 * closed), in process on real PostgreSQL behind a TCP proxy the test cuts: REST requests fail
 * fast with 503 DATABASE_UNAVAILABLE instead of hanging, and /health answers within a second
 * whatever the database does (its ping gives up at HEALTH_PING_TIMEOUT_MS). Once the network
 * is back, the API answers again.
 *
 * "Fast" is measured against the product's own timeouts, not against wall-clock constants: on
 * a loaded machine the event loop alone may stall for a second, but /health still answers
 * before the REST requests that wait out REST_QUERY_TIMEOUT_MS, and two hung requests do not
 * queue behind each other.
 */
import { Database } from '../../../src/database/database.service';
import { HEALTH_PING_TIMEOUT_MS } from '../../../src/health/health.controller';
import { REST_QUERY_TIMEOUT_MS } from '../../../src/server';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { CuttableProxy } from '../../support/faults';
import { freshDatabase } from '../../support/postgres';
import { defined, until } from '@arbiter/test-support';

describe('a silent database outage', () => {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let proxy: CuttableProxy | undefined;
  let t: TestControlPlane | undefined;

  beforeAll(async () => {
    db = await freshDatabase();
    const target = new URL(db.url);
    const cuttable = (proxy = new CuttableProxy(target.hostname, Number(target.port || 5432)));
    await cuttable.listen();
    const viaProxy = new URL(db.url);
    viaProxy.port = String(cuttable.port);
    t = await startTestControlPlane({ databaseUrl: viaProxy.toString(), config: { allocationInterval: 0.2 } });
  });

  // Guarded: when beforeAll failed, its error is the one to see.
  afterAll(async () => {
    proxy?.heal();
    await t?.stop().catch(() => undefined);
    await proxy?.close();
    await db?.drop();
  });

  /** The answer's status, code and how long it took (a request that hangs past `limitMs` fails the test). */
  const timed = async (route: string, limitMs: number) => {
    const started = Date.now();
    const res = await fetch(`${defined(t).cp.url}${route}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      signal: AbortSignal.timeout(limitMs),
    });
    const body = (await res.json()) as { code?: string; status?: string; database?: string };
    return { status: res.status, body, ms: Date.now() - started };
  };

  it('fails REST requests fast with 503 DATABASE_UNAVAILABLE, answers /health within a second, and recovers', async () => {
    // A request that is not answered within this fails the test: far beyond the product's own timeouts.
    const hung = 3 * REST_QUERY_TIMEOUT_MS;
    expect((await timed('/api/v1/agents', hung)).status).toBe(200);
    const ping = jest.spyOn(defined(t).cp.app.get(Database), 'ping');
    const network = defined(proxy);
    network.partition();
    try {
      const health = await timed('/health', hung);
      expect(health).toMatchObject({ status: 503, body: { status: 'degraded', database: 'unavailable' } });
      // It gave up on the database at its own timeout, and did not wait as a REST query does.
      expect(ping).toHaveBeenLastCalledWith(HEALTH_PING_TIMEOUT_MS);
      await expect(ping.mock.results.at(-1)?.value).rejects.toThrow(`within ${HEALTH_PING_TIMEOUT_MS} ms`);
      expect(health.ms).toBeLessThan(REST_QUERY_TIMEOUT_MS);

      // Both at once: one hung query must not hold the next request up behind it (that would
      // take two query timeouts). /health, asked while they hang, answers before either.
      const finished: string[] = [];
      const noted = async (name: string, answer: Promise<Awaited<ReturnType<typeof timed>>>) => {
        const a = await answer;
        finished.push(name);
        return a;
      };
      const rest = Promise.all([noted('agents', timed('/api/v1/agents', hung)), noted('frameworks', timed('/api/v1/frameworks', hung))]);
      const during = await noted('health', timed('/health', hung));
      const [agents, frameworks] = await rest;
      for (const answer of [agents, frameworks]) {
        expect(answer).toMatchObject({ status: 503, body: { code: 'DATABASE_UNAVAILABLE' } });
        expect(answer.ms).toBeLessThan(2 * REST_QUERY_TIMEOUT_MS);
      }
      // /health stays quick while the REST pool's connections hang.
      expect(during.status).toBe(503);
      expect(finished[0]).toBe('health');
    } finally {
      ping.mockRestore();
      network.heal();
    }
    await until(async () => (await timed('/api/v1/agents', hung)).status === 200, 20_000, 'the API answering again');
    expect((await timed('/health', hung)).status).toBe(200);
  }, 60_000);
});
