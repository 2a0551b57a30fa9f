/**
 * View scope on every read that names frameworks, roles or agents (issue #27 item 11): two
 * teams, each a framework (its own principal, user and role) with an offer on its own agent; a
 * viewer whose view ACLs name only team A's user, roles, agent (a hostname glob) and principals reads
 * none of team B's data from the agents (list, detail, Mesos's /master/slaves and /master/state), the whitelist, offers, allocation history (cycles, one cycle, shares, export),
 * audit log, weights, quota, /events, /metrics and /metrics/snapshot, while the admin reads both.
 * And the ACLs of their own: update_whitelist, get_endpoints, and /metrics refused without a token.
 */
import { Scheduler } from '@arbiter/scheduler-sdk';
import { io, type Socket } from 'socket.io-client';
import { ProtocolAgent } from '../../support/fake-agent';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { until } from '../../support/until';

let t: TestControlPlane;
let viewer: string;
let operator: string;
let noMetrics: string;
const ids: { a: string; b: string } = { a: '', b: '' };
const agentIds: Record<string, string> = {};
const closers: Array<() => void> = [];
const events: Record<'viewer' | 'admin', Array<{ event: string; payload: Record<string, unknown> }>> = { viewer: [], admin: [] };

function listen(token: string, into: Array<{ event: string; payload: Record<string, unknown> }>): Promise<Socket> {
  const socket = io(`${t.cp.url}/events`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  socket.onAny((event: string, payload: Record<string, unknown>) => into.push({ event, payload }));
  closers.push(() => socket.disconnect());
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

const only = (principal: string, object: string, values: string[]) => [
  { principals: { values: [principal] }, [object]: { values } },
  { principals: { values: [principal] }, [object]: { type: 'NONE' } },
];

async function get(path: string, token?: string): Promise<unknown> {
  const res = await t.request('GET', path, undefined, token ? { token } : {});
  expect(res.status).toBe(200);
  return res.body;
}

/** Every string in a JSON value (or the text itself). */
const text = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body));

beforeAll(async () => {
  t = await startTestControlPlane();
  viewer = await t.principal('viewer-a', 'VIEWER');
  operator = await t.principal('ops-a', 'OPERATOR');
  noMetrics = await t.principal('no-metrics', 'VIEWER');
  const fwA = await t.principal('fw-a', 'FRAMEWORK');
  const fwB = await t.principal('fw-b', 'FRAMEWORK');
  expect(
    (
      await t.request('PUT', '/api/v1/acls', {
        permissive: true,
        view_frameworks: only('viewer-a', 'users', ['alice']),
        view_roles: only('viewer-a', 'roles', ['team-a', 'team-a/*']),
        view_agents: only('viewer-a', 'agents', ['*-a']),
        view_audit: only('viewer-a', 'actor_principals', ['fw-a', 'viewer-a']),
        get_endpoints: [{ principals: { values: ['no-metrics'] }, paths: { type: 'NONE' } }],
        update_whitelist: only('ops-a', 'agents', ['node-a']),
      })
    ).status,
  ).toBe(200);
  await listen(viewer, events.viewer);
  await listen(ADMIN_TOKEN, events.admin);
  expect(
    (
      await t.request('PUT', '/api/v1/weights', {
        weights: [
          { role: 'team-a', weight: 2 },
          { role: 'team-b', weight: 3 },
        ],
      })
    ).status,
  ).toBe(200);
  const quota = await t.request('PUT', '/api/v1/quota', {
    quotas: [
      { role: 'team-a', limits: { cpus: 10 } },
      { role: 'team-b', limits: { cpus: 10 } },
    ],
    force: true,
  });
  expect(quota.status).toBe(200);
  expect((await t.request('PUT', '/api/v1/whitelist', { hostnames: ['node-a', 'node-b'] })).status).toBe(200);
  const offered = new Set<string>();
  for (const [key, token, user] of [
    ['a', fwA, 'alice'],
    ['b', fwB, 'bob'],
  ] as const) {
    const s = new Scheduler({ master: t.cp.url, token, framework: { name: `team-${key}`, roles: [`team-${key}`], user } });
    s.on('offers', () => offered.add(key));
    ids[key] = (await s.start()).frameworkId;
    closers.push(() => s.close());
  }
  // The agents come once both frameworks are there, so that each gets one agent's offer.
  for (const host of ['node-a', 'node-b']) {
    const agent = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
      hostname: host,
      resources: [
        { name: 'cpus', value: 2 },
        { name: 'mem', value: 256 },
      ],
    });
    agentIds[host] = await agent.register();
    closers.push(() => agent.close());
  }
  // Both teams hold offers, and a cycle's event has reached both listeners with both teams' shares.
  await until(() => offered.has('a') && offered.has('b'), 'offers to both teams');
  await until(
    () => [events.admin, events.viewer].every((list) => list.some((e) => e.event === 'offer.created' && e.payload.frameworkId === ids.a)),
    'offer events',
  );
  await until(() => events.admin.some((e) => e.event === 'cycle' && text(e.payload).includes('team-b')), 'a cycle event');
});

afterAll(async () => {
  for (const close of closers) close();
  await t.close();
});

interface AgentPage {
  items: Array<{ id: string; hostname: string }>;
  total: number;
}

it('lists the viewer only the agents whose hostname view_agents allows, with the total, and refuses the others’ detail', async () => {
  const mine = (await get('/api/v1/agents', viewer)) as AgentPage;
  expect(mine.items.map((a) => a.hostname)).toEqual(['node-a']);
  expect(mine.total).toBe(1);
  const all = (await get('/api/v1/agents')) as AgentPage;
  expect(all.items.map((a) => a.hostname)).toEqual(['node-a', 'node-b']);
  expect(all.total).toBe(2);
  const idOf = (host: string) => all.items.find((a) => a.hostname === host)?.id ?? 'none';
  expect(await get(`/api/v1/agents/${idOf('node-a')}`, viewer)).toMatchObject({ hostname: 'node-a' });
  expect(await t.request('GET', `/api/v1/agents/${idOf('node-b')}`, undefined, { token: viewer })).toMatchObject({
    status: 403,
    body: { code: 'FORBIDDEN' },
  });
  expect(await get(`/api/v1/agents/${idOf('node-b')}`)).toMatchObject({ hostname: 'node-b' });
});

interface Slaves {
  slaves: Array<{ hostname: string }>;
}

it('shows the viewer only its agents on Mesos’s /master/slaves and /master/state', async () => {
  const hosts = async (path: string, token?: string) => ((await get(path, token)) as Slaves).slaves.map((s) => s.hostname);
  expect(await hosts('/master/slaves', viewer)).toEqual(['node-a']);
  expect(await hosts('/master/state', viewer)).toEqual(['node-a']);
  expect(await hosts('/master/slaves')).toEqual(['node-a', 'node-b']);
  expect(await hosts('/master/state')).toEqual(['node-a', 'node-b']);
});

it('shows the viewer only its agents in the whitelist', async () => {
  expect(await get('/api/v1/whitelist', viewer)).toEqual({ hostnames: ['node-a'] });
  expect(await get('/api/v1/whitelist')).toEqual({ hostnames: ['node-a', 'node-b'] });
});

it('shows the viewer only its frameworks’ offers', async () => {
  const frameworks = async (token?: string) =>
    new Set(((await get('/api/v1/offers?limit=500', token)) as { items: Array<{ frameworkId: string }> }).items.map((o) => o.frameworkId));
  expect([...(await frameworks(viewer))]).toEqual([ids.a]);
  expect(await frameworks()).toEqual(new Set([ids.a, ids.b]));
});

it('shows the viewer none of the other team’s allocation history: cycles, a cycle, shares and exports', async () => {
  const cycles = (q: string, token?: string) => get(`/api/v1/allocations?${q}`, token) as Promise<{ items: Array<{ id: string }> }>;
  expect((await cycles('role=team-b', viewer)).items).toEqual([]);
  expect((await cycles(`frameworkId=${ids.b}`, viewer)).items).toEqual([]);
  const withB = (await cycles('role=team-b')).items;
  expect(withB.length).toBeGreaterThan(0);
  expect((await cycles('role=team-a', viewer)).items.length).toBeGreaterThan(0);
  for (const { id } of withB) {
    expect(text(await get(`/api/v1/allocations/${id}`))).toContain(ids.b);
    const seen = text(await get(`/api/v1/allocations/${id}`, viewer));
    expect(seen).not.toContain(ids.b);
    expect(seen).not.toContain('team-b');
  }
  for (const kind of ['ROLE', 'FRAMEWORK']) {
    const clients = async (token?: string) =>
      new Set(((await get(`/api/v1/allocations/shares?kind=${kind}`, token)) as Array<{ client: string }>).map((p) => p.client));
    const mine = kind === 'ROLE' ? 'team-a' : ids.a;
    const theirs = kind === 'ROLE' ? 'team-b' : ids.b;
    expect(await clients(viewer)).toEqual(new Set([mine]));
    expect(await clients()).toEqual(new Set([mine, theirs]));
  }
  for (const format of ['json', 'csv']) {
    const all = text(await get(`/api/v1/allocations/export?format=${format}`));
    expect(all).toContain(ids.b);
    expect(all).toContain('team-b');
    const seen = text(await get(`/api/v1/allocations/export?format=${format}`, viewer));
    expect(seen).toContain(ids.a);
    expect(seen).not.toContain(ids.b);
    expect(seen).not.toContain('team-b');
  }
});

it('shows the viewer only the audit entries of the principals and roles it may see', async () => {
  const entries = async (token?: string) =>
    ((await get('/api/v1/audit?limit=500', token)) as { items: Array<{ actor: string; targetType: string; targetId: string | null }> })
      .items;
  const seen = await entries(viewer);
  expect(seen.some((e) => e.actor === 'fw-a')).toBe(true);
  expect(seen.every((e) => ['fw-a', 'viewer-a'].includes(e.actor))).toBe(true);
  expect(text(seen)).not.toContain('team-b');
  const all = await entries();
  expect(all.some((e) => e.actor === 'fw-b')).toBe(true);
  expect(all.some((e) => e.targetType === 'role' && e.targetId === 'team-b')).toBe(true);
});

it('shows the viewer only its roles’ weights and quota', async () => {
  expect(await get('/api/v1/weights', viewer)).toEqual([{ role: 'team-a', weight: 2 }]);
  expect(((await get('/api/v1/quota', viewer)) as Array<{ role: string }>).map((q) => q.role)).toEqual(['team-a']);
  expect(((await get('/api/v1/weights')) as Array<{ role: string }>).map((w) => w.role)).toEqual(['team-a', 'team-b']);
  expect(((await get('/api/v1/quota')) as Array<{ role: string }>).map((q) => q.role)).toEqual(['team-a', 'team-b']);
});

it('streams the viewer only the events of its frameworks and roles on /events', () => {
  const mentionsB = (e: { payload: Record<string, unknown> }) => text(e.payload).includes(ids.b) || text(e.payload).includes('team-b');
  expect(events.viewer.filter(mentionsB)).toEqual([]);
  expect(events.viewer.some((e) => e.event === 'framework.added' && e.payload.frameworkId === ids.a)).toBe(true);
  expect(events.viewer.some((e) => e.event === 'cycle' && text(e.payload).includes('team-a'))).toBe(true);
  expect(events.admin.some((e) => e.event === 'framework.added' && e.payload.frameworkId === ids.b)).toBe(true);
  expect(events.admin.some((e) => e.event === 'offer.created' && e.payload.frameworkId === ids.b)).toBe(true);
  // Agents' events by view_agents: node-a's, not node-b's.
  const agentEvents = (list: typeof events.viewer, host: string) =>
    list.filter((e) => e.event.startsWith('agent.') && e.payload.agentId === agentIds[host]).map((e) => e.event);
  expect(agentEvents(events.viewer, 'node-a')).toContain('agent.added');
  expect(agentEvents(events.viewer, 'node-b')).toEqual([]);
  expect(agentEvents(events.admin, 'node-b')).toContain('agent.added');
});

it('serves /metrics and /metrics/snapshot to a token the get_endpoints ACL allows, with only the viewer’s roles', async () => {
  expect((await t.request('GET', '/metrics', undefined, { token: null })).status).toBe(401);
  expect((await t.request('GET', '/metrics/snapshot', undefined, { token: null })).status).toBe(401);
  expect(await t.request('GET', '/metrics', undefined, { token: noMetrics })).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
  expect((await t.request('GET', '/metrics/snapshot', undefined, { token: noMetrics })).status).toBe(403);
  const all = text(await get('/metrics'));
  expect(all).toMatch(/^arbiter_role_dominant_share\{role="team-b"\}/m);
  expect(all).toMatch(/^arbiter_role_quota\{role="team-b"/m);
  const seen = text(await get('/metrics', viewer));
  expect(seen).toMatch(/^arbiter_role_dominant_share\{role="team-a"\}/m);
  expect(seen).toMatch(/^arbiter_leader 1$/m);
  expect(seen).not.toContain('team-b');
  expect(text(await get('/metrics/snapshot'))).toContain('roles/team-b/');
  const snapshot = text(await get('/metrics/snapshot', viewer));
  expect(snapshot).toContain('roles/team-a/');
  expect(snapshot).not.toContain('team-b');
});

it('changes the whitelist only for the hostnames the update_whitelist ACL allows, and changes nothing when it refuses', async () => {
  const refused = [
    ['PATCH', { add: ['node-c'] }],
    ['PATCH', { remove: ['node-b'] }],
    ['PUT', { hostnames: ['node-a', 'node-c'] }],
    ['PUT', { hostnames: null }],
  ] as const;
  for (const [method, body] of refused)
    expect(await t.request(method, '/api/v1/whitelist', body, { token: operator })).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN' },
    });
  expect(await get('/api/v1/whitelist')).toEqual({ hostnames: ['node-a', 'node-b'] });
  expect(await t.request('PATCH', '/api/v1/whitelist', { remove: ['node-a'] }, { token: operator })).toMatchObject({ status: 200 });
  expect(await get('/api/v1/whitelist')).toEqual({ hostnames: ['node-b'] });
});

it('tells the viewer on /events that its framework was removed, and nothing of the other team’s removal', async () => {
  for (const id of [ids.a, ids.b]) expect((await t.request('POST', `/api/v1/frameworks/${id}/teardown`)).status).toBe(200);
  const removed = (list: typeof events.viewer) => list.filter((e) => e.event === 'framework.removed').map((e) => e.payload.frameworkId);
  await until(() => removed(events.admin).length === 2, 'both removals on the admin’s stream');
  await until(() => removed(events.viewer).includes(ids.a), 'the removal of its framework on the viewer’s stream');
  expect(removed(events.viewer)).toEqual([ids.a]);
});
