/**
 * The TaskInfo fields real frameworks send (data, labels, discovery, kill policy, max completion
 * time) from the Mesos API (JSON and protobuf) and the SDK to the agent, the database, the REST
 * API and Mesos's read-only endpoints; kills that name no grace period use the task's policy;
 * UPDATE_FRAMEWORK (and the SDK's updateFramework) without subscribing again; the scheduler API
 * at /master/api/v1/scheduler; ACCEPTs naming offer ids the master never issued.
 */
import { parseResources } from '@arbiter/allocator';
import { SchedulerError, type Subscribe } from '@arbiter/scheduler-sdk';
import type { AppConfig } from '../../../src/config/config.schema';
import { TaskUpdates } from '../../../src/tasks/task-updates.handler';
import { ADMIN_TOKEN, controlPlaneBed, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { MesosClient } from '../../support/mesos-client';
import { mesosFrameworkCodec } from '../../support/mesos-framework-codec';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

const { closers, start: startControlPlane } = controlPlaneBed();

const start = (config: Partial<AppConfig> = {}) => startControlPlane({ config: { allocationInterval: 0.1, ...config } });
const agentOf = async (cp: TestControlPlane, resources = 'cpus:8;mem:8192') => {
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, { hostname: 'node-1', resources: parseResources(resources).toJSON() });
  closers.push(() => a.close());
  await a.register();
  return a;
};
const mesos = (cp: TestControlPlane, options: { token?: string; path?: string; protobuf?: boolean } = {}) => {
  const c = new MesosClient(
    cp.cp.url,
    `Bearer ${options.token ?? ADMIN_TOKEN}`,
    options.protobuf ? mesosFrameworkCodec : undefined,
    options.path,
  );
  closers.push(() => c.close());
  return c;
};
const recorder = (cp: TestControlPlane, framework: Subscribe) => {
  const r = new Recorder(cp, framework);
  closers.push(() => r.s.close());
  return r;
};

interface MesosOffer {
  id: { value: string };
  agent_id: { value: string };
  allocation_info?: { role: string };
}
interface MesosStatus {
  task_id: { value: string };
  state: string;
  reason?: string;
}
const offers = (c: MesosClient) => c.of<{ offers: MesosOffer[] }>('OFFERS').flatMap((e) => e.offers);
const updates = (c: MesosClient) => c.of<{ status: MesosStatus }>('UPDATE').map((e) => e.status);
const codeOf = (body: string) => (JSON.parse(body) as { code?: string }).code;
const info = (extra: Record<string, unknown> = {}) => ({ user: 'nobody', name: 'fields', role: 'analytics', ...extra });

const cpus = (value: number) => ({ name: 'cpus', type: 'SCALAR', scalar: { value } });
const taskInfo = (offer: MesosOffer, id: string, extra: Record<string, unknown> = {}) => ({
  name: id,
  task_id: { value: id },
  agent_id: offer.agent_id,
  resources: [cpus(1)],
  command: { value: 'sleep 60' },
  ...extra,
});
const accept = (c: MesosClient, offerIds: string[], tasks: Array<Record<string, unknown>>) =>
  c.launch(
    offerIds.map((value) => ({ value })),
    tasks,
    { filters: { refuse_seconds: 0 } },
  );

const DATA = Buffer.from('hello executor').toString('base64');
const FIELDS = {
  data: DATA,
  labels: { labels: [{ key: 'team', value: 'ml' }, { key: 'canary' }] },
  discovery: {
    visibility: 'CLUSTER',
    name: 'web',
    ports: { ports: [{ number: 8080, name: 'http', protocol: 'tcp', labels: { labels: [{ key: 'lb', value: 'public' }] } }] },
    labels: { labels: [{ key: 'zone', value: 'a' }] },
  },
  kill_policy: { grace_period: { nanoseconds: 2_500_000_000 } },
};
/** What an executor's status carries beside its state (passed on, and kept with the update until it is acknowledged). */
const FROM_EXECUTOR = { source: 'SOURCE_EXECUTOR' as const, data: DATA, healthy: false, labels: [{ key: 'phase', value: 'warm' }] };
/** The same fields in Arbiter's terms. */
const LABELS = [{ key: 'team', value: 'ml' }, { key: 'canary' }];
const DISCOVERY = {
  visibility: 'CLUSTER',
  name: 'web',
  ports: [{ number: 8080, name: 'http', protocol: 'tcp', labels: [{ key: 'lb', value: 'public' }] }],
  labels: [{ key: 'zone', value: 'a' }],
};

it.each([['JSON', false] as const, ['protobuf', true] as const])(
  'takes a TaskInfo with data, labels, discovery and kill policy (%s) to the agent, the REST API and /master/state; a kill uses the policy',
  async (_encoding, protobuf) => {
    const cp = await start();
    const a = await agentOf(cp);
    const c = mesos(cp, { protobuf });
    await c.subscribe(info());
    await until(() => offers(c).length > 0);
    const offer = offers(c)[0];
    // max_completion_time is Mesos 1.6's: the protobuf client's Mesos 0.28 schema lacks it.
    const deadline = protobuf ? {} : { max_completion_time: { nanoseconds: 90_000_000_000 } };
    const answer = await accept(
      c,
      [offer.id.value],
      [
        taskInfo(offer, 'with-fields', { ...FIELDS, ...deadline }),
        taskInfo(offer, 'overridden', { kill_policy: FIELDS.kill_policy }),
        taskInfo(offer, 'plain'),
      ],
    );
    expect(answer.status).toBe(202);
    await until(() => a.launches.length === 3);
    expect(a.launches[0].task).toEqual({
      taskId: 'with-fields',
      name: 'with-fields',
      command: { shell: 'sleep 60' },
      env: {},
      resources: [{ name: 'cpus', value: 1 }],
      user: 'nobody',
      data: DATA,
      labels: LABELS,
      discovery: DISCOVERY,
      killPolicy: { gracePeriodSeconds: 2.5 },
      ...(protobuf ? {} : { maxCompletionTimeSeconds: 90 }),
    });
    expect(a.launches[2].task).not.toHaveProperty('labels');

    const listed = (await cp.request('GET', `/api/v1/tasks?frameworkId=${defined(c.frameworkId)}`)).body as {
      items: Array<Record<string, unknown>>;
    };
    const row = defined(listed.items.find((i) => i.taskId === 'with-fields'));
    expect(row).toMatchObject({
      labels: LABELS,
      discovery: DISCOVERY,
      dataBytes: 'hello executor'.length,
      killGracePeriodSeconds: 2.5,
      maxCompletionTimeSeconds: protobuf ? null : 90,
    });
    expect(listed.items.find((i) => i.taskId === 'plain')).toMatchObject({ labels: [], discovery: null, dataBytes: null });
    expect((await cp.request('GET', `/api/v1/tasks/${String(row.id)}`)).body).toMatchObject({ labels: LABELS, discovery: DISCOVERY });

    // Mesos's shapes: labels a list of { key, value }, discovery its DiscoveryInfo.
    const mesosTask = {
      id: 'with-fields',
      labels: LABELS,
      discovery: {
        visibility: 'CLUSTER',
        name: 'web',
        ports: { ports: [{ number: 8080, name: 'http', protocol: 'tcp', labels: { labels: [{ key: 'lb', value: 'public' }] } }] },
        labels: { labels: [{ key: 'zone', value: 'a' }] },
      },
    };
    const tasks = (await cp.request('GET', '/master/tasks')).body as { tasks: Array<Record<string, unknown>> };
    expect(tasks.tasks.find((x) => x.id === 'with-fields')).toMatchObject(mesosTask);
    expect(tasks.tasks.find((x) => x.id === 'plain')).not.toHaveProperty('labels');
    const state = (await cp.request('GET', '/master/state')).body as { frameworks: Array<{ tasks: Array<Record<string, unknown>> }> };
    expect(state.frameworks[0].tasks.find((x) => x.id === 'with-fields')).toMatchObject(mesosTask);

    await until(() => updates(c).filter((s) => s.state === 'TASK_RUNNING').length === 3);
    // An executor's status reaches the framework with its data, health and labels, as Mesos's TaskStatus.
    await a.status(a.launches[2].frameworkId, 'plain', 'RUNNING', undefined, FROM_EXECUTOR);
    await until(() => updates(c).filter((s) => s.task_id.value === 'plain').length === 3);
    const plain = updates(c).filter((s) => s.task_id.value === 'plain') as unknown as Array<Record<string, unknown>>;
    expect(plain.map((s) => s.source)).toEqual(['SOURCE_AGENT', 'SOURCE_AGENT', 'SOURCE_EXECUTOR']);
    expect(plain[1]).not.toHaveProperty('data');
    expect(plain[2]).toMatchObject({ data: DATA, healthy: false, labels: { labels: [{ key: 'phase', value: 'warm' }] } });
    // Not acknowledged, the task's latest goes out again with them (the periodic resend reads the master's records).
    await cp.cp.app.get(TaskUpdates).resendUnacknowledged(c.frameworkId, 0);
    await until(() => updates(c).filter((s) => s.task_id.value === 'plain').length >= 4);
    const again = (updates(c).filter((s) => s.task_id.value === 'plain') as unknown as Array<Record<string, unknown>>).slice(3);
    for (const resent of again)
      expect(resent).toMatchObject({
        uuid: plain[2].uuid,
        data: DATA,
        healthy: false,
        labels: { labels: [{ key: 'phase', value: 'warm' }] },
      });

    // A KILL without a grace period uses the task's kill policy; one with it, its own; else 5 s.
    for (const [id, policy] of [
      ['with-fields', undefined],
      ['overridden', 250_000_000],
      ['plain', undefined],
    ] as const)
      expect(
        (
          await c.call('KILL', {
            kill: { task_id: { value: id }, ...(policy ? { kill_policy: { grace_period: { nanoseconds: policy } } } : {}) },
          })
        ).status,
      ).toBe(202);
    await until(() => a.kills.length === 3);
    expect(a.kills.map((k) => [k.taskId, k.gracePeriodSeconds])).toEqual([
      ['with-fields', 2.5],
      ['overridden', 0.25],
      ['plain', 5],
    ]);
  },
);

it('refuses malformed TaskInfo fields by name (400) and launches nothing; the offer stays usable', async () => {
  const cp = await start();
  const a = await agentOf(cp);
  const c = mesos(cp);
  await c.subscribe(info());
  await until(() => offers(c).length > 0);
  const offer = offers(c)[0];
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ kill_policy: { grace_period: { nanoseconds: -1 } } }, 'killPolicy'],
    [{ max_completion_time: { nanoseconds: -1_000_000_000 } }, 'maxCompletionTimeSeconds'],
    [{ data: 'not base64!' }, 'data'],
    [{ discovery: { visibility: 'NOWHERE' } }, 'visibility'],
    [{ discovery: { visibility: 'FRAMEWORK', ports: { ports: [{ number: 70_000 }] } } }, 'number'],
    [{ labels: { labels: [{ key: '' }] } }, 'labels'],
    [{ labels: { labels: [{ key: 'k', colour: 'blue' }] } }, 'colour'],
  ];
  for (const [fields, named] of bad) {
    const r = await accept(c, [offer.id.value], [taskInfo(offer, 'bad', fields)]);
    expect([r.status, codeOf(r.body), r.body]).toEqual([400, 'INVALID_MESSAGE', expect.stringContaining(named)]);
  }
  expect(a.launches).toEqual([]);
  expect(((await cp.request('GET', '/api/v1/tasks')).body as { items: unknown[] }).items).toEqual([]);
  expect((await accept(c, [offer.id.value], [taskInfo(offer, 'good', { labels: { labels: [{ key: 'ok' }] } })])).status).toBe(202);
  await until(() => updates(c).some((s) => s.task_id.value === 'good' && s.state === 'TASK_RUNNING'));
});

it('passes the SDK TaskSpec fields alike, and refuses malformed ones with INVALID_MESSAGE', async () => {
  const cp = await start();
  const a = await agentOf(cp);
  const sdk = recorder(cp, { name: 'sdk', roles: ['eng'] });
  await sdk.s.start();
  const offer = await sdk.nextOffer();
  const task = {
    taskId: 'sdk-1',
    name: 'sdk-1',
    command: { shell: 'sleep 60' },
    resources: [{ name: 'cpus', value: 1 }],
    labels: [{ key: 'tier', value: 'web' }],
    discovery: { visibility: 'EXTERNAL' as const, name: 'svc' },
    data: DATA,
    killPolicy: { gracePeriodSeconds: 1 },
    maxCompletionTimeSeconds: 30,
  };
  await expect(sdk.s.launch(offer, [{ ...task, taskId: 'bad', maxCompletionTimeSeconds: -1 }])).rejects.toMatchObject({
    code: 'INVALID_MESSAGE',
  });
  await expect(sdk.s.launch(offer, [task])).resolves.toEqual({ launched: ['sdk-1'] });
  await until(() => a.launches.length === 1);
  expect(a.launches[0].task).toMatchObject({ labels: task.labels, discovery: task.discovery, data: DATA, maxCompletionTimeSeconds: 30 });
  await until(() => sdk.states('sdk-1').includes('RUNNING'));
  await a.status(a.launches[0].frameworkId, 'sdk-1', 'RUNNING', undefined, FROM_EXECUTOR);
  await until(() => sdk.states('sdk-1').length === 3);
  expect(sdk.updates.at(-1)).toMatchObject(FROM_EXECUTOR);
  const listed = (await cp.request('GET', '/api/v1/tasks')).body as { items: Array<Record<string, unknown>> };
  expect(listed.items).toEqual([expect.objectContaining({ taskId: 'sdk-1', labels: task.labels, discovery: task.discovery })]);
  await sdk.s.kill('sdk-1');
  await until(() => a.kills.length === 1);
  expect(a.kills[0].gracePeriodSeconds).toBe(1);
});

it('serves the scheduler API at /master/api/v1/scheduler too: the same authentication, the same stream', async () => {
  const cp = await start();
  await agentOf(cp);
  const anonymous = new MesosClient(cp.cp.url, null, undefined, '/master/api/v1/scheduler');
  closers.push(() => anonymous.close());
  expect(await anonymous.subscribe(info())).toBe(401);
  const c = mesos(cp, { path: '/master/api/v1/scheduler' });
  expect(await c.subscribe(info())).toBe(200);
  await until(() => offers(c).length > 0);
  // A call on the stream, at either path.
  expect((await c.call('DECLINE', { decline: { offer_ids: [offers(c)[0].id], filters: { refuse_seconds: 0 } } })).status).toBe(202);
  await until(() => offers(c).length > 1);
  const other = mesos(cp);
  const onOtherPath = await other.raw(JSON.stringify({ framework_id: { value: c.frameworkId }, type: 'REVIVE' }), {
    'mesos-stream-id': defined(c.streamId),
  });
  expect(onOtherPath.status).toBe(202);
  const fw = (await cp.request('GET', `/api/v1/frameworks/${defined(c.frameworkId)}`)).body;
  expect(fw).toMatchObject({ protocol: 'mesos', connected: true });
});

it('answers an ACCEPT naming an offer id never issued, in any format, 202 with TASK_LOST (TASK_DROPPED when partition-aware)', async () => {
  const cp = await start();
  const a = await agentOf(cp);
  const c = mesos(cp);
  await c.subscribe(info());
  const aware = mesos(cp);
  await aware.subscribe(info({ name: 'aware', capabilities: [{ type: 'PARTITION_AWARE' }] }));
  await until(() => offers(c).length + offers(aware).length > 0);
  const agentId = { value: defined(a.agentId) };
  const ghost = (id: string) => taskInfo({ id: { value: id }, agent_id: agentId }, `t-${id.length}`);
  for (const id of ['not-a-uuid', 'offer 1/2 ✓', '00000000-0000-4000-8000-000000000000']) {
    expect((await accept(c, [id], [ghost(id)])).status).toBe(202);
    expect((await accept(aware, [id], [ghost(id)])).status).toBe(202);
  }
  await until(() => updates(c).length === 3 && updates(aware).length === 3);
  expect(new Set(updates(c).map((s) => `${s.state} ${s.reason}`))).toEqual(new Set(['TASK_LOST REASON_INVALID_OFFERS']));
  expect(new Set(updates(aware).map((s) => `${s.state} ${s.reason}`))).toEqual(new Set(['TASK_DROPPED REASON_INVALID_OFFERS']));
  expect(a.launches).toEqual([]);
  // The SDK hears UNKNOWN_OFFER, whatever the id's form.
  const sdk = recorder(cp, { name: 'sdk', roles: ['eng'] });
  await sdk.s.start();
  const launch = { taskId: 'x', name: 'x', command: { shell: 'true' }, resources: [{ name: 'cpus', value: 1 }] };
  for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000'])
    await expect(sdk.s.accept([id], [{ type: 'LAUNCH', tasks: [launch] }])).rejects.toMatchObject({ code: 'UNKNOWN_OFFER' });
});

it('UPDATE_FRAMEWORK changes roles, capabilities, failover timeout, suppression and name without subscribing again; B cannot update A', async () => {
  const cp = await start();
  await agentOf(cp);
  const teamA = await cp.principal('team-a');
  const teamB = await cp.principal('team-b');
  const c = mesos(cp, { token: teamA });
  await c.subscribe(info({ principal: 'team-a' }));
  await until(() => offers(c).length > 0);
  const id = defined(c.frameworkId);
  const update = (frameworkInfo: Record<string, unknown>, extra: Record<string, unknown> = {}, on = c) =>
    on.call('UPDATE_FRAMEWORK', { update_framework: { framework_info: { id: { value: id }, ...frameworkInfo }, ...extra } });
  const updated = info({
    name: 'renamed',
    principal: 'team-a',
    role: undefined,
    roles: ['analytics', 'batch'],
    capabilities: [{ type: 'MULTI_ROLE' }, { type: 'PARTITION_AWARE' }],
    failover_timeout: 120,
    webui_url: 'http://fields.example/ui',
  });
  const framework = async () => (await cp.request('GET', `/api/v1/frameworks/${id}`)).body as Record<string, unknown>;
  const unchanged = {
    name: 'fields',
    roles: ['analytics'],
    suppressedRoles: [],
    capabilities: [],
    failoverTimeoutSeconds: 0,
    webuiUrl: null,
  };
  expect(await framework()).toMatchObject(unchanged);

  // Refused, changing nothing: user, principal, another framework's id, a suppressed role it does not have.
  const refusals: Array<[Promise<{ status: number; body: string }>, number, string]> = [
    [update({ ...updated, user: 'root' }), 400, 'INVALID_MESSAGE'],
    [update({ ...updated, principal: 'team-b' }), 403, 'FRAMEWORK_PRINCIPAL_MISMATCH'],
    [update(updated, { suppressed_roles: ['elsewhere'] }), 400, 'INVALID_MESSAGE'],
    [c.call('UPDATE_FRAMEWORK', { update_framework: { framework_info: { ...updated, id: { value: 'other' } } } }), 400, 'INVALID_MESSAGE'],
    [c.call('UPDATE_FRAMEWORK', {}), 400, 'INVALID_MESSAGE'],
  ];
  for (const [call, status, code] of refusals) {
    const r = await call;
    expect([r.status, codeOf(r.body)]).toEqual([status, code]);
  }
  // Framework B (another principal) can neither call on A's stream nor name A from its own.
  const b = mesos(cp, { token: teamB });
  await b.subscribe(info({ principal: 'team-b', name: 'b' }));
  await until(() => b.frameworkId !== undefined);
  const onAStream = await b.raw(
    JSON.stringify({ framework_id: { value: id }, type: 'UPDATE_FRAMEWORK', update_framework: { framework_info: updated } }),
    {
      'mesos-stream-id': defined(c.streamId),
    },
  );
  expect([onAStream.status, codeOf(onAStream.body)]).toEqual([403, 'FRAMEWORK_PRINCIPAL_MISMATCH']);
  const namingA = await b.raw(
    JSON.stringify({
      framework_id: { value: id },
      type: 'UPDATE_FRAMEWORK',
      update_framework: { framework_info: { ...updated, id: { value: id } } },
    }),
    { 'mesos-stream-id': defined(b.streamId) },
  );
  expect([namingA.status, codeOf(namingA.body)]).toEqual([400, 'INVALID_MESSAGE']);
  expect(await framework()).toMatchObject(unchanged);
  b.close();

  const r = await update(updated, { suppressed_roles: ['analytics'] });
  expect(r.status).toBe(200);
  expect(await framework()).toMatchObject({
    name: 'renamed',
    roles: ['analytics', 'batch'],
    suppressedRoles: ['analytics'],
    capabilities: ['MULTI_ROLE', 'PARTITION_AWARE'],
    failoverTimeoutSeconds: 120,
    webuiUrl: 'http://fields.example/ui',
    connected: true,
  });
  // The same stream goes on, now with offers to the new role (multi-role offers name it) once
  // the agent's resources come back from the offers it holds.
  const seen = offers(c).length;
  expect((await c.call('DECLINE', { decline: { offer_ids: offers(c).map((o) => o.id), filters: { refuse_seconds: 0 } } })).status).toBe(
    202,
  );
  await until(() =>
    offers(c)
      .slice(seen)
      .some((o) => o.allocation_info?.role === 'batch'),
  );
  expect(
    offers(c)
      .slice(seen)
      .every((o) => o.allocation_info?.role === 'batch'),
  ).toBe(true);
  expect(c.of('SUBSCRIBED')).toHaveLength(1);
  expect(c.ended).toBe(false);
});

it("the SDK's updateFramework changes the framework in place; another connection cannot update it", async () => {
  const cp = await start();
  await agentOf(cp);
  const sdk = recorder(cp, { name: 'sdk', roles: ['eng'] });
  const { frameworkId } = await sdk.s.start();
  await sdk.s.updateFramework({ name: 'sdk-2', roles: ['eng', 'ops'], suppressedRoles: ['eng'], failoverTimeoutSeconds: 60 });
  expect((await cp.request('GET', `/api/v1/frameworks/${frameworkId}`)).body).toMatchObject({
    name: 'sdk-2',
    roles: ['eng', 'ops'],
    suppressedRoles: ['eng'],
    failoverTimeoutSeconds: 60,
  });
  await expect(sdk.s.updateFramework({ name: 'sdk-2', roles: ['eng'], user: 'root' })).rejects.toMatchObject({ code: 'INVALID_MESSAGE' });
  const other = recorder(cp, { name: 'other', roles: ['eng'] });
  await other.s.start();
  // The other framework's connection names this one's id: refused.
  const hijack = (other.s as unknown as { call(e: string, m: unknown): Promise<unknown> }).call('updateFramework', {
    frameworkId,
    name: 'stolen',
    roles: ['eng'],
  });
  await expect(hijack).rejects.toBeInstanceOf(SchedulerError);
  await expect(hijack).rejects.toMatchObject({ code: 'FRAMEWORK_PRINCIPAL_MISMATCH' });
  expect((await cp.request('GET', `/api/v1/frameworks/${frameworkId}`)).body).toMatchObject({ name: 'sdk-2' });
});
