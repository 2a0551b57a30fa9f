import { AgentStatus } from '../src/agents/agent.entity';
import { seedAgent, startTestControlPlane, type TestControlPlane } from './support/app';
import { refusedWithoutChange } from './support/unchanged';

describe('whitelist API', () => {
  let t: TestControlPlane;
  beforeAll(async () => (t = await startTestControlPlane()));
  afterAll(() => t.close());

  it('starts with no whitelist, replaces it (sorted, without repeats), empties it and removes it', async () => {
    expect((await t.api('GET', '/api/v1/whitelist')).body).toEqual({ hostnames: null });
    expect((await t.api('PUT', '/api/v1/whitelist', { hostnames: ['node-2', 'node-1', 'node-2'] })).body).toEqual({
      hostnames: ['node-1', 'node-2'],
    });
    expect((await t.api('GET', '/api/v1/whitelist')).body).toEqual({ hostnames: ['node-1', 'node-2'] });
    expect((await t.api('PUT', '/api/v1/whitelist', { hostnames: [] })).body).toEqual({ hostnames: [] });
    expect((await t.api('PUT', '/api/v1/whitelist', { hostnames: null })).body).toEqual({ hostnames: null });
    const audit = (await t.api('GET', '/api/v1/audit?action=whitelist.update')).body.items;
    expect(audit.map((e: { before: unknown; after: unknown }) => [e.before, e.after])).toEqual([
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
    await t.api('PUT', '/api/v1/whitelist', { hostnames: ['keep'] });
    const r = await refusedWithoutChange(t, ['/api/v1/whitelist'], () => t.api('PUT', '/api/v1/whitelist', body));
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(r.body.message).toMatch(message);
  });

  it('refuses a body that is not JSON', async () => {
    const r = await refusedWithoutChange(t, ['/api/v1/whitelist'], () =>
      t.api('PUT', '/api/v1/whitelist', '{"hostnames": [', { contentType: 'application/json' }),
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
    beforeEach(() => t.api('PUT', '/api/v1/whitelist', { hostnames: null }));

    it('keeps no whitelist when only adding, since every agent is offered already', async () => {
      expect((await t.api('PATCH', '/api/v1/whitelist', { add: ['node-9'] })).body).toEqual({ hostnames: null });
    });

    it('removing with no whitelist starts one with every present agent but the removed (GONE agents left out)', async () => {
      expect((await t.api('PATCH', '/api/v1/whitelist', { remove: ['node-2'] })).body).toEqual({ hostnames: ['node-1', 'node-3'] });
      expect((await t.api('GET', '/api/v1/agents/w2')).body.whitelisted).toBe(false);
      expect((await t.api('GET', '/api/v1/agents/w1')).body.whitelisted).toBe(true);
      expect((await t.api('PATCH', '/api/v1/whitelist', { add: ['node-2', 'node-5'], remove: ['node-3'] })).body).toEqual({
        hostnames: ['node-1', 'node-2', 'node-5'],
      });
      const audit = (await t.api('GET', '/api/v1/audit?action=whitelist.update&limit=2')).body.items;
      expect(audit.map((e: { before: unknown; after: unknown }) => [e.before, e.after])).toEqual([
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
      await t.api('PUT', '/api/v1/whitelist', { hostnames: ['keep'] });
      const r = await refusedWithoutChange(t, ['/api/v1/whitelist'], () => t.api('PATCH', '/api/v1/whitelist', body));
      expect(r.body.code).toBe('VALIDATION_FAILED');
      expect(r.body.message).toMatch(message);
    });
  });
});
