import { randomUUID } from 'node:crypto';
import type { operations } from '@arbiter/contracts';
import { mockFramework, mockOffer, mockTask } from '@arbiter/test-support/mocks';
import { AgentStatus } from '../../../src/agents/agent.entity';
import { OfferEntity, OfferState, OutstandingOfferEntity } from '../../../src/offers/offer.entity';
import { TaskEntity, TaskState } from '../../../src/tasks/task.entity';
import { FrameworkEntity } from '../../../src/frameworks/framework.entity';
import { seedAgent, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok, refused } from '../../support/client';
import { anything, arrayContaining, stringContaining } from '../../support/matchers';

const agent = (id: string) => ({ params: { path: { id } } });
type AgentQuery = NonNullable<operations['Agents_list']['parameters']['query']>;

describe('agents API', () => {
  let t: TestControlPlane;
  beforeAll(async () => {
    t = await startTestControlPlane();
    await seedAgent(t.cp, { id: 'a1', hostname: 'node-1.rack-a', attributes: { rack: 'a' } });
    await seedAgent(t.cp, { id: 'a2', hostname: 'node-2.rack-a', resources: 'cpus:8;mem:16384' });
    await seedAgent(t.cp, {
      id: 'a3',
      hostname: 'node-3.rack-b',
      status: AgentStatus.UNREACHABLE,
      lastSeenAt: new Date(Date.now() - 60_000),
    });
  });
  afterAll(() => t.close());

  describe('list', () => {
    it('lists agents by hostname with their resources in JSON and text', async () => {
      const r = await ok(t.client.GET('/api/v1/agents'));
      expect(r.total).toBe(3);
      expect(r.items.map((a) => a.hostname)).toEqual(['node-1.rack-a', 'node-2.rack-a', 'node-3.rack-b']);
      const a2 = r.items[1];
      expect(a2.resourcesText).toBe('cpus:8;mem:16384');
      expect(a2.resources).toEqual([
        { name: 'cpus', value: 8 },
        { name: 'mem', value: 16384 },
      ]);
      expect(r.items[0].attributes).toEqual({ rack: 'a' });
    });

    it('filters by hostname substring and status, sorts descending, paginates', async () => {
      const list = async (query: AgentQuery) => ok(t.client.GET('/api/v1/agents', { params: { query } }));
      expect((await list({ hostname: 'RACK-A' })).total).toBe(2);
      expect((await list({ status: 'UNREACHABLE' })).items.map((a) => a.id)).toEqual(['a3']);
      const page = await list({ sort: '-hostname', limit: 2, offset: 1 });
      expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
      expect(page.items.map((a) => a.id)).toEqual(['a2', 'a1']);
      const lastSeen = await list({ sort: 'lastSeenAt', limit: 1 });
      expect(lastSeen.items[0].id).toBe('a3');
    });

    it('treats a hostname filter with % or _ literally', async () => {
      expect((await ok(t.client.GET('/api/v1/agents', { params: { query: { hostname: '%' } } }))).total).toBe(0);
      expect((await ok(t.client.GET('/api/v1/agents', { params: { query: { hostname: '_' } } }))).total).toBe(0);
    });

    it.each([
      ['status=SLEEPY', /status must be one of REACHABLE, UNREACHABLE, GONE/],
      ['sort=cpus', /sort must be one of/],
      ['limit=0', /limit must not be less than 1/],
      ['limit=501', /limit must not be greater than 500/],
      ['offset=-1', /offset must not be less than 0/],
      ['limit=ten', /limit must be a whole number/],
      ['activated=maybe', /activated must be true or false/],
      ['colour=blue', /property colour should not exist/],
    ])('refuses ?%s with VALIDATION_FAILED', async (query, message) => {
      const error = await refused(t.request('GET', `/api/v1/agents?${query}`), 400);
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.message).toMatch(message);
      expect(error.details?.errors).toEqual(arrayContaining([anything()]));
    });
  });

  it('gets one agent, and answers AGENT_NOT_FOUND for an unknown id', async () => {
    expect(await ok(t.client.GET('/api/v1/agents/{id}', agent('a1')))).toMatchObject({
      id: 'a1',
      hostname: 'node-1.rack-a',
      activated: true,
      drainState: null,
    });
    const missing = await refused(t.client.GET('/api/v1/agents/{id}', agent('nope')), 404);
    expect(missing).toEqual({
      statusCode: 404,
      code: 'AGENT_NOT_FOUND',
      message: stringContaining("'nope'"),
      details: { agentId: 'nope' },
    });
  });

  it('deactivates and reactivates, each change in the audit log with before and after', async () => {
    const off = await ok(t.client.POST('/api/v1/agents/{id}/deactivate', agent('a2')));
    expect(off.activated).toBe(false);
    await ok(t.client.POST('/api/v1/agents/{id}/deactivate', agent('a2')));
    const on = await ok(t.client.POST('/api/v1/agents/{id}/reactivate', agent('a2')));
    expect(on.activated).toBe(true);
    const audit = await ok(t.client.GET('/api/v1/audit', { params: { query: { targetType: 'agent', targetId: 'a2' } } }));
    expect(audit.items.map((e) => e.action)).toEqual(['agent.reactivate', 'agent.deactivate', 'agent.deactivate']);
    expect(audit.items[2]).toMatchObject({ actor: 'admin', before: { activated: true }, after: { activated: false } });
    expect(audit.items[0]).toMatchObject({ before: { activated: false }, after: { activated: true } });
  });

  it('drains an idle agent straight to DRAINED, and marks it GONE when asked', async () => {
    await seedAgent(t.cp, { id: 'idle' });
    const r = await ok(
      t.client.POST('/api/v1/agents/{id}/drain', { ...agent('idle'), body: { maxGracePeriodSeconds: 60, markGone: true } }),
    );
    expect(r).toMatchObject({
      activated: false,
      drainState: 'DRAINED',
      status: 'GONE',
      drainConfig: { maxGracePeriodSeconds: 60, markGone: true },
    });
    const again = await refused(t.client.POST('/api/v1/agents/{id}/reactivate', agent('idle')), 409);
    expect(again.code).toBe('AGENT_GONE');
  });

  it('drains a busy agent to DRAINING; refuses reactivation and a second drain until it is drained', async () => {
    await seedAgent(t.cp, { id: 'busy' });
    await t.cp.dataSource
      .getRepository(FrameworkEntity)
      .save(mockFramework({ id: 'fw1', name: 'fw', roles: ['r'], failoverTimeoutSeconds: 0 }));
    await t.cp.dataSource
      .getRepository(TaskEntity)
      .save(mockTask({ taskId: 't1', frameworkId: 'fw1', agentId: 'busy', role: 'r', resources: [{ name: 'cpus', value: 1 }] }));
    // An empty body: markGone is optional on the wire (false), though the OpenAPI document marks it required.
    const r = await t.request('POST', '/api/v1/agents/busy/drain', {});
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      activated: false,
      drainState: 'DRAINING',
      status: 'REACHABLE',
      drainConfig: { maxGracePeriodSeconds: null, markGone: false },
    });
    const reactivate = await refused(t.client.POST('/api/v1/agents/{id}/reactivate', agent('busy')), 409);
    expect(reactivate.code).toBe('AGENT_STILL_DRAINING');
    const twice = await refused(t.request('POST', '/api/v1/agents/busy/drain', {}), 409);
    expect(twice.code).toBe('AGENT_ALREADY_DRAINING');
    expect((await ok(t.client.GET('/api/v1/agents/{id}', agent('busy')))).drainState).toBe('DRAINING');
  });

  it('shows what sits on each agent: live tasks, outstanding offers, reservations, whitelist and maintenance', async () => {
    await seedAgent(t.cp, { id: 'u1', hostname: 'usage-1', resources: 'cpus:8;mem:16384;disk:1000;ports:[31000-32000]' });
    await seedAgent(t.cp, { id: 'u2', hostname: 'usage-2' });
    const now = new Date();
    await t.cp.dataSource
      .getRepository(FrameworkEntity)
      .save(mockFramework({ id: 'fw-u', name: 'fw', roles: ['r'], failoverTimeoutSeconds: 0 }));
    const task = (taskId: string, state: TaskState, cpus: number) =>
      mockTask({ taskId, frameworkId: 'fw-u', agentId: 'u1', role: 'r', state, cpus, mem: 1024, createdAt: now });
    await t.cp.dataSource
      .getRepository(TaskEntity)
      .save([task('live-1', TaskState.RUNNING, 1), task('live-2', TaskState.STAGING, 0.5), task('done', TaskState.FINISHED, 4)]);
    const outstanding = randomUUID();
    await t.cp.dataSource.getRepository(OutstandingOfferEntity).save({ offerId: outstanding });
    const offer = { frameworkId: 'fw-u', agentId: 'u1', role: 'r', createdAt: now };
    await t.cp.dataSource
      .getRepository(OfferEntity)
      .save([
        mockOffer({ ...offer, id: outstanding, resources: [{ name: 'cpus', value: 2 }] }),
        mockOffer({ ...offer, resources: [{ name: 'cpus', value: 3 }], state: OfferState.DECLINED, closedAt: now }),
      ]);
    await ok(t.client.POST('/api/v1/reservations', { body: { agentId: 'u1', role: 'eng', resources: 'cpus:1;mem:2048' } }), 201);
    await ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: ['usage-1'] } }));
    await ok(
      t.client.PUT('/api/v1/maintenance/schedule', {
        body: {
          windows: [{ machines: [{ hostname: 'usage-2' }], unavailability: { start: '2030-01-01T00:00:00Z', durationSeconds: 3600 } }],
        },
      }),
    );

    const page = await ok(t.client.GET('/api/v1/agents', { params: { query: { hostname: 'usage' } } }));
    const [u1, u2] = page.items;
    expect(u1.usage).toEqual({
      total: { cpus: 8, disk: 1000, mem: 16384 },
      used: { cpus: 1.5, mem: 2048 },
      offered: { cpus: 2 },
      reserved: { cpus: 1, mem: 2048 },
      activeTasks: 2,
      // Seeded agents are in no allocator's bookkeeping: nothing revocable.
      revocable: { total: {}, used: {}, offered: {} },
    });
    expect(u1).toMatchObject({ whitelisted: true, maintenance: null });
    expect(u2.usage).toEqual({
      total: { cpus: 4, disk: 10000, mem: 8192 },
      used: {},
      offered: {},
      reserved: {},
      activeTasks: 0,
      revocable: { total: {}, used: {}, offered: {} },
    });
    expect(u2).toMatchObject({
      whitelisted: false,
      maintenance: { mode: 'DRAINING', start: '2030-01-01T00:00:00.000Z', durationSeconds: 3600 },
    });
    expect((await ok(t.client.GET('/api/v1/agents/{id}', agent('u1')))).usage).toEqual(u1.usage);
    await ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: null } }));
    await ok(t.client.PUT('/api/v1/maintenance/schedule', { body: { windows: [] } }));
  });

  it.each([
    [{ maxGracePeriodSeconds: -5 }, /maxGracePeriodSeconds must not be less than 0/],
    [{ maxGracePeriodSeconds: 1.5 }, /whole number of seconds/],
    [{ markGone: 'yes' }, /markGone must be true or false/],
    [{ extra: 1 }, /property extra should not exist/],
  ])('refuses drain body %j without changing the agent', async (body, message) => {
    const error = await refused(t.request('POST', '/api/v1/agents/a1/drain', body), 400);
    expect(error.message).toMatch(message);
    expect(await ok(t.client.GET('/api/v1/agents/{id}', agent('a1')))).toMatchObject({ activated: true, drainState: null });
  });

  it('refuses malformed JSON with MALFORMED_JSON', async () => {
    const error = await refused(t.request('POST', '/api/v1/agents/a1/drain', '{"markGone": tru'), 400);
    expect(error.code).toBe('MALFORMED_JSON');
  });
});
