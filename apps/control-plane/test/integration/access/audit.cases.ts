import type { operations } from '@arbiter/contracts';
import { seedAgent, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok, refused } from '../../support/client';
import { anyOf } from '../../support/matchers';
import { until } from '../../support/until';

type AuditQuery = NonNullable<operations['Audit_list']['parameters']['query']>;
const agent = (id: string) => ({ params: { path: { id } } });

/** Resolves once the wall clock has left the current millisecond. */
async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  await until(() => Date.now() > now, 1_000, 'the clock to move on');
}

describe('audit API', () => {
  let t: TestControlPlane;
  let middle: string;
  beforeAll(async () => {
    t = await startTestControlPlane();
    for (const id of ['a1', 'a2', 'a3']) await seedAgent(t.cp, { id });
    await ok(t.client.POST('/api/v1/agents/{id}/deactivate', agent('a1')));
    await ok(t.client.POST('/api/v1/agents/{id}/deactivate', agent('a2')));
    // Entries are stamped with the wall clock (in milliseconds): `middle` lies strictly between
    // the entries before it and those after it once the clock has moved on each time.
    await nextMillisecond();
    middle = new Date().toISOString();
    await nextMillisecond();
    await ok(t.client.POST('/api/v1/agents/{id}/reactivate', agent('a2')));
    await ok(t.client.POST('/api/v1/agents/{id}/drain', { ...agent('a3'), body: { markGone: false } }));
  });
  afterAll(() => t.close());

  it('lists every change newest first with who, what, target, before, after and the request id', async () => {
    const r = await ok(t.client.GET('/api/v1/audit'));
    expect(r.total).toBe(4);
    expect(r.items.map((e) => `${e.action} ${e.targetId}`)).toEqual([
      'agent.drain a3',
      'agent.reactivate a2',
      'agent.deactivate a2',
      'agent.deactivate a1',
    ]);
    const drain = r.items[0];
    expect(drain).toMatchObject({
      actor: 'admin',
      targetType: 'agent',
      before: { activated: true, drainState: null },
      after: { activated: false, drainState: 'DRAINED' },
    });
    expect(drain.requestId).toEqual(anyOf(String));
    expect(Number(r.items[0].id)).toBeGreaterThan(Number(r.items[1].id));
  });

  it('filters by action (exact or prefix), target, actor and time, and paginates', async () => {
    const q = (query: AuditQuery) => ok(t.client.GET('/api/v1/audit', { params: { query } }));
    expect((await q({ action: 'agent.deactivate' })).total).toBe(2);
    expect((await q({ action: 'agent.*' })).total).toBe(4);
    expect((await q({ action: 'quota.*' })).total).toBe(0);
    expect((await q({ targetType: 'agent', targetId: 'a2' })).total).toBe(2);
    expect((await q({ actor: 'admin' })).total).toBe(4);
    expect((await q({ actor: 'someone-else' })).total).toBe(0);
    expect((await q({ since: middle })).items.map((e) => e.action)).toEqual(['agent.drain', 'agent.reactivate']);
    expect((await q({ until: middle })).total).toBe(2);
    const page = await q({ limit: 1, offset: 1 });
    expect(page).toMatchObject({ total: 4, limit: 1, offset: 1 });
    expect(page.items[0].action).toBe('agent.reactivate');
  });

  it('writes no entry for a refused change', async () => {
    await refused(t.request('POST', '/api/v1/agents/a3/drain', {}), 409);
    await refused(t.client.POST('/api/v1/agents/{id}/deactivate', agent('missing')), 404);
    expect((await ok(t.client.GET('/api/v1/audit'))).total).toBe(4);
  });

  it.each([
    ['since=yesterday', /since must be an ISO 8601 date-time/],
    ['until=2026-13-45', /until must be an ISO 8601 date-time/],
    ['action=DROP TABLE', /action must look like 'agent.drain' or 'agent.\*'/],
    ['limit=1000', /limit must not be greater than 500/],
  ])('refuses ?%s with VALIDATION_FAILED', async (query, message) => {
    const error = await refused(t.request('GET', `/api/v1/audit?${query}`), 400);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(message);
  });
});
