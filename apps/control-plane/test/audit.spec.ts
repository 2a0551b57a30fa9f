import { seedAgent, startTestControlPlane, type TestControlPlane } from './support/app';

describe('audit API', () => {
  let t: TestControlPlane;
  let middle: string;
  beforeAll(async () => {
    t = await startTestControlPlane();
    for (const id of ['a1', 'a2', 'a3']) await seedAgent(t.cp, { id });
    await t.api('POST', '/api/v1/agents/a1/deactivate');
    await t.api('POST', '/api/v1/agents/a2/deactivate');
    middle = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await t.api('POST', '/api/v1/agents/a2/reactivate');
    await t.api('POST', '/api/v1/agents/a3/drain', { markGone: false });
  });
  afterAll(() => t.close());

  it('lists every change newest first with who, what, target, before, after and the request id', async () => {
    const r = await t.api('GET', '/api/v1/audit');
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(4);
    expect(r.body.items.map((e: { action: string; targetId: string }) => `${e.action} ${e.targetId}`)).toEqual([
      'agent.drain a3',
      'agent.reactivate a2',
      'agent.deactivate a2',
      'agent.deactivate a1',
    ]);
    const drain = r.body.items[0];
    expect(drain).toMatchObject({
      actor: 'admin',
      targetType: 'agent',
      before: { activated: true, drainState: null },
      after: { activated: false, drainState: 'DRAINED' },
    });
    expect(drain.requestId).toEqual(expect.any(String));
    expect(Number(r.body.items[0].id)).toBeGreaterThan(Number(r.body.items[1].id));
  });

  it('filters by action (exact or prefix), target, actor and time, and paginates', async () => {
    const q = async (query: string) => (await t.api('GET', `/api/v1/audit?${query}`)).body;
    expect((await q('action=agent.deactivate')).total).toBe(2);
    expect((await q('action=agent.*')).total).toBe(4);
    expect((await q('action=quota.*')).total).toBe(0);
    expect((await q('targetType=agent&targetId=a2')).total).toBe(2);
    expect((await q('actor=admin')).total).toBe(4);
    expect((await q('actor=someone-else')).total).toBe(0);
    expect((await q(`since=${middle}`)).items.map((e: { action: string }) => e.action)).toEqual(['agent.drain', 'agent.reactivate']);
    expect((await q(`until=${middle}`)).total).toBe(2);
    const page = await q('limit=1&offset=1');
    expect(page).toMatchObject({ total: 4, limit: 1, offset: 1 });
    expect(page.items[0].action).toBe('agent.reactivate');
  });

  it('writes no entry for a refused change', async () => {
    expect((await t.api('POST', '/api/v1/agents/a3/drain', {})).status).toBe(409);
    expect((await t.api('POST', '/api/v1/agents/missing/deactivate')).status).toBe(404);
    expect((await t.api('GET', '/api/v1/audit')).body.total).toBe(4);
  });

  it.each([
    ['since=yesterday', /since must be an ISO 8601 date-time/],
    ['until=2026-13-45', /until must be an ISO 8601 date-time/],
    ['action=DROP TABLE', /action must look like 'agent.drain' or 'agent.\*'/],
    ['limit=1000', /limit must not be greater than 500/],
  ])('refuses ?%s with VALIDATION_FAILED', async (query, message) => {
    const r = await t.api('GET', `/api/v1/audit?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(r.body.message).toMatch(message);
  });
});
