/**
 * Mesos's v1 operator API (`POST /api/v1`), call by call, in JSON and in protobuf, against a live
 * control plane: the reads under the caller's view ACLs, the writes through the REST services
 * (their ACLs and audit entries), refusals by kind, by ACL and of malformed calls, a standby's
 * 307, the SUBSCRIBE stream following a task and its framework, the read-only endpoints Mesos
 * tooling reads (/master/state-summary, /master/health, /version, /master/flags) and
 * ARBITER_MESOS_READONLY_ANONYMOUS.
 */
import { parseResources } from '@arbiter/allocator';
import type { AppConfig } from '../../../src/config/config.schema';
import { READ_CALLS } from '../../../src/mesos-operator/operator-calls';
import { ADMIN_TOKEN, controlPlaneBed, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { basic, MesosClient } from '../../support/mesos-client';
import { ENCODINGS, type Encoding, operatorCall, OperatorSubscription } from '../../support/mesos-operator-client';
import { freshDatabase } from '../../support/postgres';
import { defined, until } from '../../support/until';
import { anyOf, arrayContaining, objectContaining, stringMatching } from '../../support/matchers';

const { closers, start: startControlPlane } = controlPlaneBed();
const start = (config: Partial<AppConfig> = {}) => startControlPlane({ config: { allocationInterval: 0.1, ...config } });
const ADMIN = `Bearer ${ADMIN_TOKEN}`;

const agent = async (cp: TestControlPlane, hostname: string, resources: string) => {
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, { hostname, resources: parseResources(resources).toJSON() });
  closers.push(() => a.close());
  await a.register();
  return a;
};
interface Offer {
  id: { value: string };
  agent_id: { value: string };
}
/** A Mesos framework (user `user`) with one task `taskId` running on its first offer. */
const framework = async (cp: TestControlPlane, taskId: string, user = 'nobody') => {
  const c = new MesosClient(cp.cp.url, ADMIN);
  closers.push(() => c.close());
  await c.subscribe({ user, name: `fw-${taskId}`, role: 'analytics', hostname: 'sched.example', checkpoint: true });
  await until(() => c.of('OFFERS').length > 0);
  const offer = c.of<{ offers: Offer[] }>('OFFERS')[0].offers[0];
  const task = {
    name: taskId,
    task_id: { value: taskId },
    agent_id: offer.agent_id,
    resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 } }],
    command: { value: 'sleep 60' },
  };
  expect((await c.launch([offer.id], [task])).status).toBe(202);
  await until(() => c.of<{ status: { state: string } }>('UPDATE').some((u) => u.status.state === 'TASK_RUNNING'));
  return c;
};
const call = (
  cp: TestControlPlane,
  type: string,
  fields: Record<string, unknown> = {},
  encoding: Encoding = 'json',
  auth: string | null = ADMIN,
) => operatorCall(cp.cp.url, { type, ...fields }, { encoding, auth });
const subscription = async (cp: TestControlPlane, auth: string | null, encoding: Encoding = 'json') => {
  const s = new OperatorSubscription();
  closers.push(() => s.close());
  expect(await s.open(cp.cp.url, { auth, encoding })).toBe(200);
  await until(() => s.of('SUBSCRIBED').length === 1);
  return s;
};
const get = async (cp: TestControlPlane, route: string, auth: string | null = ADMIN) => {
  const r = await fetch(`${cp.cp.url}${route}`, { headers: auth ? { authorization: auth } : {} });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
};

it.each(ENCODINGS)('answers every read call in %s with the cluster as Mesos shapes it', async (encoding) => {
  const cp = await start();
  const a = await agent(cp, 'node-1', 'cpus:4;mem:4096;ports:[31000-31009]');
  const c = await framework(cp, 'op-1');
  for (const type of READ_CALLS) {
    const r = await call(cp, type, {}, encoding);
    expect([type, r.status, r.body.type]).toEqual([type, 200, type]);
    expect(r.body).toHaveProperty(type.toLowerCase());
  }
  const answer = async (type: string) => (await call(cp, type, {}, encoding)).body[type.toLowerCase()] as Record<string, unknown>;
  expect(await answer('GET_HEALTH')).toEqual({ healthy: true });
  expect(await answer('GET_VERSION')).toMatchObject({ version_info: { version: '1.11.0' } });
  expect((await answer('GET_FLAGS')).flags).toEqual(arrayContaining([{ name: 'allocation_interval', value: '0.1secs' }]));
  const state = await answer('GET_STATE');
  // Callers that accept gzip get the same answer gzipped from 1 KiB (as Mesos's master); others never.
  const plain = await operatorCall(cp.cp.url, { type: 'GET_STATE' }, { auth: ADMIN, encoding });
  const large = Number(plain.headers['content-length']) >= 1024;
  expect(large).toBe(encoding === 'json');
  const zipped = await operatorCall(
    cp.cp.url,
    { type: 'GET_STATE' },
    { auth: ADMIN, encoding, headers: { 'accept-encoding': 'br, gzip;q=0.8' } },
  );
  expect([zipped.headers['content-encoding'], zipped.headers.vary]).toEqual([large ? 'gzip' : undefined, 'Accept-Encoding']);
  expect(zipped.body).toEqual(plain.body);
  const refused = await operatorCall(
    cp.cp.url,
    { type: 'GET_STATE' },
    { auth: ADMIN, encoding, headers: { 'accept-encoding': 'gzip;q=0' } },
  );
  expect(refused.headers['content-encoding']).toBeUndefined();
  expect(state).toMatchObject({
    get_agents: {
      agents: [objectContaining({ agent_info: objectContaining({ hostname: 'node-1', id: { value: a.agentId } }), active: true })],
    },
    get_frameworks: {
      frameworks: [
        objectContaining({
          framework_info: objectContaining({
            id: { value: c.frameworkId },
            user: 'nobody',
            hostname: 'sched.example',
            checkpoint: true,
          }),
          active: true,
          connected: true,
        }),
      ],
    },
    get_tasks: {
      tasks: [objectContaining({ task_id: { value: 'op-1' }, state: 'TASK_RUNNING', agent_id: { value: a.agentId } })],
    },
  });
  expect(await answer('GET_ROLES')).toMatchObject({
    roles: arrayContaining([objectContaining({ name: 'analytics', weight: 1 })]),
  });
  expect(await answer('GET_MASTER')).toMatchObject({ master_info: objectContaining({ port: cp.cp.port }) });
  const metrics = (await answer('GET_METRICS')).metrics as Array<{ name: string; value: number }>;
  expect(metrics).toEqual(arrayContaining([{ name: 'master/tasks_running', value: 1 }]));
  // The alias Mesos's master also answers.
  expect((await operatorCall(cp.cp.url, { type: 'GET_HEALTH' }, { auth: ADMIN, encoding, path: '/master/api/v1' })).status).toBe(200);
  // What changes shows in the next read, though the last one's messages are kept: the task ended
  // (its framework torn down), the agent deactivated and no longer used.
  const agentOf = async () => ((await answer('GET_STATE')).get_agents as { agents: Array<Record<string, unknown>> }).agents[0];
  const reported = (await cp.request('GET', `/api/v1/agents/${a.agentId}`)).body as { version: string | null };
  expect(await agentOf()).toMatchObject({
    version: reported.version ?? '',
    allocated_resources: [objectContaining({ scalar: { value: 1 } })],
  });
  expect((await call(cp, 'TEARDOWN', { teardown: { framework_id: { value: c.frameworkId } } }, encoding)).status).toBe(200);
  expect((await call(cp, 'DEACTIVATE_AGENT', { deactivate_agent: { agent_id: { value: a.agentId } } }, encoding)).status).toBe(200);
  const ended = async () => ((await answer('GET_STATE')).get_tasks as { completed_tasks?: unknown[] }).completed_tasks ?? [];
  await until(async () => (await ended()).length === 1);
  expect(await ended()).toEqual([objectContaining({ task_id: { value: 'op-1' }, state: 'TASK_KILLED' })]);
  const deactivated = await agentOf();
  expect([deactivated.deactivated, deactivated.allocated_resources ?? []]).toEqual([true, []]);
});

it('carries out every write call in both encodings through the REST services, audited', async () => {
  const cp = await start();
  const a1 = await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const a2 = await agent(cp, 'node-2', 'cpus:4;mem:4096');
  const a3 = await agent(cp, 'node-3', 'cpus:4;mem:4096');
  const a4 = await agent(cp, 'node-4', 'cpus:1;mem:1024;disk:1024');
  for (const [i, encoding] of ENCODINGS.entries()) {
    const weight = 2 + i;
    expect((await call(cp, 'UPDATE_WEIGHTS', { update_weights: { weight_infos: [{ role: 'eng', weight }] } }, encoding)).status).toBe(200);
    expect((await call(cp, 'GET_WEIGHTS', {}, encoding)).body.get_weights).toMatchObject({
      weight_infos: arrayContaining([{ role: 'eng', weight }]),
    });

    const quota = { role: 'eng', guarantees: { cpus: { value: 1 + i } }, limits: { cpus: { value: 3 } } };
    expect((await call(cp, 'UPDATE_QUOTA', { update_quota: { quota_configs: [quota] } }, encoding)).status).toBe(200);
    expect((await call(cp, 'GET_QUOTA', {}, encoding)).body.get_quota).toEqual({
      status: {
        infos: [{ role: 'eng', guarantee: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 + i }, role: '*' }] }],
        configs: [quota],
      },
    });

    const reserved = [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 }, reservations: [{ type: 'DYNAMIC', role: 'eng' }] }];
    const reserve = { agent_id: { value: a1.agentId }, resources: reserved };
    expect((await call(cp, 'RESERVE_RESOURCES', { reserve_resources: reserve }, encoding)).status).toBe(202);
    expect(((await get(cp, `/api/v1/reservations?agentId=${a1.agentId}`)).body.items as unknown[]).length).toBe(1);
    expect((await call(cp, 'UNRESERVE_RESOURCES', { unreserve_resources: reserve }, encoding)).status).toBe(202);
    expect((await get(cp, `/api/v1/reservations?agentId=${a1.agentId}`)).body.items).toEqual([]);

    const at = (Date.UTC(2030, 0, 1) + i * 3_600_000) * 1e6;
    const schedule = { windows: [{ machine_ids: [{ hostname: 'node-2' }], unavailability: { start: { nanoseconds: at } } }] };
    expect((await call(cp, 'UPDATE_MAINTENANCE_SCHEDULE', { update_maintenance_schedule: { schedule } }, encoding)).status).toBe(200);
    expect((await call(cp, 'GET_MAINTENANCE_SCHEDULE', {}, encoding)).body.get_maintenance_schedule).toEqual({ schedule });
    const machines = { machines: [{ hostname: 'node-2' }] };
    expect((await call(cp, 'START_MAINTENANCE', { start_maintenance: machines }, encoding)).status).toBe(200);
    expect((await call(cp, 'GET_MAINTENANCE_STATUS', {}, encoding)).body.get_maintenance_status).toMatchObject({
      status: { down_machines: [objectContaining({ hostname: 'node-2' })] },
    });
    expect((await call(cp, 'STOP_MAINTENANCE', { stop_maintenance: machines }, encoding)).status).toBe(200);

    const agentCall = { agent_id: { value: a1.agentId } };
    expect((await call(cp, 'DEACTIVATE_AGENT', { deactivate_agent: agentCall }, encoding)).status).toBe(200);
    expect((await get(cp, `/api/v1/agents/${a1.agentId}`)).body).toMatchObject({ activated: false });
    expect((await call(cp, 'REACTIVATE_AGENT', { reactivate_agent: agentCall }, encoding)).status).toBe(200);
    const drain = { agent_id: { value: a1.agentId }, max_grace_period: { seconds: 5 } };
    expect((await call(cp, 'DRAIN_AGENT', { drain_agent: drain }, encoding)).status).toBe(200);
    expect((await get(cp, `/api/v1/agents/${a1.agentId}`)).body).toMatchObject({
      drainState: 'DRAINED',
      drainConfig: { maxGracePeriodSeconds: 5 },
    });
    expect((await call(cp, 'REACTIVATE_AGENT', { reactivate_agent: agentCall }, encoding)).status).toBe(200);

    expect(
      (await call(cp, 'SET_LOGGING_LEVEL', { set_logging_level: { level: 0, duration: { nanoseconds: 1e9 } } }, encoding)).status,
    ).toBe(200);
    expect((await call(cp, 'GET_LOGGING_LEVEL', {}, encoding)).body.get_logging_level).toEqual({ level: 0 });

    // A persistent volume on disk reserved for the role, made and destroyed through the REST operations.
    const disk = { agent_id: { value: a4.agentId }, resources: [{ ...reserved[0], name: 'disk', scalar: { value: 128 } }] };
    expect((await call(cp, 'RESERVE_RESOURCES', { reserve_resources: disk }, encoding)).status).toBe(202);
    const volume = {
      ...disk.resources[0],
      scalar: { value: 64 },
      disk: { persistence: { id: `data-${encoding}` }, volume: { container_path: 'data', mode: 'RW' } },
    };
    const volumes = { agent_id: { value: a4.agentId }, volumes: [volume] };
    expect((await call(cp, 'CREATE_VOLUMES', { create_volumes: volumes }, encoding)).status).toBe(202);
    expect((await get(cp, `/api/v1/volumes?agentId=${a4.agentId}`)).body.items).toEqual([
      objectContaining({ role: 'eng', persistenceId: `data-${encoding}`, disk: 64, containerPath: 'data', mode: 'RW' }),
    ]);
    expect((await call(cp, 'CREATE_VOLUMES', { create_volumes: volumes }, encoding)).body.code).toBe('VOLUME_EXISTS');
    expect((await call(cp, 'DESTROY_VOLUMES', { destroy_volumes: volumes }, encoding)).status).toBe(202);
    expect((await get(cp, `/api/v1/volumes?agentId=${a4.agentId}`)).body.items).toEqual([]);
    expect(a4.volumes.size).toBe(0);
    expect((await call(cp, 'DESTROY_VOLUMES', { destroy_volumes: volumes }, encoding)).body.code).toBe('VOLUME_NOT_FOUND');
    expect((await call(cp, 'UNRESERVE_RESOURCES', { unreserve_resources: disk }, encoding)).status).toBe(202);
    const refused = await call(cp, 'GROW_VOLUME', { grow_volume: { agent_id: { value: a4.agentId } } }, encoding);
    expect([refused.status, refused.body.code]).toEqual([400, 'UNSUPPORTED']);
  }
  expect((await call(cp, 'MARK_AGENT_GONE', { mark_agent_gone: { agent_id: { value: a3.agentId } } }, 'protobuf')).status).toBe(200);
  expect((await get(cp, `/api/v1/agents/${a3.agentId}`)).body).toMatchObject({ status: 'GONE' });
  const c = await framework(cp, 'doomed');
  expect((await call(cp, 'TEARDOWN', { teardown: { framework_id: { value: c.frameworkId } } }, 'protobuf')).status).toBe(200);
  expect((await get(cp, `/api/v1/frameworks/${defined(c.frameworkId)}`)).body).toMatchObject({ state: 'COMPLETED' });
  // A role given neither guarantees nor limits loses its quota, as in Mesos.
  expect((await call(cp, 'UPDATE_QUOTA', { update_quota: { quota_configs: [{ role: 'eng' }] } })).status).toBe(200);
  expect((await call(cp, 'GET_QUOTA')).body.get_quota).toEqual({ status: { infos: [], configs: [] } });
  const audit = (await get(cp, '/api/v1/audit?limit=200')).body.items as Array<{ action: string }>;
  expect([...new Set(audit.map((e) => e.action))]).toEqual(
    arrayContaining([
      'weights.update',
      'quota.update',
      'quota.remove',
      'reservation.create',
      'reservation.remove',
      'volume.create',
      'volume.destroy',
      'maintenance.schedule.update',
      'maintenance.start',
      'maintenance.stop',
      'agent.deactivate',
      'agent.reactivate',
      'agent.drain',
      'framework.teardown',
    ]),
  );
  expect(a2.agentId).toBeDefined();
});

it('refuses by kind, by ACL, without credentials and malformed calls, each with a stable code', async () => {
  const cp = await start();
  const a = await agent(cp, 'node-1', 'cpus:4;mem:4096');
  await framework(cp, 'alice-1', 'alice');
  await framework(cp, 'bob-1', 'bob');
  const viewer = basic('viewer', await cp.principal('viewer', 'VIEWER'));
  const fw = `Bearer ${await cp.principal('fw', 'FRAMEWORK')}`;
  const operator = `Bearer ${await cp.principal('ops', 'OPERATOR')}`;
  for (const encoding of ENCODINGS) {
    const byViewer = await call(cp, 'UPDATE_WEIGHTS', { update_weights: { weight_infos: [{ role: 'eng', weight: 2 }] } }, encoding, viewer);
    expect([byViewer.status, byViewer.body.code]).toEqual([403, 'FORBIDDEN']);
    const byFramework = await call(cp, 'GET_STATE', {}, encoding, fw);
    expect([byFramework.status, byFramework.body.code]).toEqual([403, 'FORBIDDEN']);
    const anonymous = await call(cp, 'GET_STATE', {}, encoding, null);
    expect([anonymous.status, anonymous.body.code, anonymous.headers['www-authenticate']]).toEqual([
      401,
      'AUTH_TOKEN_MISSING',
      'Basic realm="arbiter"',
    ]);
    const badLevel = await call(
      cp,
      'SET_LOGGING_LEVEL',
      { set_logging_level: { level: 1, duration: { nanoseconds: 1e9 } } },
      encoding,
      operator,
    );
    expect([badLevel.status, badLevel.body.code]).toEqual([403, 'FORBIDDEN']);
  }
  // View ACLs filter what a reader sees; update ACLs refuse what an operator may not change.
  const acls = {
    permissive: true,
    view_frameworks: [
      { principals: { values: ['viewer'] }, users: { values: ['bob'] } },
      { principals: { values: ['viewer'] }, users: { type: 'NONE' } },
    ],
    view_tasks: [
      { principals: { values: ['viewer'] }, users: { values: ['bob'] } },
      { principals: { values: ['viewer'] }, users: { type: 'NONE' } },
    ],
    view_agents: [{ principals: { values: ['viewer'] }, agents: { type: 'NONE' } }],
    update_weights: [
      { principals: { values: ['ops'] }, roles: { values: ['eng'] } },
      { principals: { values: ['ops'] }, roles: { type: 'NONE' } },
    ],
  };
  expect((await cp.request('PUT', '/api/v1/acls', acls)).status).toBe(200);
  type State = Record<string, Record<string, Array<{ task_id: { value: string } }>>>;
  const taskIds = (state: State) => state.get_tasks.tasks.map((t) => t.task_id.value).sort();
  for (const encoding of ENCODINGS) {
    // The admin's read keeps every task's and agent's message and the answer's bytes: the
    // viewer's read, from the same kept messages, still shows only what its ACLs let it see.
    expect(taskIds((await call(cp, 'GET_STATE', {}, encoding)).body.get_state as State)).toEqual(['alice-1', 'bob-1']);
    const state = (await call(cp, 'GET_STATE', {}, encoding, viewer)).body.get_state as Record<string, Record<string, unknown[]>>;
    expect(taskIds((await call(cp, 'GET_STATE', {}, encoding)).body.get_state as State)).toEqual(['alice-1', 'bob-1']);
    expect((state.get_frameworks.frameworks as Array<{ framework_info: { user: string } }>).map((f) => f.framework_info.user)).toEqual([
      'bob',
    ]);
    expect((state.get_tasks.tasks as Array<{ task_id: { value: string } }>).map((t) => t.task_id.value)).toEqual(['bob-1']);
    expect(state.get_agents.agents).toEqual(encoding === 'json' ? [] : undefined);
    const ops = await call(cp, 'UPDATE_WEIGHTS', { update_weights: { weight_infos: [{ role: 'ops', weight: 2 }] } }, encoding, operator);
    expect([ops.status, ops.body.code]).toEqual([403, 'FORBIDDEN']);
    const eng = await call(cp, 'UPDATE_WEIGHTS', { update_weights: { weight_infos: [{ role: 'eng', weight: 2 }] } }, encoding, operator);
    expect(eng.status).toBe(200);
  }
  const bad = async (body: Record<string, unknown>, encoding: Encoding = 'json') => {
    const r = await operatorCall(cp.cp.url, body, { auth: ADMIN, encoding });
    return [r.status, r.body.code];
  };
  expect(await bad({ type: 'NO_SUCH_CALL' })).toEqual([400, 'INVALID_MESSAGE']);
  expect(await bad({})).toEqual([400, 'INVALID_MESSAGE']);
  expect(await bad({ type: 'DRAIN_AGENT' })).toEqual([400, 'INVALID_MESSAGE']);
  expect(await bad({ type: 'DRAIN_AGENT', drain_agent: { agent_id: {} } }, 'protobuf')).toEqual([400, 'INVALID_MESSAGE']);
  expect(await bad({ type: 'DRAIN_AGENT', drain_agent: { agent_id: { value: 'no-such-agent' } } })).toEqual([404, 'AGENT_NOT_FOUND']);
  expect(await bad({ type: 'UPDATE_WEIGHTS', update_weights: { weight_infos: [{ role: 'eng', weight: 'heavy' }] } })).toEqual([
    400,
    'VALIDATION_FAILED',
  ]);
  expect(await bad({ type: 'READ_FILE' })).toEqual([400, 'UNSUPPORTED']);
  expect(await bad({ type: 'GROW_VOLUME' }, 'protobuf')).toEqual([400, 'UNSUPPORTED']);
  expect(await bad({ type: 'DESTROY_VOLUMES' }, 'protobuf')).toEqual([400, 'INVALID_MESSAGE']);
  const unreserve = {
    agent_id: { value: a.agentId },
    resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 }, reservations: [{ type: 'DYNAMIC', role: 'eng' }] }],
  };
  expect(await bad({ type: 'UNRESERVE_RESOURCES', unreserve_resources: unreserve })).toEqual([400, 'INVALID_MESSAGE']);
  const garbage = await operatorCall(cp.cp.url, {}, { auth: ADMIN, encoding: 'protobuf', raw: Buffer.from([0x0a, 0xff, 0xff]) });
  expect([garbage.status, garbage.body.code]).toEqual([400, 'INVALID_MESSAGE']);
  const text = await operatorCall(cp.cp.url, {}, { auth: ADMIN, raw: 'type=GET_STATE', headers: { 'content-type': 'text/plain' } });
  expect([text.status, text.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  const accept = await operatorCall(cp.cp.url, { type: 'GET_STATE' }, { auth: ADMIN, headers: { accept: 'text/html' } });
  expect([accept.status, accept.body.code]).toEqual([406, 'NOT_ACCEPTABLE']);
});

it('streams SUBSCRIBE: the state, then a task launched and updated and its framework removed, under the view ACLs', async () => {
  const cp = await start();
  const a = await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const viewer = basic('viewer', await cp.principal('viewer', 'VIEWER'));
  const acls = {
    permissive: true,
    view_frameworks: [
      { principals: { values: ['viewer'] }, users: { values: ['bob'] } },
      { principals: { values: ['viewer'] }, users: { type: 'NONE' } },
    ],
  };
  expect((await cp.request('PUT', '/api/v1/acls', acls)).status).toBe(200);
  const json = await subscription(cp, ADMIN);
  const proto = await subscription(cp, ADMIN, 'protobuf');
  const limited = await subscription(cp, viewer);
  for (const s of [json, proto])
    expect(s.of('SUBSCRIBED')[0]).toMatchObject({
      subscribed: {
        heartbeat_interval_seconds: 15,
        get_state: { get_agents: { agents: [objectContaining({ agent_info: objectContaining({ hostname: 'node-1' }) })] } },
      },
    });
  const c = await framework(cp, 'watched', 'alice');
  const taskOf = (e: Record<string, unknown>) => (e.task_added as { task: { task_id: { value: string } } }).task.task_id.value;
  for (const s of [json, proto]) {
    await until(() => s.of('TASK_UPDATED').some((e) => (e.task_updated as { state: string }).state === 'TASK_RUNNING'));
    // The whole framework, as GET_FRAMEWORKS shows it (Mesos's FRAMEWORK_ADDED carries it).
    expect(s.of('FRAMEWORK_ADDED')).toEqual([
      objectContaining({
        framework_added: {
          framework: objectContaining({
            framework_info: objectContaining({ id: { value: c.frameworkId }, user: 'alice', name: 'fw-watched' }),
            active: true,
            connected: true,
            registered_time: { nanoseconds: anyOf(Number) },
          }),
        },
      }),
    ]);
    expect(s.of('TASK_ADDED').map(taskOf)).toEqual(['watched']);
    expect(s.of('TASK_ADDED')[0]).toMatchObject({ task_added: { task: { state: 'TASK_STAGING', agent_id: { value: a.agentId } } } });
  }
  expect((await call(cp, 'TEARDOWN', { teardown: { framework_id: { value: c.frameworkId } } })).status).toBe(200);
  for (const s of [json, proto]) {
    await until(() => s.of('FRAMEWORK_REMOVED').length === 1);
    expect(s.of('FRAMEWORK_REMOVED')[0]).toMatchObject({
      framework_removed: { framework_info: { id: { value: c.frameworkId }, name: 'fw-watched', user: 'alice' } },
    });
    await until(() => s.of('TASK_UPDATED').some((e) => (e.task_updated as { state: string }).state === 'TASK_KILLED'));
  }
  // A new agent: the whole agent, as GET_AGENTS shows it (Mesos's AGENT_ADDED carries it).
  const b = await agent(cp, 'node-2', 'cpus:2;mem:1024');
  for (const s of [json, proto]) {
    await until(() => s.of('AGENT_ADDED').length === 1);
    expect(s.of('AGENT_ADDED')[0]).toMatchObject({
      agent_added: {
        agent: {
          agent_info: { hostname: 'node-2', id: { value: b.agentId } },
          active: true,
          pid: stringMatching(/^slave\(1\)@/),
          registered_time: { nanoseconds: anyOf(Number) },
          total_resources: [objectContaining({ name: 'cpus' }), objectContaining({ name: 'mem' })],
        },
      },
    });
  }
  // The viewer may not see alice's framework: none of its events reached it.
  const bob = await framework(cp, 'bobs', 'bob');
  await until(() => limited.of('TASK_ADDED').length === 1);
  expect(limited.of('TASK_ADDED').map(taskOf)).toEqual(['bobs']);
  expect(limited.of('FRAMEWORK_ADDED')).toEqual([
    objectContaining({
      framework_added: {
        framework: objectContaining({ framework_info: objectContaining({ id: { value: bob.frameworkId } }) }),
      },
    }),
  ]);
  expect(limited.of('FRAMEWORK_REMOVED')).toEqual([]);
});

it('serves the read-only Mesos endpoints, and without credentials only when ARBITER_MESOS_READONLY_ANONYMOUS is on', async () => {
  const cp = await start({ mesosReadonlyAnonymous: true });
  await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const c = await framework(cp, 'summed');
  const summary = await get(cp, '/master/state-summary', null);
  expect(summary).toMatchObject({
    status: 200,
    body: {
      slaves: [objectContaining({ hostname: 'node-1', TASK_RUNNING: 1, framework_ids: [c.frameworkId] })],
      frameworks: [objectContaining({ id: c.frameworkId, TASK_RUNNING: 1 })],
    },
  });
  expect(await get(cp, '/master/health', null)).toEqual({ status: 200, body: {} });
  expect((await get(cp, '/version', null)).body).toMatchObject({
    version: '1.11.0',
    build_date: anyOf(String),
    build_time: anyOf(Number),
    git_sha: anyOf(String),
  });
  const flags = (await get(cp, '/master/flags', null)).body.flags as Record<string, string>;
  expect(flags).toMatchObject({ allocation_interval: '0.1secs', authenticate_http_readonly: 'false' });
  expect(JSON.stringify(flags)).not.toContain(ADMIN_TOKEN);
  const state = (await get(cp, '/master/state', null)).body;
  expect(state).toMatchObject({ version: '1.11.0', build_user: anyOf(String), git_sha: anyOf(String) });
  expect(state.frameworks).toEqual([objectContaining({ id: c.frameworkId, user: 'nobody', hostname: 'sched.example', checkpoint: true })]);
  expect((await call(cp, 'GET_STATE', {}, 'protobuf', null)).status).toBe(200);
  const write = await call(cp, 'UPDATE_WEIGHTS', { update_weights: { weight_infos: [{ role: 'eng', weight: 2 }] } }, 'json', null);
  expect([write.status, write.body.code]).toEqual([401, 'AUTH_TOKEN_MISSING']);
  expect((await get(cp, '/api/v1/agents', null)).status).toBe(401);
  // An anonymous reader has no principal: only entries for principal type ANY match it, never a principal named 'anonymous'.
  const acls = {
    permissive: true,
    view_frameworks: [
      { principals: { values: ['anonymous'] }, users: { type: 'ANY' } },
      { principals: { type: 'ANY' }, users: { type: 'NONE' } },
    ],
    view_tasks: [
      { principals: { values: ['anonymous'] }, users: { type: 'ANY' } },
      { principals: { type: 'ANY' }, users: { type: 'NONE' } },
    ],
  };
  expect((await cp.request('PUT', '/api/v1/acls', acls)).status).toBe(200);
  expect((await get(cp, '/master/state', null)).body.frameworks).toEqual([]);
  const hidden = (await call(cp, 'GET_STATE', {}, 'json', null)).body.get_state as Record<string, Record<string, unknown[]>>;
  expect([hidden.get_frameworks.frameworks, hidden.get_tasks.tasks]).toEqual([[], []]);
});

it('has a standby send calls about the cluster to the leader (307) and answer calls about itself; SUBSCRIBE follows a leader change', async () => {
  const db = await freshDatabase();
  const config = { allocationInterval: 0.1, leaderLease: 30 };
  const leader = await startTestControlPlane({ databaseUrl: db.url, config });
  const standby = await startTestControlPlane({ databaseUrl: db.url, config });
  let leaderStopped = false;
  try {
    const leaderUrl = ((await standby.request('GET', '/health')).body as { leader: string }).leader;
    expect(leaderUrl).toMatch(new RegExp(`:${leader.cp.port}$`));
    for (const encoding of ENCODINGS) {
      for (const path of ['/api/v1', '/master/api/v1']) {
        const r = await operatorCall(standby.cp.url, { type: 'GET_STATE' }, { auth: ADMIN, encoding, path });
        expect([r.status, r.headers.location]).toEqual([307, new URL(path, leaderUrl).toString()]);
      }
      const health = await operatorCall(standby.cp.url, { type: 'GET_HEALTH' }, { auth: ADMIN, encoding });
      expect([health.status, health.body.get_health]).toEqual([200, { healthy: true }]);
    }
    const write = await operatorCall(
      standby.cp.url,
      { type: 'UPDATE_WEIGHTS', update_weights: { weight_infos: [{ role: 'eng', weight: 2 }] } },
      { auth: ADMIN },
    );
    expect(write.status).toBe(307);
    // SUBSCRIBE follows a leader change: the stream ends with the leader, and the client subscribes again, to the new one.
    const before = new OperatorSubscription();
    expect(await before.open(leader.cp.url, { auth: ADMIN })).toBe(200);
    await until(() => before.of('SUBSCRIBED').length === 1);
    const redirected = new OperatorSubscription();
    expect(await redirected.open(standby.cp.url, { auth: ADMIN })).toBe(307);
    await leader.stop();
    leaderStopped = true;
    await until(() => before.ended);
    await until(async () => ((await standby.request('GET', '/health')).body as { role: string }).role === 'leader');
    const after = new OperatorSubscription();
    try {
      expect(await after.open(standby.cp.url, { auth: ADMIN })).toBe(200);
      await until(() => after.of('SUBSCRIBED').length === 1);
    } finally {
      after.close();
      redirected.close();
    }
  } finally {
    await standby.stop();
    if (!leaderStopped) await leader.stop();
    await db.drop();
  }
});
