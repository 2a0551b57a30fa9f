import { ApiTokenEntity } from '../src/auth/api-token.entity';
import { hashToken } from '../src/auth/auth.service';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from './support/app';
import { ok } from './support/client';
import { freshDatabase } from './support/postgres';

describe('authentication', () => {
  let t: TestControlPlane;
  beforeAll(async () => (t = await startTestControlPlane()));
  afterAll(() => t.close());

  it.each([
    [null, 'AUTH_TOKEN_MISSING'],
    // Basic carries <principal>:<token> (as Mesos clients send principal and secret): admin:admin is no token.
    ['Basic YWRtaW46YWRtaW4=', 'AUTH_TOKEN_INVALID'],
    [`Basic ${Buffer.from('no-colon').toString('base64')}`, 'AUTH_TOKEN_MISSING'],
    [`Basic ${Buffer.from(`someone-else:${ADMIN_TOKEN}`).toString('base64')}`, 'AUTH_TOKEN_INVALID'],
    ['Bearer', 'AUTH_TOKEN_MISSING'],
    ['Bearer not-a-token', 'AUTH_TOKEN_INVALID'],
  ])('refuses /api/v1 with Authorization %j: 401 %s', async (header, code) => {
    const res = await fetch(`${t.cp.url}/api/v1/agents`, { headers: header ? { authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="arbiter"');
    expect((await res.json()) as object).toMatchObject({ statusCode: 401, code });
  });

  it('accepts the admin token and records the admin as the actor', async () => {
    await ok(t.client.GET('/api/v1/agents'));
  });

  it('accepts Basic with the principal and one of its tokens, as Mesos clients authenticate', async () => {
    const res = await fetch(`${t.cp.url}/api/v1/whoami`, {
      headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
    });
    expect([res.status, ((await res.json()) as { principal?: string }).principal]).toEqual([200, 'admin']);
  });

  it('keeps /health, /metrics and the API docs open', async () => {
    for (const path of ['/health', '/metrics', '/api/docs-json']) {
      expect((await t.request('GET', path, undefined, { token: null })).status).toBe(200);
    }
    const metrics = await t.request('GET', '/metrics', undefined, { token: null });
    expect(metrics.body).toMatch(/arbiter_http_requests_total\{method="GET",route="\/api\/v1\/agents",status="200"\}/);
  });

  it('stores tokens only as hashes', async () => {
    const rows = await t.cp.dataSource.getRepository(ApiTokenEntity).find();
    expect(rows.map((r) => r.tokenHash)).toContain(hashToken(ADMIN_TOKEN));
    expect(JSON.stringify(rows)).not.toContain(ADMIN_TOKEN);
  });

  it('answers unknown routes with ROUTE_NOT_FOUND and echoes the request id', async () => {
    const res = await fetch(`${t.cp.url}/api/v1/nothing-here`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-request-id': 'trace-123' },
    });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe('ROUTE_NOT_FOUND');
  });
});

describe('first admin token', () => {
  it('is generated on first start when ARBITER_ADMIN_TOKEN is unset, works, and is not shown again', async () => {
    const db = await freshDatabase();
    try {
      const first = await startTestControlPlane({ databaseUrl: db.url, config: { adminToken: undefined } });
      expect(first.cp.admin.source).toBe('generated');
      const token = first.cp.admin.token ?? '';
      expect(token).toMatch(/^arb_[A-Za-z0-9_-]{43}$/);
      await ok(first.clientAs(token).GET('/api/v1/agents'));
      await first.stop();
      const second = await startTestControlPlane({ databaseUrl: db.url, config: { adminToken: undefined } });
      expect(second.cp.admin).toEqual({ source: 'existing' });
      await ok(second.clientAs(token).GET('/api/v1/agents'));
      await second.stop();
    } finally {
      await db.drop();
    }
  });
});
