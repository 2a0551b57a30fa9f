/**
 * Who may do what: the authorization matrix over every REST operation (read from the OpenAPI
 * document, so a new route cannot be forgotten), an ACL test per operator action, and the
 * protocol side: each takeover a principal could try on another's framework, agent or task,
 * kinds on namespaces, message size before authentication, a revoked token's open socket.
 */
import { Scheduler } from '@arbiter/scheduler-sdk';
import type { Reply } from '@arbiter/contracts';
import { io, type Socket } from 'socket.io-client';
import { WebSocket } from 'ws';
import { ProtocolAgent } from '../../support/fake-agent';
import { AuthService } from '../../../src/auth/auth.service';
import { startTestControlPlane, type TestControlPlane } from '../../support/app';
import { defined, until } from '../../support/until';

interface Operation {
  method: string;
  path: string;
  permission: string;
  acl?: string;
}

const KINDS = ['ADMIN', 'OPERATOR', 'VIEWER', 'FRAMEWORK', 'AGENT'] as const;
const GRANTS: Record<string, readonly string[]> = {
  public: ['none', ...KINDS],
  any: KINDS,
  read: ['ADMIN', 'OPERATOR', 'VIEWER'],
  operate: ['ADMIN', 'OPERATOR'],
  admin: ['ADMIN'],
};

let t: TestControlPlane;
const tokens: Record<string, string> = {};

async function auditChanges(): Promise<number> {
  const all = await t.request('GET', '/api/v1/audit?limit=1');
  const denied = await t.request('GET', '/api/v1/audit?limit=1&action=access.denied');
  return (all.body as { total: number }).total - (denied.body as { total: number }).total;
}

function connect(namespace: string, token: string | undefined): Promise<{ socket: Socket; error?: { message: string; code?: string } }> {
  const socket = io(`${t.cp.url}${namespace}`, {
    auth: token ? { token } : {},
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  return new Promise((resolve) => {
    socket.once('connect', () => resolve({ socket }));
    socket.once('connect_error', (err: Error & { data?: { code?: string } }) =>
      resolve({ socket, error: { message: err.message, code: err.data?.code } }),
    );
  });
}

beforeAll(async () => {
  t = await startTestControlPlane();
  for (const kind of KINDS.filter((k) => k !== 'ADMIN')) tokens[kind] = await t.principal(kind.toLowerCase(), kind);
});
afterAll(() => t.close());

describe('authorization matrix (every REST operation of the OpenAPI document)', () => {
  let operations: Operation[];

  beforeAll(async () => {
    const doc = (await t.request('GET', '/api/docs-json')).body as {
      paths: Record<string, Record<string, { 'x-arbiter-permission'?: string; 'x-arbiter-acl'?: string }>>;
    };
    operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        permission: op['x-arbiter-permission'] ?? '(none)',
        ...(op['x-arbiter-acl'] ? { acl: op['x-arbiter-acl'] } : {}),
      })),
    );
  });

  it('documents a permission on every operation', () => {
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((o) => !(o.permission in GRANTS))).toEqual([]);
  });

  it('refuses every caller without the permission (401 without a token, 403 FORBIDDEN otherwise) and changes nothing', async () => {
    const before = await auditChanges();
    const callers: Array<[string, string | null]> = [
      ['none', null],
      ...KINDS.filter((k) => k !== 'ADMIN').map((k): [string, string] => [k, tokens[k]]),
    ];
    const wrong: string[] = [];
    for (const op of operations) {
      const url = op.path.replace(/\{[^}]+\}/g, 'does-not-exist');
      for (const [who, token] of callers) {
        if (GRANTS[op.permission].includes(who)) continue;
        const res = await t.request(op.method, url, op.method === 'GET' ? undefined : {}, { token });
        const code = (res.body as { code?: string } | null)?.code;
        const expected = token === null ? [401, 'AUTH_TOKEN_MISSING'] : [403, 'FORBIDDEN'];
        if (res.status !== expected[0] || code !== expected[1]) wrong.push(`${who} ${op.method} ${op.path}: ${res.status} ${code}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await auditChanges()).toBe(before);
  });

  it('lets every caller with the permission past authorization', async () => {
    const wrong: string[] = [];
    for (const op of operations) {
      // Harmless requests: unknown ids and empty bodies are refused by validation or lookup, not by authorization.
      const url = op.path.replace(/\{[^}]+\}/g, 'does-not-exist');
      for (const who of GRANTS[op.permission]) {
        if (who === 'none') continue;
        const res = await t.request(op.method, url, op.method === 'GET' ? undefined : {}, who === 'ADMIN' ? {} : { token: tokens[who] });
        if (res.status === 401 || res.status === 403) wrong.push(`${who} ${op.method} ${op.path}: ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('records refused calls in the audit log with the principal, rate-limited per principal', async () => {
    const flooder = await t.principal('flooder', 'VIEWER');
    for (let i = 0; i < 30; i++) await t.request('PUT', '/api/v1/weights', { weights: [{ role: 'flood', weight: 2 }] }, { token: flooder });
    const denied = (await t.request('GET', '/api/v1/audit?limit=500&action=access.denied&actor=flooder')).body as {
      items: Array<{ actor: string; after: { what: string; reason: string } }>;
    };
    expect(denied.items.length).toBe(10);
    expect(denied.items[0]).toMatchObject({ actor: 'flooder', after: { what: 'PUT /api/v1/weights', reason: "needs 'operate'" } });
  });
});

describe('principals and tokens', () => {
  it('issues a token shown once, lists it without its secret, and revokes it at once', async () => {
    const issued = (await t.request('POST', '/api/v1/principals/viewer/tokens', { name: 'short', ttlSeconds: 3600 })).body as {
      id: string;
      token: string;
      expiresAt: string;
    };
    expect(issued.token).toMatch(/^arb_/);
    expect(new Date(issued.expiresAt).getTime()).toBeGreaterThan(Date.now());
    expect((await t.request('GET', '/api/v1/whoami', undefined, { token: issued.token })).body).toEqual({
      principal: 'viewer',
      kind: 'VIEWER',
    });
    const listed = (await t.request('GET', '/api/v1/principals/viewer/tokens')).body as Array<Record<string, unknown>>;
    expect(listed.find((x) => x.id === issued.id)).toMatchObject({ name: 'short', revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(issued.token);
    expect((await t.request('DELETE', `/api/v1/tokens/${issued.id}`)).status).toBe(200);
    const after = await t.request('GET', '/api/v1/whoami', undefined, { token: issued.token });
    expect(after.status).toBe(401);
    const audit = (await t.request('GET', `/api/v1/audit?targetId=${issued.id}`)).body as { items: Array<{ action: string }> };
    expect(audit.items.map((a) => a.action).sort()).toEqual(['token.issue', 'token.revoke']);
  });

  it('starts a session as a short-lived token of the caller, never past the token that asked, which only that session can end', async () => {
    const parent = (await t.request('POST', '/api/v1/principals/viewer/tokens', { name: 'two hours', ttlSeconds: 7200 })).body as {
      token: string;
      expiresAt: string;
    };
    const started = await t.request('POST', '/api/v1/sessions', undefined, { token: parent.token });
    expect(started.status).toBe(201);
    const session = started.body as { id: string; token: string; principal: string; name: string; expiresAt: string };
    expect(session).toMatchObject({ principal: 'viewer', name: 'dashboard session' });
    expect(session.token).not.toBe(parent.token);
    expect(new Date(session.expiresAt).getTime()).toBeLessThanOrEqual(new Date(parent.expiresAt).getTime());
    const long = (await t.request('POST', '/api/v1/sessions')).body as { expiresAt: string };
    expect(new Date(long.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(12 * 3600 * 1000);
    expect((await t.request('GET', '/api/v1/whoami', undefined, { token: session.token })).body).toEqual({
      principal: 'viewer',
      kind: 'VIEWER',
    });

    // A token that is not a session cannot end itself through here.
    const notSession = await t.request('DELETE', '/api/v1/sessions/current', undefined, { token: parent.token });
    expect([notSession.status, (notSession.body as { code: string }).code]).toEqual([409, 'NOT_A_SESSION']);
    expect((await t.request('GET', '/api/v1/whoami', undefined, { token: parent.token })).status).toBe(200);

    const ended = await t.request('DELETE', '/api/v1/sessions/current', undefined, { token: session.token });
    expect([ended.status, (ended.body as { id: string }).id]).toEqual([200, session.id]);
    expect((await t.request('GET', '/api/v1/whoami', undefined, { token: session.token })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/whoami', undefined, { token: parent.token })).status).toBe(200);
    const audit = (await t.request('GET', `/api/v1/audit?targetId=${session.id}`)).body as {
      items: Array<{ action: string; actor: string }>;
    };
    expect(audit.items.map((a) => `${a.actor} ${a.action}`).sort()).toEqual(['viewer token.issue', 'viewer token.revoke']);
    const framework = await t.request('POST', '/api/v1/sessions', undefined, { token: tokens.FRAMEWORK });
    expect([framework.status, (framework.body as { code: string }).code]).toEqual([403, 'FORBIDDEN']);
  });

  it('refuses a duplicate principal, an unknown kind and a token for a disabled principal', async () => {
    expect((await t.request('POST', '/api/v1/principals', { name: 'viewer', kind: 'VIEWER' })).body).toMatchObject({
      code: 'PRINCIPAL_EXISTS',
    });
    expect((await t.request('POST', '/api/v1/principals', { name: 'x', kind: 'ROOT' })).body).toMatchObject({ code: 'VALIDATION_FAILED' });
    const token = await t.principal('short-lived', 'VIEWER');
    expect((await t.request('POST', '/api/v1/principals/short-lived/disable')).status).toBe(200);
    expect((await t.request('GET', '/api/v1/whoami', undefined, { token })).status).toBe(401);
    expect((await t.request('POST', '/api/v1/principals/short-lived/tokens', {})).body).toMatchObject({ code: 'PRINCIPAL_DISABLED' });
  });
});

describe('ACLs', () => {
  let agent: ProtocolAgent;
  let agentId: string;
  let denied: string;
  let operator: string;

  beforeAll(async () => {
    denied = await t.principal('op-denied', 'OPERATOR');
    operator = await t.principal('op-allowed', 'OPERATOR');
    agent = new ProtocolAgent(t.cp.url, tokens.AGENT, {
      hostname: 'acl-node',
      resources: [
        { name: 'cpus', value: 4 },
        { name: 'mem', value: 4096 },
      ],
    });
    agentId = await agent.register();
    const none = (object: string) => ({ principals: { values: ['op-denied'] }, [object]: { type: 'NONE' } });
    const put = await t.request('PUT', '/api/v1/acls', {
      permissive: true,
      update_weights: [none('roles')],
      update_quotas: [none('roles')],
      reserve_resources: [none('roles')],
      unreserve_resources: [none('reserver_principals')],
      update_maintenance_schedule: [none('machines')],
      start_maintenance: [none('machines')],
      stop_maintenance: [none('machines')],
      deactivate_agents: [none('agents')],
      drain_agents: [none('agents')],
      mark_agents_gone: [{ principals: { values: ['op-allowed'] }, agents: { type: 'NONE' } }],
      teardown_frameworks: [none('framework_principals')],
    });
    expect(put.status).toBe(200);
  });
  afterAll(() => agent.close());

  it('validates a document and names every problem, changing nothing', async () => {
    const before = (await t.request('GET', '/api/v1/acls')).body;
    const bad = await t.request('PUT', '/api/v1/acls', { run_tasks: [{ principals: { type: 'ANY' }, roles: { type: 'ANY' } }], bogus: [] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'ACLS_INVALID' });
    expect((await t.request('GET', '/api/v1/acls')).body).toEqual(before);
    expect((await t.request('GET', '/api/v1/acls', undefined, { token: operator })).status).toBe(403);
  });

  it('refuses each operator action the ACL denies, allows it to another operator, and audits the change', async () => {
    const start = new Date(Date.now() + 3600_000).toISOString();
    const calls: Array<[string, string, unknown, string]> = [
      ['PUT', '/api/v1/weights', { weights: [{ role: 'a', weight: 2 }] }, 'update_weights'],
      ['PUT', '/api/v1/quota', { quotas: [{ role: 'a', guarantees: 'cpus:1' }] }, 'update_quotas'],
      ['DELETE', '/api/v1/quota/a', undefined, 'update_quotas'],
      ['POST', '/api/v1/reservations', { agentId, role: 'a', resources: 'cpus:1' }, 'reserve_resources'],
      [
        'PUT',
        '/api/v1/maintenance/schedule',
        { windows: [{ machines: [{ hostname: 'other-node' }], unavailability: { start } }] },
        'update_maintenance_schedule',
      ],
      ['POST', '/api/v1/maintenance/start', { machines: [{ hostname: 'other-node' }] }, 'start_maintenance'],
      ['POST', '/api/v1/maintenance/stop', { machines: [{ hostname: 'other-node' }] }, 'stop_maintenance'],
      ['POST', `/api/v1/agents/${agentId}/deactivate`, {}, 'deactivate_agents'],
      ['POST', `/api/v1/agents/${agentId}/reactivate`, {}, 'deactivate_agents'],
    ];
    for (const [method, url, body, action] of calls) {
      const refused = await t.request(method, url, body, { token: denied });
      expect([method, url, refused.status, (refused.body as { code: string }).code]).toEqual([method, url, 403, 'FORBIDDEN']);
      expect((refused.body as { message: string }).message).toContain(`ACL ${action}`);
      const allowed = await t.request(method, url, body, { token: operator });
      expect([method, url, allowed.status]).toEqual([method, url, expect.any(Number)]);
      expect(allowed.status).toBeLessThan(300);
      if (url === '/api/v1/reservations') {
        const id = (allowed.body as { id: string }).id;
        const unreserve = await t.request('DELETE', `/api/v1/reservations/${id}`, undefined, { token: denied });
        expect(unreserve.status).toBe(403);
        expect((await t.request('DELETE', `/api/v1/reservations/${id}`, undefined, { token: operator })).status).toBe(204);
      }
    }
    const audit = (await t.request('GET', '/api/v1/audit?limit=500&actor=op-allowed')).body as { items: Array<{ action: string }> };
    // (Its refused GET /acls above is there too, as access.denied.)
    expect(new Set(audit.items.map((a) => a.action).filter((a) => a !== 'access.denied'))).toEqual(
      new Set([
        'weights.update',
        'quota.update',
        'quota.remove',
        'reservation.create',
        'reservation.remove',
        'maintenance.schedule.update',
        'maintenance.start',
        'maintenance.stop',
        'agent.deactivate',
        'agent.reactivate',
      ]),
    );
    expect((await t.request('GET', '/api/v1/audit?limit=1&actor=op-denied&action=weights.update')).body).toMatchObject({ total: 0 });
  });

  it('checks drain_agents, and mark_agents_gone when a drain marks the agent gone', async () => {
    expect((await t.request('POST', `/api/v1/agents/${agentId}/drain`, {}, { token: denied })).status).toBe(403);
    const gone = await t.request('POST', `/api/v1/agents/${agentId}/drain`, { markGone: true }, { token: operator });
    expect(gone.status).toBe(403);
    expect((gone.body as { message: string }).message).toContain('ACL mark_agents_gone');
    expect((await t.request('POST', `/api/v1/agents/${agentId}/drain`, {}, { token: operator })).status).toBe(200);
  });

  it('checks teardown_frameworks against the framework principal', async () => {
    const s = new Scheduler({ master: t.cp.url, token: tokens.FRAMEWORK, framework: { name: 'victim', roles: ['a'] } });
    const { frameworkId } = await s.start();
    const refused = await t.request('POST', `/api/v1/frameworks/${frameworkId}/teardown`, undefined, { token: denied });
    expect(refused.status).toBe(403);
    expect((await t.request('GET', `/api/v1/frameworks/${frameworkId}`)).body).toMatchObject({ state: 'ACTIVE' });
    expect((await t.request('POST', `/api/v1/frameworks/${frameworkId}/teardown`, undefined, { token: operator })).status).toBe(200);
    const audit = (await t.request('GET', `/api/v1/audit?targetId=${frameworkId}`)).body as {
      items: Array<{ action: string; actor: string }>;
    };
    expect(audit.items.map((a) => [a.action, a.actor])).toEqual([
      ['framework.teardown', 'op-allowed'],
      ['framework.register', 'framework'],
    ]);
    s.close();
  });

  it('checks register_frameworks, run_tasks and register_agents on the protocols', async () => {
    const team = await t.principal('team-b', 'FRAMEWORK');
    const agentB = await t.principal('agent-b', 'AGENT');
    await t.request('PUT', '/api/v1/acls', {
      permissive: true,
      register_frameworks: [
        { principals: { values: ['team-b'] }, roles: { values: ['b', 'b/*'] } },
        { principals: { values: ['team-b'] }, roles: { type: 'NONE' } },
      ],
      run_tasks: [
        { principals: { values: ['team-b'] }, users: { values: ['nobody'] } },
        { principals: { values: ['team-b'] }, users: { type: 'NONE' } },
      ],
      register_agents: [
        { principals: { values: ['agent-b'] }, agents: { values: ['b-*'] } },
        { principals: { values: ['agent-b'] }, agents: { type: 'NONE' } },
      ],
    });
    const outside = new Scheduler({ master: t.cp.url, token: team, framework: { name: 'x', roles: ['a'] } });
    await expect(outside.start()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    outside.close();
    const wrongHost = new ProtocolAgent(t.cp.url, agentB, { hostname: 'a-node', resources: [{ name: 'cpus', value: 1 }] });
    await expect(wrongHost.register()).rejects.toThrow(/ACL register_agents/);
    wrongHost.close();
    // `*` stays within one DNS label.
    const longer = new ProtocolAgent(t.cp.url, agentB, { hostname: 'b-node.elsewhere', resources: [{ name: 'cpus', value: 1 }] });
    await expect(longer.register()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    longer.close();
    const node = new ProtocolAgent(t.cp.url, agentB, {
      hostname: 'b-node',
      resources: [
        { name: 'cpus', value: 2 },
        { name: 'mem', value: 512 },
      ],
    });
    await node.register();
    const s = new Scheduler({ master: t.cp.url, token: team, framework: { name: 'team-b', roles: ['b/ml'] } });
    const offers: Array<{ id: string; hostname: string }> = [];
    s.on('offers', (o) => offers.push(...o));
    await s.start();
    await until(() => offers.some((o) => o.hostname === 'b-node'));
    const offer = defined(offers.find((o) => o.hostname === 'b-node'));
    const task = (user: string) => ({
      taskId: `t-${user}`,
      name: 't',
      user,
      command: { shell: 'true' },
      resources: [{ name: 'cpus', value: 0.1 }],
    });
    await expect(s.accept([offer.id], [{ type: 'LAUNCH', tasks: [task('root')] }])).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await s.accept([offer.id], [{ type: 'LAUNCH', tasks: [task('nobody')] }])).toEqual({ launched: ['t-nobody'] });
    await until(() => node.tasks.get('t-nobody') !== undefined);
    // The user the ACL allowed is the one the agent is told to run the task as.
    expect(node.launches.find((l) => l.task.taskId === 't-nobody')?.task.user).toBe('nobody');
    s.close();
    node.close();
  });

  it("sends a task the framework's user when it names none, kept with the task for a later launch", async () => {
    const node = new ProtocolAgent(t.cp.url, tokens.AGENT, {
      hostname: 'user-node',
      resources: [
        { name: 'cpus', value: 2 },
        { name: 'mem', value: 512 },
      ],
    });
    await node.register();
    const offersOf = async (s: Scheduler) => {
      const offers: Array<{ id: string; hostname: string }> = [];
      s.on('offers', (o) => offers.push(...o));
      await s.start();
      await until(() => offers.some((o) => o.hostname === 'user-node'));
      return defined(offers.find((o) => o.hostname === 'user-node'));
    };
    const spec = (taskId: string, user?: string) => ({
      taskId,
      name: 't',
      ...(user ? { user } : {}),
      command: { shell: 'true' },
      resources: [{ name: 'cpus', value: 0.1 }],
    });
    const daemon = new Scheduler({
      master: t.cp.url,
      token: tokens.FRAMEWORK,
      framework: { name: 'as-daemon', roles: ['u'], user: 'daemon' },
    });
    const offer = await offersOf(daemon);
    const launched = await daemon.accept([offer.id], [{ type: 'LAUNCH', tasks: [spec('inherits'), spec('names-its-own', 'nobody')] }]);
    expect(launched).toEqual({ launched: ['inherits', 'names-its-own'] });
    await until(() => node.launches.length >= 2);
    expect(node.launches.map((l) => [l.task.taskId, l.task.user])).toEqual([
      ['inherits', 'daemon'],
      ['names-its-own', 'nobody'],
    ]);
    const stored = (await t.request('GET', `/api/v1/tasks?frameworkId=${defined(daemon.frameworkId)}`)).body as { items: unknown[] };
    expect(stored.items).toHaveLength(2);
    daemon.close();

    // A framework user that is no OS user name is refused before anything is launched.
    const odd = new Scheduler({ master: t.cp.url, token: tokens.FRAMEWORK, framework: { name: 'odd', roles: ['u2'], user: 'Not A User' } });
    const oddOffer = await offersOf(odd);
    await expect(odd.accept([oddOffer.id], [{ type: 'LAUNCH', tasks: [spec('odd-task')] }])).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
    });
    expect(node.launches.map((l) => l.task.taskId)).not.toContain('odd-task');
    odd.close();
    node.close();
  });
});

describe('view ACLs', () => {
  it('shows a viewer only the frameworks, tasks and roles its ACLs allow', async () => {
    const limited = await t.principal('v-limited', 'VIEWER');
    const alice = new Scheduler({
      master: t.cp.url,
      token: tokens.FRAMEWORK,
      framework: { name: 'of-alice', roles: ['va'], user: 'alice' },
    });
    const bob = new Scheduler({ master: t.cp.url, token: tokens.FRAMEWORK, framework: { name: 'of-bob', roles: ['vb'], user: 'bob' } });
    const { frameworkId: aliceId } = await alice.start();
    const { frameworkId: bobId } = await bob.start();
    await t.request('PUT', '/api/v1/weights', {
      weights: [
        { role: 'va', weight: 2 },
        { role: 'vb', weight: 3 },
      ],
    });
    const only = (object: string, values: string[]) => [
      { principals: { values: ['v-limited'] }, [object]: { values } },
      { principals: { values: ['v-limited'] }, [object]: { type: 'NONE' } },
    ];
    expect(
      (
        await t.request('PUT', '/api/v1/acls', {
          permissive: true,
          view_frameworks: only('users', ['alice']),
          view_tasks: only('users', ['alice']),
          view_roles: only('roles', ['va']),
        })
      ).status,
    ).toBe(200);
    const listed = (await t.request('GET', '/api/v1/frameworks?limit=500', undefined, { token: limited })).body as {
      items: Array<{ id: string }>;
    };
    expect(listed.items.map((f) => f.id)).toEqual([aliceId]);
    const all = (await t.request('GET', '/api/v1/frameworks?limit=500')).body as { items: Array<{ id: string }> };
    expect(all.items.map((f) => f.id)).toEqual(expect.arrayContaining([aliceId, bobId]));
    expect((await t.request('GET', `/api/v1/frameworks/${bobId}`, undefined, { token: limited })).status).toBe(403);
    expect((await t.request('GET', `/api/v1/frameworks/${bobId}/explain`, undefined, { token: limited })).status).toBe(403);
    expect((await t.request('GET', `/api/v1/frameworks/${aliceId}`, undefined, { token: limited })).status).toBe(200);
    // A task of bob's (alice leaves, so that bob gets the offer): the viewer sees none of bob's tasks.
    alice.close();
    const node = new ProtocolAgent(t.cp.url, tokens.AGENT, {
      hostname: 'view-node',
      resources: [
        { name: 'cpus', value: 1 },
        { name: 'mem', value: 128 },
      ],
    });
    await node.register();
    const offers: Array<{ id: string; hostname: string }> = [];
    bob.on('offers', (o) => offers.push(...o));
    await until(() => offers.some((o) => o.hostname === 'view-node'));
    await bob.accept(
      [defined(offers.find((o) => o.hostname === 'view-node')).id],
      [
        {
          type: 'LAUNCH',
          tasks: [{ taskId: 'bobs', name: 'bobs', command: { shell: 'true' }, resources: [{ name: 'cpus', value: 0.1 }] }],
        },
      ],
    );
    const tasksOf = async (token?: string) =>
      (
        (await t.request('GET', `/api/v1/tasks?frameworkId=${bobId}`, undefined, token ? { token } : {})).body as {
          items: Array<{ id: string }>;
        }
      ).items;
    const bobsTask = defined((await tasksOf())[0]);
    expect(await tasksOf(limited)).toEqual([]);
    expect((await t.request('GET', `/api/v1/tasks/${bobsTask.id}`, undefined, { token: limited })).status).toBe(403);
    node.close();
    const roles = (await t.request('GET', '/api/v1/roles', undefined, { token: limited })).body as Array<{ path: string }>;
    expect(roles.map((r) => r.path)).toEqual(['va']);
    bob.close();
    await t.request('PUT', '/api/v1/acls', { permissive: true });
  });
});

describe('operator task kill', () => {
  it('kills a running task for an operator, audited, and refuses a viewer', async () => {
    const node = new ProtocolAgent(t.cp.url, tokens.AGENT, {
      hostname: 'kill-node',
      resources: [
        { name: 'cpus', value: 1 },
        { name: 'mem', value: 128 },
      ],
    });
    await node.register();
    const s = new Scheduler({ master: t.cp.url, token: tokens.FRAMEWORK, framework: { name: 'to-kill', roles: ['kill'] } });
    const offers: Array<{ id: string; hostname: string }> = [];
    const states: string[] = [];
    s.on('offers', (o) => offers.push(...o));
    s.on('update', (u) => states.push(u.state));
    const { frameworkId } = await s.start();
    await until(() => offers.some((o) => o.hostname === 'kill-node'));
    await s.accept(
      [defined(offers.find((o) => o.hostname === 'kill-node')).id],
      [
        {
          type: 'LAUNCH',
          tasks: [{ taskId: 'victim', name: 'victim', command: { shell: 'sleep 600' }, resources: [{ name: 'cpus', value: 0.5 }] }],
        },
      ],
    );
    await until(() => states.includes('RUNNING'));
    const task = defined(
      ((await t.request('GET', `/api/v1/tasks?frameworkId=${frameworkId}`)).body as { items: Array<{ id: string }> }).items[0],
    );
    expect((await t.request('POST', `/api/v1/tasks/${task.id}/kill`, {}, { token: tokens.VIEWER })).status).toBe(403);
    expect((await t.request('POST', `/api/v1/tasks/${task.id}/kill`, { gracePeriodSeconds: -1 })).status).toBe(400);
    expect((await t.request('POST', '/api/v1/tasks/00000000-0000-4000-8000-000000000000/kill', {})).body).toMatchObject({
      code: 'TASK_NOT_FOUND',
    });
    expect(states).not.toContain('KILLED');
    const killed = await t.request('POST', `/api/v1/tasks/${task.id}/kill`, { gracePeriodSeconds: 1 }, { token: tokens.OPERATOR });
    expect(killed.status).toBe(200);
    await until(() => states.includes('KILLED'));
    const audit = (await t.request('GET', `/api/v1/audit?action=task.kill&targetId=${task.id}`)).body as {
      items: Array<{ actor: string }>;
    };
    expect(audit.items.map((a) => a.actor)).toEqual(['operator']);
    // Killing an ended task answers it as it is, and records nothing more.
    expect(((await t.request('POST', `/api/v1/tasks/${task.id}/kill`, {})).body as { state: string }).state).toBe('KILLED');
    s.close();
    node.close();
  });
});

describe('identity on the protocols', () => {
  it('answers a handshake whose authentication failed for another reason than the token with a code clients retry, not AUTH_TOKEN_INVALID', async () => {
    const authenticate = jest
      .spyOn(t.cp.app.get(AuthService), 'authenticate')
      .mockRejectedValueOnce(new TypeError('a failure the guard does not know'));
    try {
      const failed = await connect('/frameworks', tokens.FRAMEWORK);
      failed.socket.close();
      expect(failed.error).toEqual({ message: 'authentication could not be completed; retry shortly', code: 'INTERNAL_ERROR' });
      // The same token, once the lookup works again, connects.
      const again = await connect('/frameworks', tokens.FRAMEWORK);
      again.socket.close();
      expect(again.error).toBeUndefined();
    } finally {
      authenticate.mockRestore();
    }
  });

  it('refuses another principal’s framework id and a principal field that is not the token’s, leaving the victim untouched', async () => {
    const attacker = await t.principal('attacker-fw', 'FRAMEWORK');
    const victim = new Scheduler({
      master: t.cp.url,
      token: tokens.FRAMEWORK,
      framework: { name: 'victim-fw', roles: ['v'], failoverTimeoutSeconds: 60 },
    });
    const { frameworkId } = await victim.start();
    const steal = new Scheduler({ master: t.cp.url, token: attacker, framework: { frameworkId, name: 'evil', roles: ['v'] } });
    await expect(steal.start()).rejects.toMatchObject({ code: 'FRAMEWORK_PRINCIPAL_MISMATCH' });
    steal.close();
    const pose = new Scheduler({ master: t.cp.url, token: attacker, framework: { name: 'evil', roles: ['v'], principal: 'admin' } });
    await expect(pose.start()).rejects.toMatchObject({ code: 'FRAMEWORK_PRINCIPAL_MISMATCH' });
    pose.close();
    expect(victim.connected).toBe(true);
    expect((await t.request('GET', `/api/v1/frameworks/${frameworkId}`)).body).toMatchObject({
      name: 'victim-fw',
      principal: 'framework',
      state: 'ACTIVE',
    });
    const denied = (await t.request('GET', '/api/v1/audit?action=access.denied&actor=attacker-fw')).body as {
      items: Array<{ after: { reason: string } }>;
    };
    expect(denied.items.map((i) => i.after.reason).sort()).toEqual([
      "framework belongs to principal 'framework'",
      "principal field 'admin'",
    ]);
    victim.close();
  });

  it('refuses another principal’s agent id, leaving the agent row and its session untouched', async () => {
    const attacker = await t.principal('attacker-agent', 'AGENT');
    const real = new ProtocolAgent(t.cp.url, tokens.AGENT, { hostname: 'real-host', resources: [{ name: 'cpus', value: 2 }] });
    const agentId = await real.register();
    const evil = new ProtocolAgent(t.cp.url, attacker, { hostname: 'evil-host', resources: [{ name: 'cpus', value: 64 }] });
    evil.agentId = agentId;
    await expect(evil.register()).rejects.toThrow(/registered by another principal/);
    evil.close();
    expect((await t.request('GET', `/api/v1/agents/${agentId}`)).body).toMatchObject({ hostname: 'real-host', status: 'REACHABLE' });
    expect(real.socket.connected).toBe(true);
    real.close();
  });

  it('refuses a hostname a live agent holds to any other agent, and lets the holder register again after a restart', async () => {
    const poserToken = await t.principal('poser-agent', 'AGENT');
    const hostnames = async () =>
      ((await t.request('GET', '/api/v1/agents?hostname=held-host')).body as { items: Array<{ id: string }> }).items;
    const real = new ProtocolAgent(t.cp.url, tokens.AGENT, { hostname: 'held-host', resources: [{ name: 'cpus', value: 2 }] });
    const agentId = await real.register();
    // Another principal's agent, and a new agent of the same principal, posing as held-host.
    for (const token of [poserToken, tokens.AGENT]) {
      const poser = new ProtocolAgent(t.cp.url, token, { hostname: 'held-host', resources: [{ name: 'cpus', value: 1e12 }] });
      await expect(poser.register()).rejects.toMatchObject({ code: 'AGENT_HOSTNAME_IN_USE' });
      poser.close();
    }
    expect(real.socket.connected).toBe(true);
    expect((await hostnames()).map((a) => a.id)).toEqual([agentId]);
    // The agent restarts: its new connection registers under its id while the old one is still open.
    const restarted = new ProtocolAgent(t.cp.url, tokens.AGENT, {
      agentId,
      hostname: 'held-host',
      resources: [{ name: 'cpus', value: 3 }],
    });
    expect(await restarted.register()).toBe(agentId);
    await until(() => !real.socket.connected);
    expect((await hostnames()).map((a) => a.id)).toEqual([agentId]);
    restarted.close();
    real.close();
  });

  it('accepts a status update only from the agent the task runs on', async () => {
    const a = new ProtocolAgent(t.cp.url, tokens.AGENT, {
      hostname: 'host-a',
      resources: [
        { name: 'cpus', value: 1 },
        { name: 'mem', value: 256 },
      ],
    });
    await a.register();
    const b = new ProtocolAgent(t.cp.url, tokens.AGENT, {
      hostname: 'host-b',
      resources: [
        { name: 'cpus', value: 1 },
        { name: 'mem', value: 256 },
      ],
    });
    await b.register();
    const s = new Scheduler({ master: t.cp.url, token: tokens.FRAMEWORK, framework: { name: 'runs-on-a', roles: ['ra'] } });
    const offers: Array<{ id: string; hostname: string }> = [];
    s.on('offers', (o) => offers.push(...o));
    const { frameworkId } = await s.start();
    await until(() => offers.some((o) => o.hostname === 'host-a'));
    const offer = defined(offers.find((o) => o.hostname === 'host-a'));
    await s.accept(
      [offer.id],
      [{ type: 'LAUNCH', tasks: [{ taskId: 'on-a', name: 'x', command: { shell: 'sleep 60' }, resources: [{ name: 'cpus', value: 1 }] }] }],
    );
    await until(
      async () =>
        ((await t.request('GET', `/api/v1/tasks?frameworkId=${frameworkId}`)).body as { items: Array<{ state: string }> }).items[0]
          ?.state === 'RUNNING',
    );
    const forged = await b.status(frameworkId, 'on-a', 'FINISHED').then(
      () => null,
      (err: unknown) => (err as Error).message,
    );
    expect(forged).toMatch(/does not run on agent/);
    const asA = (await b.socket.emitWithAck('status', {
      updateUuid: '4b1c2c6a-8f0e-4a59-9d0d-2a7f7c1f0e11',
      frameworkId,
      taskId: 'on-a',
      agentId: defined(a.agentId),
      state: 'FINISHED',
      timestamp: new Date().toISOString(),
      source: 'SOURCE_AGENT',
    })) as Reply;
    expect(asA).toMatchObject({ ok: false, error: { code: 'TASK_NOT_ON_AGENT' } });
    const tasks = (await t.request('GET', `/api/v1/tasks?frameworkId=${frameworkId}`)).body as { items: Array<{ state: string }> };
    expect(tasks.items[0].state).toBe('RUNNING');
    s.close();
    a.close();
    b.close();
  });

  it('refuses a second subscription on one connection as another framework, which would leave the first a ghost', async () => {
    const { socket } = await connect('/frameworks', tokens.FRAMEWORK);
    const first = (await socket.emitWithAck('subscribe', { name: 'one', roles: ['one'] })) as Reply<{ frameworkId: string }>;
    if (!first.ok) throw new Error(first.error.message);
    const second = (await socket.emitWithAck('subscribe', { name: 'two', roles: ['two'] })) as Reply;
    expect(second).toMatchObject({ ok: false, error: { code: 'ALREADY_SUBSCRIBED', details: { frameworkId: first.frameworkId } } });
    const again = (await socket.emitWithAck('subscribe', { frameworkId: first.frameworkId, name: 'one', roles: ['one'] })) as Reply<{
      frameworkId: string;
    }>;
    expect(again).toMatchObject({ ok: true, frameworkId: first.frameworkId });
    const names = ((await t.request('GET', '/api/v1/frameworks?limit=500')).body as { items: Array<{ name: string }> }).items.map(
      (f) => f.name,
    );
    expect(names.filter((n) => n === 'one' || n === 'two')).toEqual(['one']);
    socket.close();
  });

  it('tells a scheduler whose framework completed with a completed event, not an error, and stops reconnecting', async () => {
    const first = new Scheduler({ master: t.cp.url, token: tokens.FRAMEWORK, framework: { name: 'short-lived', roles: ['sl'] } });
    const { frameworkId } = await first.start();
    expect((await t.request('POST', `/api/v1/frameworks/${frameworkId}/teardown`)).status).toBe(200);
    first.close();
    const again = new Scheduler({
      master: t.cp.url,
      token: tokens.FRAMEWORK,
      framework: { frameworkId, name: 'short-lived', roles: ['sl'] },
    });
    const completed: string[] = [];
    const errors: string[] = [];
    again.on('completed', (e) => completed.push(e.code));
    again.on('error', (e) => errors.push(e.message));
    await expect(again.start()).rejects.toMatchObject({ code: 'FRAMEWORK_COMPLETED' });
    expect([completed, errors, again.connected]).toEqual([['FRAMEWORK_COMPLETED'], [], false]);
    again.close();
  });

  it('admits only the kinds a namespace serves, and nothing on the root namespace', async () => {
    const cases: Array<[string, string | undefined, string | undefined]> = [
      ['/agents', tokens.VIEWER, 'FORBIDDEN'],
      ['/agents', tokens.FRAMEWORK, 'FORBIDDEN'],
      ['/frameworks', tokens.AGENT, 'FORBIDDEN'],
      ['/frameworks', tokens.OPERATOR, 'FORBIDDEN'],
      ['/events', tokens.FRAMEWORK, 'FORBIDDEN'],
      ['/events', tokens.VIEWER, undefined],
      ['/', tokens.OPERATOR, 'FORBIDDEN'],
      ['/', undefined, 'FORBIDDEN'],
      ['/agents', undefined, 'AUTH_TOKEN_MISSING'],
    ];
    const got: Array<[string, string | undefined, string | undefined]> = [];
    for (const [ns, token, expected] of cases) {
      const { socket, error } = await connect(ns, token);
      got.push([ns, token, expected === undefined ? error?.code : (error?.code ?? 'connected')]);
      socket.close();
    }
    expect(got).toEqual(cases);
  });

  it('closes a connection that sends a large message before authenticating, and accepts large messages after', async () => {
    const url = `${t.cp.url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`;
    const ws = new WebSocket(url);
    await new Promise((resolve) => ws.once('open', resolve));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(`4${'x'.repeat(1024 * 1024)}`);
    expect(await closed).toBe(1009);
    const agent = new ProtocolAgent(t.cp.url, tokens.AGENT, {
      hostname: 'big-host',
      resources: [{ name: 'cpus', value: 1 }],
      attributes: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`a${i}`, 'v'.repeat(1000)])),
    });
    await expect(agent.register()).resolves.toEqual(expect.any(String));
    agent.close();
  });

  it('closes the open sockets of a revoked token at once, and refuses it afterwards', async () => {
    await t.principal('short-agent', 'AGENT');
    const issued = (await t.request('POST', '/api/v1/principals/short-agent/tokens', {})).body as { id: string; token: string };
    const agent = new ProtocolAgent(t.cp.url, issued.token, { hostname: 'revoked-host', resources: [{ name: 'cpus', value: 1 }] });
    await agent.register();
    const disconnected = new Promise<string>((resolve) => agent.socket.once('disconnect', (reason) => resolve(reason)));
    expect((await t.request('DELETE', `/api/v1/tokens/${issued.id}`)).status).toBe(200);
    expect(await disconnected).toBe('io server disconnect');
    const again = await connect('/agents', issued.token);
    expect(again.error?.code).toBe('AUTH_TOKEN_INVALID');
    again.socket.close();
    agent.close();
  });
});
