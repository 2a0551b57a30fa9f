import { AgentStatus } from '../../../src/agents/agent.entity';
import { seedAgent, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { refusedWithoutChange } from '../../support/unchanged';

const agent = (id: string) => ({ params: { path: { id } } });

describe('whitelist API', () => {
  let t: TestControlPlane;
  beforeAll(async () => (t = await startTestControlPlane()));
  afterAll(() => t.close());

  it('starts with no whitelist, replaces it (sorted, without repeats), empties it and removes it', async () => {
    const put = (hostnames: string[] | null) => ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames } }));
    expect(await ok(t.client.GET('/api/v1/whitelist'))).toEqual({ hostnames: null });
    expect(await put(['node-2', 'node-1', 'node-2'])).toEqual({ hostnames: ['node-1', 'node-2'] });
    expect(await ok(t.client.GET('/api/v1/whitelist'))).toEqual({ hostnames: ['node-1', 'node-2'] });
    expect(await put([])).toEqual({ hostnames: [] });
    expect(await put(null)).toEqual({ hostnames: null });
    const audit = (await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'whitelist.update' } } }))).items;
    expect(audit.map((e) => [e.before, e.after])).toEqual([
      [{ hostnames: [] }, { hostnames: null }],
      [{ hostnames: ['node-1', 'node-2'] }, { hostnames: [] }],
      [{ hostnames: null }, { hostnames: ['node-1', 'node-2'] }],
    ]);
  });

  it.each([
    [{}, /hostnames is required/],
    [{ hostnames: 'node-1' }, /hostnames must be a list of hostnames or null/],
    [{ hostnames: [1, 2] }, /each hostname must be a string/],
    [{ hostnames: ['has space'] }, /no spaces/],
    [{ hostnames: [''] }, /must be non-empty/],
    [{ hostnames: ['x'.repeat(300)] }, /at most 253 characters/],
    [{ hostnames: [], extra: true }, /property extra should not exist/],
  ])('refuses %j and changes nothing', async (body, message) => {
    await ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: ['keep'] } }));
    const r = await refusedWithoutChange(t, ['/api/v1/whitelist'], () => t.request('PUT', '/api/v1/whitelist', body));
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(r.body.message).toMatch(message);
  });

  it('refuses a body that is not JSON', async () => {
    const r = await refusedWithoutChange(t, ['/api/v1/whitelist'], () =>
      t.request('PUT', '/api/v1/whitelist', '{"hostnames": [', { contentType: 'application/json' }),
    );
    expect(r.body.code).toBe('MALFORMED_JSON');
  });

  describe('adding and removing hostnames', () => {
    beforeAll(async () => {
      await seedAgent(t.cp, { id: 'w1', hostname: 'node-1' });
      await seedAgent(t.cp, { id: 'w2', hostname: 'node-2' });
      await seedAgent(t.cp, { id: 'w3', hostname: 'node-3', status: AgentStatus.UNREACHABLE });
      await seedAgent(t.cp, { id: 'w4', hostname: 'node-4', status: AgentStatus.GONE });
    });
    beforeEach(() => ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: null } })));

    it('keeps no whitelist when only adding, since every agent is offered already', async () => {
      expect(await ok(t.client.PATCH('/api/v1/whitelist', { body: { add: ['node-9'] } }))).toEqual({ hostnames: null });
    });

    it('removing with no whitelist starts one with every present agent but the removed (GONE agents left out)', async () => {
      expect(await ok(t.client.PATCH('/api/v1/whitelist', { body: { remove: ['node-2'] } }))).toEqual({ hostnames: ['node-1', 'node-3'] });
      expect((await ok(t.client.GET('/api/v1/agents/{id}', agent('w2')))).whitelisted).toBe(false);
      expect((await ok(t.client.GET('/api/v1/agents/{id}', agent('w1')))).whitelisted).toBe(true);
      expect(await ok(t.client.PATCH('/api/v1/whitelist', { body: { add: ['node-2', 'node-5'], remove: ['node-3'] } }))).toEqual({
        hostnames: ['node-1', 'node-2', 'node-5'],
      });
      const audit = (await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'whitelist.update', limit: 2 } } }))).items;
      expect(audit.map((e) => [e.before, e.after])).toEqual([
        [{ hostnames: ['node-1', 'node-3'] }, { hostnames: ['node-1', 'node-2', 'node-5'] }],
        [{ hostnames: null }, { hostnames: ['node-1', 'node-3'] }],
      ]);
    });

    it.each([
      [{}, /name hostnames to add or remove/],
      [{ add: [], remove: [] }, /name hostnames to add or remove/],
      [{ add: ['node-1'], remove: ['node-1'] }, /'node-1' is both added and removed/],
      [{ add: 'node-1' }, /add must be a list of hostnames/],
      [{ remove: ['bad host'] }, /no spaces/],
    ])('refuses %j and changes nothing', async (body, message) => {
      await ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: ['keep'] } }));
      const r = await refusedWithoutChange(t, ['/api/v1/whitelist'], () => t.request('PATCH', '/api/v1/whitelist', body));
      expect(r.body.code).toBe('VALIDATION_FAILED');
      expect(r.body.message).toMatch(message);
    });
  });
});
