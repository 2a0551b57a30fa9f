/**
 * Mesos's v1 scheduler HTTP API, call by call, spoken by hand as the Mesos docs do with curl:
 * the event stream and its framing, offers and updates in Mesos's shapes, acknowledgements by
 * uuid, filters, suppression, reconciliation, authentication (Basic, Bearer, anonymous) and
 * what a principal cannot do on another's stream, and the errors of bad calls.
 */
import { parseResources, Resources } from '@arbiter/allocator';
import fc from 'fast-check';
import type { AppConfig } from '../../../src/config/config.schema';
import { Outbound } from '../../../src/kernel/outbound';
import { ClusterState } from '../../../src/master/cluster-state';
import { TaskUpdates } from '../../../src/tasks/task-updates.handler';
import { ADMIN_TOKEN, controlPlaneBed, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { arrayContaining, objectContaining, stringContaining } from '../../support/matchers';
import { basic, MesosClient } from '../../support/mesos-client';
import { mesosFrameworkCodec } from '../../support/mesos-framework-codec';
import { defined, until } from '../../support/until';

const { closers, start: startControlPlane } = controlPlaneBed();

const start = (config: Partial<AppConfig> = {}) => startControlPlane({ config: { allocationInterval: 0.1, ...config } });
const agent = async (cp: TestControlPlane, hostname: string, resources: string) => {
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, { hostname, resources: parseResources(resources).toJSON() });
  closers.push(() => a.close());
  await a.register();
  return a;
};
const client = (cp: TestControlPlane, auth: string | null = `Bearer ${ADMIN_TOKEN}`) => {
  const c = new MesosClient(cp.cp.url, auth);
  closers.push(() => c.close());
  return c;
};
const info = (extra: Record<string, unknown> = {}) => ({ user: 'nobody', name: 'mesos-fw', role: 'analytics', ...extra });
interface Offer {
  id: { value: string };
  agent_id: { value: string };
  resources: Array<Record<string, unknown>>;
}
interface Status {
  task_id: { value: string };
  state: string;
  uuid?: string;
  reason?: string;
  message?: string;
  agent_id: { value: string };
}
/** The error code of a JSON error body. */
const codeOf = (body: string | undefined) => (JSON.parse(body ?? '{}') as { code?: string }).code;
const offers = (c: MesosClient) => c.of<{ offers: Offer[] }>('OFFERS').flatMap((e) => e.offers);
const updates = (c: MesosClient) => c.of<{ status: Status }>('UPDATE').map((e) => e.status);

/** ACCEPT of one offer with one LAUNCH of one task (`task` overrides the TaskInfo's fields). */
const launch = (c: MesosClient, offer: Offer, taskId: string, task: Record<string, unknown> = {}, accept: Record<string, unknown> = {}) =>
  c.launch(
    [offer.id],
    [
      {
        name: taskId,
        task_id: { value: taskId },
        agent_id: offer.agent_id,
        resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 } }],
        command: { value: 'sleep 60' },
        ...task,
      },
    ],
    accept,
  );

it('subscribes over a RecordIO stream, offers in Mesos shape, launches a shell task and hears its updates until acknowledged', async () => {
  const cp = await start();
  const a = await agent(cp, 'node-1', 'cpus:4;mem:4096;ports:[31000-31009]');
  const c = client(cp);
  expect(await c.subscribe(info({ failover_timeout: 60 }))).toBe(200);
  await until(() => c.frameworkId !== undefined && offers(c).length > 0);
  const subscribed = c.of('SUBSCRIBED')[0];
  expect(subscribed).toMatchObject({ framework_id: { value: c.frameworkId }, heartbeat_interval_seconds: 15 });
  expect(c.streamId).toMatch(/^[0-9a-f-]{36}$/);
  const offer = offers(c)[0];
  expect(offer).toMatchObject({ agent_id: { value: a.agentId }, hostname: 'node-1', framework_id: { value: c.frameworkId } });
  expect(offer.resources).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ name: 'cpus', type: 'SCALAR', scalar: { value: 4 }, role: '*' }),
      expect.objectContaining({ name: 'ports', type: 'RANGES', ranges: { range: [{ begin: 31000, end: 31009 }] } }),
    ]),
  );
  // The REST API shows it as a Mesos framework, in the role it named.
  const fw = (await cp.request('GET', `/api/v1/frameworks/${defined(c.frameworkId)}`)).body as Record<string, unknown>;
  expect(fw).toMatchObject({ protocol: 'mesos', roles: ['analytics'], failoverTimeoutSeconds: 60, connected: true });

  const launched = await launch(
    c,
    offer,
    'hello-1',
    {
      name: 'hello',
      resources: [
        { name: 'cpus', type: 'SCALAR', scalar: { value: 1 } },
        { name: 'mem', type: 'SCALAR', scalar: { value: 128 } },
      ],
      command: { value: 'echo hello', environment: { variables: [{ name: 'GREETING', value: 'hi' }] } },
    },
    { filters: { refuse_seconds: 60 } },
  );
  expect(launched.status).toBe(202);
  await until(() => updates(c).some((s) => s.state === 'TASK_RUNNING'));
  // FrameworkInfo.user is the user of a task whose CommandInfo names none.
  expect(a.launches.map((l) => [l.task.taskId, l.task.user])).toEqual([['hello-1', 'nobody']]);
  const running = defined(updates(c).find((s) => s.state === 'TASK_RUNNING'));
  expect(running).toMatchObject({ task_id: { value: 'hello-1' }, agent_id: { value: a.agentId }, source: 'SOURCE_AGENT' });
  expect(Buffer.from(defined(running.uuid), 'base64')).toHaveLength(16);
  const listed = (await cp.request('GET', `/api/v1/tasks?frameworkId=${defined(c.frameworkId)}`)).body as {
    items: Array<Record<string, unknown>>;
  };
  expect(listed.items).toEqual([expect.objectContaining({ taskId: 'hello-1', name: 'hello', state: 'RUNNING' })]);

  // Unacknowledged updates go out again (the periodic resend), each task's latest; acknowledged ones do not.
  const tasks = cp.cp.app.get(TaskUpdates);
  const before = updates(c).length;
  expect([...(await tasks.resendUnacknowledged(c.frameworkId, 0))]).toHaveLength(1);
  await until(() => updates(c).length === before + 1);
  expect(updates(c).at(-1)).toMatchObject({ state: 'TASK_RUNNING', uuid: updates(c)[before - 1].uuid });
  for (const s of updates(c).slice(0, before))
    expect((await c.call('ACKNOWLEDGE', { acknowledge: { agent_id: s.agent_id, task_id: s.task_id, uuid: s.uuid } })).status).toBe(202);
  await until(async () => (await tasks.resendUnacknowledged(c.frameworkId, 0)).size === 0);
});

it('declines with a filter, suppresses and revives, kills and reconciles', async () => {
  const cp = await start();
  const a = await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const c = client(cp);
  await c.subscribe(info({ capabilities: [{ type: 'TASK_KILLING_STATE' }] }));
  await until(() => offers(c).length > 0);
  // Declined for an hour: no offer of that agent meanwhile, until REVIVE clears the filter.
  expect((await c.call('DECLINE', { decline: { offer_ids: [offers(c)[0].id], filters: { refuse_seconds: 3600 } } })).status).toBe(202);
  const state = cp.cp.app.get(ClusterState);
  const cycles = state.cycles;
  await until(() => state.cycles >= cycles + 5);
  expect(offers(c)).toHaveLength(1);
  expect((await c.call('SUPPRESS', { suppress: { roles: ['analytics'] } })).status).toBe(202);
  expect((await c.call('REVIVE', { revive: {} })).status).toBe(202);
  await until(() => offers(c).length === 2);

  expect((await launch(c, offers(c)[1], 'sleeper')).status).toBe(202);
  await until(() => updates(c).some((s) => s.state === 'TASK_RUNNING'));
  expect(
    (
      await c.call('KILL', {
        kill: { task_id: { value: 'sleeper' }, agent_id: { value: a.agentId }, kill_policy: { grace_period: { nanoseconds: 1e9 } } },
      })
    ).status,
  ).toBe(202);
  await until(() => updates(c).some((s) => s.state === 'TASK_KILLED'));
  expect(updates(c).map((s) => s.state)).toEqual(expect.arrayContaining(['TASK_KILLING', 'TASK_KILLED']));

  // Explicit reconciliation: the state of the task named, TASK_LOST for a task never heard of; no uuid (not acknowledged).
  const n = updates(c).length;
  expect(
    (await c.call('RECONCILE', { reconcile: { tasks: [{ task_id: { value: 'sleeper' } }, { task_id: { value: 'ghost' } }] } })).status,
  ).toBe(202);
  await until(() => updates(c).length === n + 2);
  expect(updates(c).slice(n)).toEqual([
    expect.objectContaining({ task_id: { value: 'sleeper' }, state: 'TASK_KILLED', reason: 'REASON_RECONCILIATION' }),
    expect.objectContaining({ task_id: { value: 'ghost' }, state: 'TASK_LOST', reason: 'REASON_RECONCILIATION' }),
  ]);
  expect(
    updates(c)
      .slice(n)
      .some((s) => s.uuid !== undefined),
  ).toBe(false);
  // Implicit: every live task (none now).
  expect((await c.call('RECONCILE', { reconcile: { tasks: [] } })).status).toBe(202);
  expect((await c.call('KILL', { kill: { task_id: { value: 'nope' } } })).status).toBe(400);
});

it('drops the tasks of an accept whose offers cannot be used, as Mesos does, and refuses calls it cannot honour by name', async () => {
  const cp = await start();
  await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const c = client(cp);
  await c.subscribe(info({ capabilities: [{ type: 'PARTITION_AWARE' }] }));
  await until(() => offers(c).length > 0);
  const offer = offers(c)[0];
  const stale = { ...offer, id: { value: '00000000-0000-4000-8000-000000000000' } };
  expect((await launch(c, stale, 'lost-1')).status).toBe(202);
  await until(() => updates(c).length > 0);
  expect(updates(c)[0]).toMatchObject({
    task_id: { value: 'lost-1' },
    state: 'TASK_DROPPED',
    reason: 'REASON_INVALID_OFFERS',
    source: 'SOURCE_MASTER',
  });
  // Too much for the offer: TASK_ERROR, and the offer goes back to the allocator.
  const greedy = await launch(
    c,
    offer,
    'big',
    { resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 64 } }] },
    { filters: { refuse_seconds: 0 } },
  );
  expect(greedy.status).toBe(202);
  await until(() => updates(c).some((s) => s.task_id.value === 'big'));
  expect(updates(c).find((s) => s.task_id.value === 'big')).toMatchObject({ state: 'TASK_ERROR', reason: 'REASON_TASK_INVALID' });
  await until(() => offers(c).length > 1);

  const refusals: Array<[Record<string, unknown>, number, string, string]> = [
    [
      { type: 'ACCEPT', accept: { offer_ids: [offer.id], operations: [{ type: 'GROW_VOLUME', grow_volume: {} }] } },
      400,
      'UNSUPPORTED',
      'GROW_VOLUME',
    ],
    [{ type: 'SHUTDOWN' }, 400, 'INVALID_MESSAGE', "'shutdown' field"],
    [
      {
        type: 'ACCEPT',
        accept: {
          offer_ids: [offer.id],
          operations: [
            {
              type: 'LAUNCH',
              launch: {
                task_infos: [
                  {
                    name: 'd',
                    task_id: { value: 'd' },
                    agent_id: offer.agent_id,
                    container: { type: 'MESOS', tty_info: { window_size: { rows: 24, columns: 80 } } },
                    command: { value: 'true' },
                  },
                ],
              },
            },
          ],
        },
      },
      400,
      'UNSUPPORTED',
      'container.tty_info',
    ],
    [
      { type: 'DECLINE', decline: { offer_ids: [offer.id], filters: { refuse_seconds: 1 }, colour: 'blue' } },
      400,
      'INVALID_MESSAGE',
      'colour',
    ],
    [{ type: 'TELEPORT' }, 400, 'INVALID_MESSAGE', 'type'],
    [{ type: 'ACKNOWLEDGE', acknowledge: { task_id: { value: 'x' }, uuid: 'not-a-uuid' } }, 400, 'INVALID_MESSAGE', 'uuid'],
  ];
  for (const [call, status, code, mentions] of refusals) {
    const r = await c.call(String(call.type), call);
    expect([r.status, JSON.parse(r.body) as unknown]).toEqual([status, objectContaining({ code, message: stringContaining(mentions) })]);
  }
  // Bad bodies and headers.
  expect(await c.raw('{"type":', { 'content-type': 'application/json' })).toMatchObject({ status: 400 });
  expect(JSON.parse((await c.raw('<call/>', { 'content-type': 'application/xml' })).body)).toMatchObject({
    code: 'UNSUPPORTED_MEDIA_TYPE',
  });
  const noStream = await c.call('REVIVE', {}, { 'mesos-stream-id': '' });
  expect([noStream.status, codeOf(noStream.body)]).toEqual([400, 'NOT_SUBSCRIBED']);
  const otherFramework = await c.raw(JSON.stringify({ type: 'REVIVE', framework_id: { value: 'someone-else' } }), {
    'mesos-stream-id': defined(c.streamId),
  });
  expect([otherFramework.status, codeOf(otherFramework.body)]).toEqual([400, 'INVALID_MESSAGE']);
  const xml = client(cp);
  expect(
    JSON.parse(
      (await xml.raw(JSON.stringify({ type: 'SUBSCRIBE', subscribe: { framework_info: info() } }), { accept: 'application/xml' })).body,
    ),
  ).toMatchObject({
    code: 'NOT_ACCEPTABLE',
  });
  // The stream is still open and serving.
  expect(c.ended).toBe(false);
});

it('authenticates frameworks with Basic or Bearer, refuses anonymous ones unless allowed, and keeps principals apart', async () => {
  const cp = await start();
  await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const teamA = await cp.principal('team-a');
  const teamB = await cp.principal('team-b');
  const agentToken = await cp.principal('an-agent', 'AGENT');

  const anonymous = client(cp, null);
  expect(await anonymous.subscribe(info())).toBe(401);
  expect(JSON.parse(defined(anonymous.subscribeBody))).toMatchObject({ code: 'AUTH_TOKEN_MISSING' });
  const wrongOwner = client(cp, basic('team-b', teamA));
  expect(await wrongOwner.subscribe(info())).toBe(401);
  const agentKind = client(cp, `Bearer ${agentToken}`);
  expect(await agentKind.subscribe(info())).toBe(403);

  const a = client(cp, basic('team-a', teamA));
  expect(await a.subscribe(info({ principal: 'team-a' }))).toBe(200);
  await until(() => a.frameworkId !== undefined);
  const fw = (await cp.request('GET', `/api/v1/frameworks/${defined(a.frameworkId)}`)).body as Record<string, unknown>;
  expect(fw).toMatchObject({ principal: 'team-a', protocol: 'mesos' });
  // Claiming another principal in framework_info is refused, as is subscribing as team-a's framework.
  const liar = client(cp, `Bearer ${teamB}`);
  expect(await liar.subscribe(info({ principal: 'team-a' }))).toBe(403);
  const thief = client(cp, `Bearer ${teamB}`);
  expect(await thief.subscribe(info({ id: { value: a.frameworkId } }))).toBe(403);
  expect(JSON.parse(defined(thief.subscribeBody))).toMatchObject({ code: 'FRAMEWORK_PRINCIPAL_MISMATCH' });
  // Knowing team-a's stream id does not let team-b call on it.
  const hijack = await new MesosClient(cp.cp.url, `Bearer ${teamB}`).raw(
    JSON.stringify({ type: 'TEARDOWN', framework_id: { value: a.frameworkId } }),
    { 'mesos-stream-id': defined(a.streamId) },
  );
  expect([hijack.status, codeOf(hijack.body)]).toEqual([403, 'FRAMEWORK_PRINCIPAL_MISMATCH']);
  expect(((await cp.request('GET', `/api/v1/frameworks/${defined(a.frameworkId)}`)).body as Record<string, unknown>).state).toBe('ACTIVE');
  // Its own TEARDOWN ends it and its stream.
  expect((await a.call('TEARDOWN')).status).toBe(202);
  await until(() => a.ended);
  expect(((await cp.request('GET', `/api/v1/frameworks/${defined(a.frameworkId)}`)).body as Record<string, unknown>).state).toBe(
    'COMPLETED',
  );
});

it('admits anonymous frameworks when the operator allows it, under the ACL entries for principal type ANY only', async () => {
  const cp = await start({ mesosAllowAnonymous: true });
  expect(
    (
      await cp.request('PUT', '/api/v1/acls', {
        permissive: false,
        register_frameworks: [
          { principals: { values: ['anonymous'] }, roles: { type: 'ANY' } },
          { principals: { type: 'ANY' }, roles: { values: ['open'] } },
        ],
      })
    ).status,
  ).toBe(200);
  const open = client(cp, null);
  expect(await open.subscribe(info({ role: 'open', principal: 'team-a' }))).toBe(200);
  await until(() => open.frameworkId !== undefined);
  // No principal, whatever framework_info claimed.
  expect(
    ((await cp.request('GET', `/api/v1/frameworks/${defined(open.frameworkId)}`)).body as Record<string, unknown>).principal,
  ).toBeNull();
  // An entry naming a principal called 'anonymous' does not match a caller without one.
  const closed = client(cp, null);
  expect(await closed.subscribe(info({ role: 'analytics' }))).toBe(403);
  expect(JSON.parse(defined(closed.subscribeBody))).toMatchObject({ code: 'FORBIDDEN' });
});

it('lets no one take over an anonymous framework: no principal subscribes as it, and only its own stream acts for it while open', async () => {
  const cp = await start({ mesosAllowAnonymous: true });
  const teamB = await cp.principal('team-b');
  const owner = client(cp, null);
  expect(await owner.subscribe(info({ failover_timeout: 600 }))).toBe(200);
  await until(() => owner.frameworkId !== undefined);
  const id = defined(owner.frameworkId);
  const stateOf = async () => ((await cp.request('GET', `/api/v1/frameworks/${id}`)).body as Record<string, unknown>).state;

  // An authenticated principal cannot subscribe as it, over either protocol.
  const thief = client(cp, `Bearer ${teamB}`);
  expect(await thief.subscribe(info({ id: { value: id } }))).toBe(403);
  expect(codeOf(thief.subscribeBody)).toBe('FRAMEWORK_PRINCIPAL_MISMATCH');
  const sdk = new Recorder(cp, { name: 'thief', roles: ['analytics'], frameworkId: id }, { token: teamB });
  closers.push(() => sdk.s.close());
  await expect(sdk.s.start()).rejects.toMatchObject({ code: 'FRAMEWORK_PRINCIPAL_MISMATCH' });
  // Another anonymous caller knows its framework id but not its stream: it cannot subscribe as it either.
  const stranger = client(cp, null);
  expect(await stranger.subscribe(info({ id: { value: id } }))).toBe(403);
  expect(codeOf(stranger.subscribeBody)).toBe('FRAMEWORK_PRINCIPAL_MISMATCH');
  // Calls need the owner's Mesos-Stream-Id: an authenticated caller holding it is refused, a wrong one names no stream.
  const teardown = JSON.stringify({ type: 'TEARDOWN', framework_id: { value: id } });
  const withId = await new MesosClient(cp.cp.url, `Bearer ${teamB}`).raw(teardown, { 'mesos-stream-id': defined(owner.streamId) });
  expect([withId.status, codeOf(withId.body)]).toEqual([403, 'FRAMEWORK_PRINCIPAL_MISMATCH']);
  const guessed = await new MesosClient(cp.cp.url, null).raw(teardown, { 'mesos-stream-id': '00000000-0000-4000-8000-000000000000' });
  expect([guessed.status, codeOf(guessed.body)]).toEqual([400, 'NOT_SUBSCRIBED']);
  expect(owner.ended).toBe(false);
  expect(await stateOf()).toBe('ACTIVE');
  expect((await owner.call('REVIVE')).status).toBe(202);

  // Once its stream has ended it fails over as Mesos frameworks do: an anonymous subscription with its id.
  owner.close();
  await until(async () => (await stateOf()) === 'DISCONNECTED');
  const again = client(cp, null);
  expect(await again.subscribe(info({ id: { value: id } }))).toBe(200);
  await until(() => again.frameworkId === id);
});

it('ends the event streams of a revoked token and of a disabled principal, and their frameworks hold no offers after', async () => {
  const cp = await start();
  await cp.principal('team-a');
  const issued = (await cp.request('POST', '/api/v1/principals/team-a/tokens', {})).body as { id: string; token: string };
  const revoked = client(cp, basic('team-a', issued.token));
  const disabled = client(cp, `Bearer ${await cp.principal('team-c')}`);
  const keeps = client(cp, `Bearer ${await cp.principal('team-b')}`);
  const state = cp.cp.app.get(ClusterState);
  const held = (c: MesosClient) => [...state.offers.values()].filter((o) => o.frameworkId === c.frameworkId).length;
  const stateOf = async (c: MesosClient) =>
    ((await cp.request('GET', `/api/v1/frameworks/${defined(c.frameworkId)}`)).body as Record<string, unknown>).state;
  // Each subscribes, then an agent comes for it to hold as an offer.
  for (const [i, c] of [revoked, disabled, keeps].entries()) {
    expect(await c.subscribe(info({ role: `role-${i}`, failover_timeout: 600 }))).toBe(200);
    await agent(cp, `node-${i}`, 'cpus:4;mem:4096');
    await until(() => held(c) > 0);
  }

  expect((await cp.request('DELETE', `/api/v1/tokens/${issued.id}`)).status).toBe(200);
  await until(() => revoked.ended);
  expect(revoked.of<{ message: string }>('ERROR')).toEqual([{ message: stringContaining('revoked') }]);
  // Ended as a disconnection: its offers went back (to the other role's framework now), and it gets none.
  await until(async () => held(revoked) === 0 && (await stateOf(revoked)) === 'DISCONNECTED');

  expect((await cp.request('POST', '/api/v1/principals/team-c/disable')).status).toBe(200);
  await until(() => disabled.ended);
  await until(async () => held(disabled) === 0 && (await stateOf(disabled)) === 'DISCONNECTED');
  // Another principal's stream is untouched.
  expect(keeps.ended).toBe(false);
  expect(await stateOf(keeps)).toBe('ACTIVE');
});

it('cuts off a framework that stops reading its stream once its queue passes the bound, and frees what waited for it', async () => {
  const cp = await start({ connectionQueueMb: 0.5 });
  const outbound = cp.cp.app.get(Outbound);
  const hung = client(cp);
  const reader = client(cp);
  for (const c of [hung, reader]) expect(await c.subscribe(info({ failover_timeout: 600 }))).toBe(200);
  await until(() => hung.frameworkId !== undefined && reader.frameworkId !== undefined);
  const queued = (c: MesosClient) => outbound.queued(`mesos:${defined(c.streamId)}`);
  expect(queued(hung)).toBe(0);
  hung.stopReading();
  // Each ACCEPT of 4,000 tasks on an offer that does not exist is answered with 4,000 updates
  // (TASK_LOST) on the stream, about 1.3 MB: before long more than the socket's buffers take,
  // and more than the bound.
  const launches = Array.from({ length: 4_000 }, (_, i) => ({
    name: 't',
    task_id: { value: `t-${i}` },
    agent_id: { value: 'a' },
    command: { value: 'true' },
    resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 } }],
  }));
  const accept = {
    accept: {
      offer_ids: [{ value: '00000000-0000-4000-8000-000000000000' }],
      operations: [{ type: 'LAUNCH', launch: { task_infos: launches } }],
    },
  };
  let calls = 0;
  while (queued(hung) !== undefined && calls++ < 40) expect((await hung.call('ACCEPT', accept)).status).toBe(202);
  // Cut off: the stream is gone from the accounting (what waited was dropped with its connection)...
  expect(queued(hung)).toBeUndefined();
  expect(outbound.totalBytes()).toBeLessThan(64 * 1024);
  const state = cp.cp.app.get(ClusterState);
  // ... and its framework is disconnected, as if it had gone.
  await until(() => state.frameworks.get(defined(hung.frameworkId))?.socket === undefined);
  expect((await hung.call('REVIVE')).status).toBe(400);
  // A framework that reads takes a large answer whole: 25,000 answers (about 7 MB, 14 times the
  // bound) go out in chunks, each once most of the last has been read.
  const tasks = Array.from({ length: 25_000 }, (_, i) => ({ task_id: { value: `t-${i}` } }));
  expect((await reader.call('RECONCILE', { reconcile: { tasks } })).status).toBe(202);
  await until(() => updates(reader).length === 25_000);
  expect(reader.ended).toBe(false);
  expect(queued(reader)).toBeLessThan(512 * 1024);
}, 60_000);

it('limits the frameworks of one principal, over either protocol: one more is refused TOO_MANY_FRAMEWORKS', async () => {
  const cp = await start({ maxFrameworksPerPrincipal: 2 });
  const teamA = await cp.principal('team-a');
  const sdk = new Recorder(cp, { name: 'sdk', roles: ['analytics'] }, { token: teamA });
  closers.push(() => sdk.s.close());
  await sdk.s.start();
  const mesos = client(cp, `Bearer ${teamA}`);
  expect(await mesos.subscribe(info({ failover_timeout: 600 }))).toBe(200);
  await until(() => mesos.frameworkId !== undefined);

  const third = client(cp, `Bearer ${teamA}`);
  expect(await third.subscribe(info())).toBe(403);
  expect(codeOf(third.subscribeBody)).toBe('TOO_MANY_FRAMEWORKS');
  const thirdSdk = new Recorder(cp, { name: 'sdk-3', roles: ['analytics'] }, { token: teamA });
  closers.push(() => thirdSdk.s.close());
  await expect(thirdSdk.s.start()).rejects.toMatchObject({ code: 'TOO_MANY_FRAMEWORKS' });
  // Its frameworks may still subscribe again, and another principal is not limited by them.
  mesos.close();
  const again = client(cp, `Bearer ${teamA}`);
  expect(await again.subscribe(info({ id: { value: mesos.frameworkId } }))).toBe(200);
  expect(await client(cp, `Bearer ${await cp.principal('team-b')}`).subscribe(info())).toBe(200);
  // Once one is torn down there is room for another.
  await until(() => again.frameworkId !== undefined);
  expect((await again.call('TEARDOWN')).status).toBe(202);
  await until(() => again.ended);
  expect(await client(cp, `Bearer ${teamA}`).subscribe(info())).toBe(200);
});

it("shares one cluster fairly between a Mesos framework and an SDK framework: the DRF example's 3 and 2 tasks", async () => {
  const cp = await start();
  await agent(cp, 'drf-host', 'cpus:9;mem:18432');
  // Both subscribe suppressed, then revive: offers start once both are there, as in the walk-through.
  const sdk = new Recorder(cp, { name: 'B (SDK)', roles: ['drf'], suppressedRoles: ['drf'] });
  closers.push(() => sdk.s.close());
  const mesosFw = client(cp);
  let n = 0;
  mesosFw.onEvent = (e) => {
    if (e.type !== 'OFFERS') return;
    for (const o of (e.offers as { offers: Offer[] }).offers) {
      const scalar = (name: string) => (o.resources.find((r) => r.name === name)?.scalar as { value?: number } | undefined)?.value ?? 0;
      if (scalar('cpus') >= 1 && scalar('mem') >= 4096)
        void launch(
          mesosFw,
          o,
          `A-${n++}`,
          {
            resources: [
              { name: 'cpus', type: 'SCALAR', scalar: { value: 1 } },
              { name: 'mem', type: 'SCALAR', scalar: { value: 4096 } },
            ],
          },
          { filters: { refuse_seconds: 0 } },
        );
      else void mesosFw.call('DECLINE', { decline: { offer_ids: [o.id], filters: { refuse_seconds: 0 } } });
    }
  };
  let m = 0;
  sdk.s.on('offers', (list) => {
    for (const o of list) {
      const offered = Resources.of(o.resources);
      const need = Resources.fromScalars({ cpus: 3, mem: 1024 });
      if (offered.contains(need))
        sdk.s
          .launch(o, [{ taskId: `B-${m++}`, name: 'B', command: { shell: 'sleep 600' }, resources: need.toJSON() }], { refuseSeconds: 0 })
          .catch(() => undefined);
      else sdk.s.decline(o.id, { refuseSeconds: 0 }).catch(() => undefined);
    }
  });
  await sdk.s.start();
  expect(await mesosFw.subscribe(info({ role: 'drf' }), { suppressed_roles: ['drf'] })).toBe(200);
  await until(() => mesosFw.frameworkId !== undefined);
  await sdk.s.revive();
  expect((await mesosFw.call('REVIVE', { revive: { roles: ['drf'] } })).status).toBe(202);
  const share = async () => {
    const list = (await cp.request('GET', '/api/v1/frameworks?limit=10')).body as {
      items: Array<{ id: string; activeTasks: number; dominantShare: number; protocol: string }>;
    };
    return list.items;
  };
  await until(async () => {
    const items = await share();
    return items.reduce((sum, f) => sum + f.activeTasks, 0) === 5;
  }, 20_000);
  const items = await share();
  const of = (id: string | undefined) => defined(items.find((f) => f.id === id));
  expect(
    [of(mesosFw.frameworkId), of(sdk.s.frameworkId)].map((f) => [f.protocol, f.activeTasks, Math.round(f.dominantShare * 1000) / 1000]),
  ).toEqual([
    ['mesos', 3, 0.667],
    ['arbiter', 2, 0.667],
  ]);
});

it("serves Mesos's read-only endpoints for tooling: state, frameworks, slaves, roles, tasks, the metrics snapshot and the leader redirect", async () => {
  const cp = await start();
  const a = await agent(cp, 'node-1', 'cpus:4;mem:4096;ports:[31000-31009]');
  const c = client(cp);
  await c.subscribe(info({ webui_url: 'http://fw.example/ui' }));
  await until(() => offers(c).length > 0);
  await launch(c, offers(c)[0], 'svc-1');
  await until(() => updates(c).some((s) => s.state === 'TASK_RUNNING'));
  const viewer = await cp.principal('viewer', 'VIEWER');
  const get = async (route: string, auth: string | null = basic('viewer', viewer)) => {
    const r = await fetch(`${cp.cp.url}${route}`, { headers: auth ? { authorization: auth } : {}, redirect: 'manual' });
    return { status: r.status, headers: r.headers, body: r.status === 307 ? {} : ((await r.json()) as Record<string, unknown>) };
  };

  const state = await get('/master/state');
  expect(state.status).toBe(200);
  expect(state.body).toMatchObject({
    activated_slaves: 1,
    slaves: [
      objectContaining({
        id: a.agentId,
        hostname: 'node-1',
        active: true,
        resources: objectContaining({ cpus: 4, ports: '[31000-31009]' }),
      }),
    ],
    frameworks: [
      objectContaining({
        id: c.frameworkId,
        name: 'mesos-fw',
        role: 'analytics',
        active: true,
        webui_url: 'http://fw.example/ui',
        arbiter_protocol: 'mesos',
        tasks: [
          objectContaining({
            id: 'svc-1',
            state: 'TASK_RUNNING',
            slave_id: a.agentId,
            resources: objectContaining({ cpus: 1 }),
          }),
        ],
      }),
    ],
  });
  expect((await get('/state.json')).body).toHaveProperty('slaves');
  expect((await get('/master/slaves')).body).toMatchObject({
    slaves: [objectContaining({ used_resources: objectContaining({ cpus: 1 }) })],
  });
  expect((await get('/master/frameworks')).body).toMatchObject({
    frameworks: [objectContaining({ id: c.frameworkId })],
    completed_frameworks: [],
  });
  expect((await get('/master/roles')).body).toMatchObject({
    roles: arrayContaining([objectContaining({ name: 'analytics', weight: 1, frameworks: [c.frameworkId] })]),
  });
  expect((await get('/master/tasks?limit=1')).body).toMatchObject({
    tasks: [objectContaining({ id: 'svc-1', framework_id: c.frameworkId })],
  });

  expect((await get('/metrics/snapshot', null)).status).toBe(401);
  const snapshot = (await get('/metrics/snapshot')).body;
  expect(snapshot).toMatchObject({
    'master/elected': 1,
    'master/slaves_active': 1,
    'master/frameworks_connected': 1,
    'master/tasks_running': 1,
    'master/cpus_total': 4,
    'master/cpus_used': 1,
  });
  expect(snapshot['allocator/mesos/allocation_runs']).toBeGreaterThan(0);

  const redirect = await get('/master/redirect', null);
  const leader = new URL(((await cp.request('GET', '/health')).body as { leader: string }).leader);
  expect([redirect.status, redirect.headers.get('location')]).toEqual([307, `//${leader.host}`]);
  // Reading the state needs credentials; the metrics snapshot does not.
  expect((await get('/master/state', null)).status).toBe(401);
  expect((await get('/master/state', basic('viewer', 'arb_wrong'))).status).toBe(401);
});

it("speaks protobuf as Mesos encodes it: calls and events round-trip through another implementation's Mesos definitions", async () => {
  const cp = await start();
  const a = await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const c = new MesosClient(cp.cp.url, `Bearer ${ADMIN_TOKEN}`, mesosFrameworkCodec);
  closers.push(() => c.close());
  expect(await c.subscribe(info())).toBe(200);
  await until(() => c.frameworkId !== undefined && offers(c).length > 0);
  expect(c.of('SUBSCRIBED')[0]).toMatchObject({ framework_id: { value: c.frameworkId }, heartbeat_interval_seconds: 15 });
  const offer = offers(c)[0];
  expect(offer).toMatchObject({ agent_id: { value: a.agentId }, hostname: 'node-1' });
  expect(offer.resources).toEqual(arrayContaining([objectContaining({ name: 'cpus', type: 'SCALAR', scalar: { value: 4 } })]));
  expect(
    (
      await launch(c, offer, 'pb-1', {
        command: { shell: true, value: 'echo protobuf', environment: { variables: [{ name: 'X', value: '1' }] } },
      })
    ).status,
  ).toBe(202);
  await until(() => updates(c).some((s) => s.state === 'TASK_RUNNING'));
  const running = defined(updates(c).find((s) => s.state === 'TASK_RUNNING'));
  expect(running).toMatchObject({ task_id: { value: 'pb-1' }, source: 'SOURCE_AGENT', agent_id: { value: a.agentId } });
  // The uuid arrives as bytes and goes back as bytes.
  expect(
    (await c.call('ACKNOWLEDGE', { acknowledge: { agent_id: running.agent_id, task_id: running.task_id, uuid: running.uuid } })).status,
  ).toBe(202);
  expect(
    (
      await c.call('DECLINE', {
        decline: { offer_ids: [{ value: '00000000-0000-4000-8000-000000000000' }], filters: { refuse_seconds: 1 } },
      })
    ).status,
  ).toBe(202);
  // A field the schema has not got is refused, not dropped; bytes that are no Call are refused too.
  const unknownField = Buffer.concat([
    mesosFrameworkCodec.encodeCall({ framework_id: { value: c.frameworkId }, type: 'REVIVE' }),
    Buffer.from([0xf8, 0x06, 0x01]),
  ]);
  const refused = await c.raw(unknownField, { 'mesos-stream-id': defined(c.streamId) });
  expect([refused.status, codeOf(refused.body)]).toEqual([400, 'UNSUPPORTED']);
  const garbage = await c.raw(Buffer.from([0xff, 0xff, 0xff]), { 'mesos-stream-id': defined(c.streamId) });
  expect([garbage.status, codeOf(garbage.body)]).toEqual([400, 'INVALID_MESSAGE']);
});

it('answers any malformed Mesos call with a 4xx and keeps serving: generated calls, fixed seed', async () => {
  const cp = await start();
  await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const c = client(cp);
  await c.subscribe(info());
  await until(() => c.frameworkId !== undefined);
  const hostile = fc.oneof(
    fc.constantFrom('\u0000', '\ud800', '', '..', 'a:b', '*', 'x'.repeat(5000), -1, 1e308, Number.NaN, null, true, [], {}),
    fc.string(),
    fc.integer(),
  );
  const fields = [
    'type',
    'framework_id',
    'subscribe',
    'accept',
    'decline',
    'kill',
    'acknowledge',
    'reconcile',
    'revive',
    'suppress',
    'zzz',
  ];
  const call = fc.oneof(
    fc.jsonValue(),
    fc.dictionary(fc.constantFrom(...fields), fc.oneof(hostile, fc.jsonValue()), { maxKeys: 4 }),
    fc.record({
      type: fc.constantFrom('ACCEPT', 'DECLINE', 'KILL', 'ACKNOWLEDGE', 'RECONCILE', 'SUPPRESS', 'SUBSCRIBE'),
      accept: fc.record({
        offer_ids: fc.array(fc.record({ value: hostile }), { maxLength: 2 }),
        operations: fc.array(fc.jsonValue(), { maxLength: 2 }),
      }),
      kill: fc.record({ task_id: fc.record({ value: hostile }) }),
      acknowledge: fc.record({ task_id: fc.record({ value: hostile }), uuid: hostile }),
      subscribe: fc.record({
        framework_info: fc.record({ user: hostile, name: hostile, role: hostile, capabilities: fc.array(fc.record({ type: hostile })) }),
      }),
    }),
  );
  await fc.assert(
    fc.asyncProperty(call, async (body) => {
      const r = await c.raw(JSON.stringify(body), { 'mesos-stream-id': defined(c.streamId) });
      expect(r.status).toBeGreaterThanOrEqual(202);
      expect(r.status).toBeLessThan(500);
      if (r.status >= 400) expect(codeOf(r.body)).toMatch(/^[A-Z_]+$/);
    }),
    { seed: 20261125, numRuns: 150 },
  );
  // Still serving: the stream is open and a good call is accepted.
  expect(c.ended).toBe(false);
  expect((await c.call('REVIVE', {})).status).toBe(202);
});

it('tells Mesos frameworks (FAILURE) and SDK frameworks (agentLost) when an agent is taken out, after its tasks', async () => {
  const cp = await start();
  const a = await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const c = client(cp);
  await c.subscribe(info());
  await until(() => offers(c).length > 0);
  await launch(c, offers(c)[0], 'doomed');
  await until(() => updates(c).some((s) => s.state === 'TASK_RUNNING'));
  const sdk = new Recorder(cp, { name: 'sdk', roles: ['other'] });
  closers.push(() => sdk.s.close());
  const lost: string[] = [];
  sdk.s.on('agentLost', (agentId) => lost.push(agentId));
  await sdk.s.start();
  // Drained and marked gone: its task is killed, then the agent is taken out.
  expect((await cp.request('POST', `/api/v1/agents/${defined(a.agentId)}/drain`, { markGone: true })).status).toBe(200);
  await until(() => c.of('FAILURE').length > 0 && lost.length > 0);
  expect(c.of('FAILURE')).toEqual([{ agent_id: { value: a.agentId } }]);
  expect(lost).toEqual([a.agentId]);
  // The task's end came first.
  const failureAt = c.events.findIndex((e) => e.type === 'FAILURE');
  const goneAt = c.events.findIndex((e) => e.type === 'UPDATE' && (e.update as { status: Status }).status.state === 'TASK_KILLED');
  expect(goneAt).toBeGreaterThan(-1);
  expect(goneAt).toBeLessThan(failureAt);
});

it('sends inverse offers for a machine scheduled for maintenance, rescinds them when the window goes, and records the answer', async () => {
  const cp = await start();
  const a = await agent(cp, 'node-1', 'cpus:4;mem:4096');
  const c = client(cp);
  await c.subscribe(info());
  await until(() => offers(c).length > 0);
  await launch(c, offers(c)[0], 'resident');
  await until(() => updates(c).some((s) => s.state === 'TASK_RUNNING'));
  const schedule = (windows: unknown[]) => cp.request('PUT', '/api/v1/maintenance/schedule', { windows });
  const window = {
    machines: [{ hostname: 'node-1' }],
    unavailability: { start: new Date(Date.now() + 3600_000).toISOString(), durationSeconds: 600 },
  };
  interface Inverse {
    inverse_offers: Array<{ id: { value: string }; agent_id: { value: string }; unavailability: { start: { nanoseconds: number } } }>;
  }
  expect((await schedule([window])).status).toBe(200);
  await until(() => c.of<Inverse>('INVERSE_OFFERS').length === 1);
  const first = c.of<Inverse>('INVERSE_OFFERS')[0].inverse_offers[0];
  expect(first).toMatchObject({ agent_id: { value: a.agentId } });
  expect(first.unavailability.start.nanoseconds).toBe(Date.parse(window.unavailability.start) * 1e6);
  // The window is cancelled: the inverse offer is rescinded, and answering it is an error.
  expect((await schedule([])).status).toBe(200);
  await until(() => c.of('RESCIND_INVERSE_OFFER').length === 1);
  expect(c.of('RESCIND_INVERSE_OFFER')[0]).toEqual({ inverse_offer_id: first.id });
  const late = await c.call('ACCEPT_INVERSE_OFFERS', { accept_inverse_offers: { inverse_offer_ids: [first.id] } });
  expect([late.status, codeOf(late.body)]).toEqual([400, 'UNKNOWN_OFFER']);
  // Scheduled again: a new inverse offer, accepted and recorded.
  expect((await schedule([window])).status).toBe(200);
  await until(() => c.of<Inverse>('INVERSE_OFFERS').length === 2);
  const second = c.of<Inverse>('INVERSE_OFFERS')[1].inverse_offers[0];
  expect((await c.call('ACCEPT_INVERSE_OFFERS', { accept_inverse_offers: { inverse_offer_ids: [second.id] } })).status).toBe(202);
  const status = (await cp.request('GET', '/api/v1/maintenance/status')).body as { drainingMachines: Array<{ statuses: unknown[] }> };
  expect(status.drainingMachines[0].statuses).toEqual([objectContaining({ frameworkId: c.frameworkId, status: 'ACCEPT' })]);
});
