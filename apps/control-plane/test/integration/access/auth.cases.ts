import { ApiTokenEntity } from '../../../src/auth/api-token.entity';
import { AuthRepository, type TokenOwner } from '../../../src/auth/auth.repository';
import { AuthService, hashToken } from '../../../src/auth/auth.service';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { freshDatabase } from '../../support/postgres';

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
    expect((await ok(t.client.GET('/api/v1/agents'))).total).toBe(0);
    expect((await ok(t.client.GET('/api/v1/whoami'))).principal).toBe('admin');
    await ok(t.client.PUT('/api/v1/weights', { body: { weights: [{ role: 'auth-actor', weight: 2 }] } }));
    const audit = await ok(t.client.GET('/api/v1/audit', { params: { query: { limit: 1 } } }));
    expect(audit.items[0]).toMatchObject({ actor: 'admin', targetId: 'auth-actor' });
  });

  it('accepts Basic with the principal and one of its tokens, as Mesos clients authenticate', async () => {
    const res = await fetch(`${t.cp.url}/api/v1/whoami`, {
      headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
    });
    expect([res.status, ((await res.json()) as { principal?: string }).principal]).toEqual([200, 'admin']);
  });

  it("refuses a principal named with ':', which Basic authentication could never name, and creates nothing", async () => {
    const res = await t.request('POST', '/api/v1/principals', { name: 'team:a', kind: 'FRAMEWORK' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((res.body as { message: string }).message).toMatch(/no ':'/);
    const list = await t.request('GET', '/api/v1/principals');
    expect((list.body as Array<{ name: string }>).map((p) => p.name)).not.toContain('team:a');
  });

  it('keeps /health and the API docs open, and serves /metrics to a token', async () => {
    for (const path of ['/health', '/api/docs-json']) {
      expect((await t.request('GET', path, undefined, { token: null })).status).toBe(200);
    }
    expect((await t.request('GET', '/metrics', undefined, { token: null })).status).toBe(401);
    const metrics = await t.request('GET', '/metrics');
    expect(metrics.body).toMatch(/arbiter_http_requests_total\{method="GET",route="\/api\/v1\/agents",status="200"\}/);
  });

  it('looks a token up once for the requests that arrive together; a request that starts after its revocation is refused', async () => {
    await t.request('POST', '/api/v1/principals', { name: 'shared-viewer', kind: 'VIEWER' });
    const issued = (await t.request('POST', '/api/v1/principals/shared-viewer/tokens', { name: 'shared' })).body as {
      id: string;
      token: string;
    };
    const auth = t.cp.app.get(AuthService);
    const repo = t.cp.app.get(AuthRepository);
    const real = repo.findLiveToken.bind(repo);
    const lookups = jest.spyOn(repo, 'findLiveToken');
    try {
      const together = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(`Bearer ${issued.token}`, null)));
      expect(new Set(together.map((a) => a.name))).toEqual(new Set(['shared-viewer']));
      expect(lookups).toHaveBeenCalledTimes(1);

      // A lookup under way when the token is revoked: requests after the revocation look again.
      lookups.mockClear();
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      lookups.mockImplementationOnce(async (...args: Parameters<AuthRepository['findLiveToken']>): Promise<TokenOwner | null> => {
        const found = await real(...args);
        await held;
        return found;
      });
      const before = auth.authenticate(`Bearer ${issued.token}`, null);
      expect((await t.request('DELETE', `/api/v1/tokens/${issued.id}`)).status).toBe(200);
      await expect(auth.authenticate(`Bearer ${issued.token}`, null)).rejects.toMatchObject({ code: 'AUTH_TOKEN_INVALID' });
      expect((await t.request('GET', '/api/v1/whoami', undefined, { token: issued.token })).status).toBe(401);
      release();
      // The request that arrived before the revocation was looked up before it.
      await expect(before).resolves.toMatchObject({ name: 'shared-viewer' });
      expect(lookups.mock.calls.length).toBeGreaterThanOrEqual(3);
    } finally {
      lookups.mockRestore();
    }
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
