/**
 * A silent database outage (the network to PostgreSQL drops every byte, no connection is
 * closed), in process on real PostgreSQL behind a TCP proxy the test cuts: REST requests fail
 * fast with 503 DATABASE_UNAVAILABLE instead of hanging, and /health answers within a second
 * whatever the database does. Once the network is back, the API answers again.
 */
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../support/app';
import { CuttableProxy } from '../support/faults';
import { freshDatabase } from '../support/postgres';
import { until } from '@arbiter/test-support';

describe('a silent database outage', () => {
  let db: { url: string; drop: () => Promise<void> };
  let proxy: CuttableProxy;
  let t: TestControlPlane;

  beforeAll(async () => {
    db = await freshDatabase();
    const target = new URL(db.url);
    proxy = new CuttableProxy(target.hostname, Number(target.port || 5432));
    await proxy.listen();
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxy.port);
    t = await startTestControlPlane({ databaseUrl: viaProxy.toString(), config: { allocationInterval: 0.2 } });
  });

  afterAll(async () => {
    proxy.heal();
    await t.stop().catch(() => undefined);
    await proxy.close();
    await db.drop();
  });

  /** The answer's status, code and how long it took (a request that hangs past `limitMs` fails the test). */
  const timed = async (route: string, limitMs: number) => {
    const started = Date.now();
    const res = await fetch(`${t.cp.url}${route}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      signal: AbortSignal.timeout(limitMs),
    });
    const body = (await res.json()) as { code?: string; status?: string; database?: string };
    return { status: res.status, body, ms: Date.now() - started };
  };

  it('fails REST requests fast with 503 DATABASE_UNAVAILABLE, answers /health within a second, and recovers', async () => {
    expect((await timed('/api/v1/agents', 5_000)).status).toBe(200);
    proxy.partition();
    try {
      const health = await timed('/health', 3_000);
      expect(health).toMatchObject({ status: 503, body: { status: 'degraded', database: 'unavailable' } });
      expect(health.ms).toBeLessThan(1_000);
      // Both at once: one hung query must not hold the next request up behind it.
      const [agents, frameworks] = await Promise.all([timed('/api/v1/agents', 15_000), timed('/api/v1/frameworks', 15_000)]);
      for (const answer of [agents, frameworks]) {
        expect(answer).toMatchObject({ status: 503, body: { code: 'DATABASE_UNAVAILABLE' } });
        expect(answer.ms).toBeLessThan(8_000);
      }
      // /health stays quick while the REST pool's connections hang.
      expect((await timed('/health', 3_000)).ms).toBeLessThan(1_000);
    } finally {
      proxy.heal();
    }
    await until(async () => (await timed('/api/v1/agents', 10_000)).status === 200, 20_000, 'the API answering again');
    expect((await timed('/health', 3_000)).status).toBe(200);
  }, 60_000);
});
