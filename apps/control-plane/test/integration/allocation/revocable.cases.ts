/**
 * Oversubscription as operators see it: an agent's revocable resources in its view (what it
 * reports, what revocable tasks hold, what is offered), read from the leader's allocator in a
 * turn of the serial order, and the same from the database as a standby reads it; revocable
 * tasks its QoS controller evicted (REASON_CONTAINER_PREEMPTED) listed by reason; view ACLs
 * apply to both.
 */
import { Resources } from '@arbiter/allocator';
import { LiveViewRepository } from '../../../src/master/live-view.repository';
import { ADMIN_TOKEN, STARTUP_TIMEOUT_MS, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

let t: TestControlPlane;
let viewer: string;
let frameworkId = '';
let agent: ProtocolAgent;
let agentId = '';
let plainId = '';
const closers: Array<() => void> = [];
const EVICTED = 'REASON_CONTAINER_PREEMPTED';

const only = (principal: string, object: string, values: string[]) => [
  { principals: { values: [principal] }, [object]: { values } },
  { principals: { values: [principal] }, [object]: { type: 'NONE' } },
];
const agentView = (id: string) => ok(t.client.GET('/api/v1/agents/{id}', { params: { path: { id } } }));
const revocableOf = async (id: string) => (await agentView(id)).usage.revocable;
const tasks = (query: Record<string, string>, token?: string) =>
  t.request('GET', `/api/v1/tasks?${new URLSearchParams(query).toString()}`, undefined, token ? { token } : {});

beforeAll(async () => {
  t = await startTestControlPlane({ config: { allocationInterval: 0.1 } });
  viewer = await t.principal('revocable-viewer', 'VIEWER');
  const acls = await t.request('PUT', '/api/v1/acls', {
    permissive: true,
    view_agents: only('revocable-viewer', 'agents', ['plain-host']),
    view_tasks: only('revocable-viewer', 'users', ['nobody']),
  });
  expect(acls.status).toBe(200);
  const f = new Recorder(t, { name: 'oversub', roles: ['oversub'], user: 'alice', capabilities: ['REVOCABLE_RESOURCES'] });
  closers.push(() => f.s.close());
  frameworkId = (await f.s.start()).frameworkId;
  agent = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
    hostname: 'oversub-host',
    resources: [...Resources.fromScalars({ cpus: 4, mem: 1024 }).toJSON(), { name: 'cpus', value: 2, revocable: true }],
  });
  closers.push(() => agent.close());
  agentId = await agent.register();
  const plain = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
    hostname: 'plain-host',
    resources: Resources.fromScalars({ cpus: 1, mem: 256 }).toJSON(),
  });
  closers.push(() => plain.close());
  plainId = await plain.register();

  // Offered first: the whole revocable total is in an outstanding offer.
  await until(() => f.offers.some((o) => o.agentId === agentId), 10_000, 'an offer of the oversubscribed agent');
  expect(await revocableOf(agentId)).toEqual({ total: { cpus: 2 }, used: {}, offered: { cpus: 2 } });
  // A revocable task holds one of the two cpus; the rest is declined for long, so nothing is offered meanwhile.
  const offer = defined(f.offers.find((o) => o.agentId === agentId));
  const resources = [...Resources.fromScalars({ mem: 64 }).toJSON(), { name: 'cpus', value: 1, revocable: true }];
  await f.s.launch(offer, [{ taskId: 'best-effort', name: 'best-effort', command: { shell: 'sleep 1000' }, resources }], {
    refuseSeconds: 3600,
  });
  await until(() => f.states('best-effort').includes('RUNNING'), 10_000, 'the revocable task RUNNING');
});
afterAll(async () => {
  for (const c of closers.splice(0)) c();
  await t.close();
});

describe("the agent view's revocable resources", () => {
  it('shows what the agent reports, what revocable tasks hold and what is offered; none on an agent that reports none', async () => {
    await until(async () => Object.keys((await revocableOf(agentId)).offered).length === 0, 10_000, 'the rest declined');
    expect(await revocableOf(agentId)).toEqual({ total: { cpus: 2 }, used: { cpus: 1 }, offered: {} });
    expect(await revocableOf(plainId)).toEqual({ total: {}, used: {}, offered: {} });
    const list = await ok(t.client.GET('/api/v1/agents'));
    expect(list.items.find((a) => a.id === agentId)?.usage.revocable).toEqual({ total: { cpus: 2 }, used: { cpus: 1 }, offered: {} });
    // The cluster's overview adds up the reachable agents'.
    expect((await ok(t.client.GET('/api/v1/cluster'))).revocable).toEqual({ total: { cpus: 2 }, used: { cpus: 1 }, offered: {} });
  });

  it(
    'answers on a standby from the database what the leader answers from its allocator',
    async () => {
      const leader = await revocableOf(agentId);
      const read = await t.cp.app.get(LiveViewRepository).revocable([agentId, plainId, 'no-such-agent']);
      expect(read.get(agentId)).toEqual(leader);
      expect(read.get(plainId)).toEqual({ total: {}, used: {}, offered: {} });
      expect(read.get('no-such-agent')).toEqual({ total: {}, used: {}, offered: {} });
      // A second replica on the same database is a standby: its agent view and overview read so.
      const standby = await startTestControlPlane({ databaseUrl: t.databaseUrl });
      try {
        expect(((await standby.request('GET', '/health')).body as { role: string }).role).toBe('standby');
        const view = await ok(standby.client.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } }));
        expect(view.usage.revocable).toEqual(leader);
        expect((await ok(standby.client.GET('/api/v1/cluster'))).revocable).toEqual(leader);
      } finally {
        await standby.stop();
      }
    },
    STARTUP_TIMEOUT_MS,
  );

  it('shows them only to whoever may view the agent', async () => {
    const refused = await t.request('GET', `/api/v1/agents/${agentId}`, undefined, { token: viewer });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN' });
    const seen = await t.request('GET', '/api/v1/agents', undefined, { token: viewer });
    expect((seen.body as { items: Array<{ id: string }> }).items.map((a) => a.id)).toEqual([plainId]);
  });
});

describe('evictions', () => {
  beforeAll(async () => {
    // The agent's QoS controller evicts the revocable task.
    await agent.status(frameworkId, 'best-effort', 'KILLED', EVICTED);
    await until(async () => Object.keys((await revocableOf(agentId)).used).length === 0, 10_000, 'its cpu given back');
  });

  it('lists the tasks ended with a reason, since a time', async () => {
    const evicted = await tasks({ reason: EVICTED });
    expect(evicted.status).toBe(200);
    expect(evicted.body).toMatchObject({ total: 1, items: [{ taskId: 'best-effort', state: 'KILLED', agentId }] });
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    expect((await tasks({ reason: EVICTED, updatedSince: hourAgo })).body).toMatchObject({ total: 1 });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect((await tasks({ reason: EVICTED, updatedSince: later })).body).toMatchObject({ total: 0, items: [] });
    expect((await tasks({ reason: 'REASON_COMMAND_EXITED' })).body).toMatchObject({ total: 0 });
  });

  it('lists them only to whoever may view the tasks of their framework', async () => {
    expect((await tasks({ reason: EVICTED }, viewer)).body).toMatchObject({ total: 0, items: [] });
  });

  it.each([
    [{ reason: 'preempted' }, 'reason'],
    [{ reason: "REASON_X' OR 1=1" }, 'reason'],
    [{ reason: `REASON_${'X'.repeat(200)}` }, 'reason'],
    [{ updatedSince: 'yesterday' }, 'updatedSince'],
  ])('refuses %j with VALIDATION_FAILED', async (query, field) => {
    const res = await tasks(query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining(field) as unknown });
  });
});
