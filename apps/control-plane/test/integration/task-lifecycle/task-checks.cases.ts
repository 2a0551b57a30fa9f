/**
 * Checks through the control plane: TaskInfo.health_check and TaskInfo.check (JSON and
 * protobuf) reach the agent as Arbiter's HealthCheck and Check; the health and check status the
 * agent reports are stored with the task and shown by the REST API, /master/state and the
 * framework's TaskStatus (healthy, check_status), and counted in the metrics; what Arbiter cannot
 * honour is refused with a stable code.
 */
import { parseResources } from '@arbiter/allocator';
import { mesosTypes } from '../../../src/mesos/mesos-protobuf';
import { ADMIN_TOKEN, controlPlaneBed } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { MesosClient, type MesosCodec, type MesosEvent } from '../../support/mesos-client';
import { defined, until } from '../../support/until';

const { closers, start: startControlPlane } = controlPlaneBed();

/** Mesos's protobuf encoding from the control plane's own schema (field numbers are Mesos's 1.x: CheckInfo is newer than the mesos-framework package's). */
const protobufCodec: MesosCodec = {
  encodeCall: (call) => {
    const { call: Call } = mesosTypes();
    return Buffer.from(Call.encode(Call.fromObject(call)).finish());
  },
  decodeEvent: (record) => {
    const { event: Event } = mesosTypes();
    return Event.toObject(Event.decode(record), { enums: String, longs: Number, bytes: String }) as MesosEvent;
  },
};

interface MesosOffer {
  id: { value: string };
  agent_id: { value: string };
}
const offers = (c: MesosClient) => c.of<{ offers: MesosOffer[] }>('OFFERS').flatMap((e) => e.offers);
const statuses = (c: MesosClient, id: string) =>
  c
    .of<{ status: Record<string, unknown> & { task_id: { value: string } } }>('UPDATE')
    .map((e) => e.status)
    .filter((s) => s.task_id.value === id);

const HEALTH_CHECK = {
  type: 'HTTP',
  http: { port: 8080, path: '/health', statuses: [200, 204] },
  delay_seconds: 1,
  interval_seconds: 2,
  timeout_seconds: 3,
  grace_period_seconds: 4,
  consecutive_failures: 5,
};
const CHECK = { type: 'COMMAND', command: { command: { value: 'test -e ready' } }, interval_seconds: 1 };

async function setUp(protobuf: boolean) {
  const cp = await startControlPlane({ config: { allocationInterval: 0.1 } });
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, { hostname: 'node-1', resources: parseResources('cpus:8;mem:8192').toJSON() });
  closers.push(() => a.close());
  await a.register();
  const c = new MesosClient(cp.cp.url, `Bearer ${ADMIN_TOKEN}`, protobuf ? protobufCodec : undefined);
  closers.push(() => c.close());
  await c.subscribe({ user: 'nobody', name: 'checked', role: 'web' });
  await until(() => offers(c).length > 0);
  const offer = offers(c)[0];
  const launch = (task: Record<string, unknown>) =>
    c.launch(
      [offer.id],
      [
        {
          name: 'web',
          task_id: { value: 'web' },
          agent_id: offer.agent_id,
          resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 } }],
          command: { value: 'serve' },
          ...task,
        },
      ],
      { filters: { refuse_seconds: 0 } },
    );
  return { cp, a, c, launch };
}

it.each([['JSON', false] as const, ['protobuf', true] as const])(
  'takes health_check and check (%s) to the agent; stores and shows what the agent reports of them',
  async (_encoding, protobuf) => {
    const { cp, a, c, launch } = await setUp(protobuf);
    expect((await launch({ health_check: HEALTH_CHECK, check: CHECK })).status).toBe(202);
    await until(() => a.launches.length === 1);
    expect(a.launches[0].task).toMatchObject({
      healthCheck: {
        probe: { type: 'HTTP', port: 8080, path: '/health', statuses: [200, 204] },
        delaySeconds: 1,
        intervalSeconds: 2,
        timeoutSeconds: 3,
        gracePeriodSeconds: 4,
        consecutiveFailures: 5,
      },
      check: { probe: { type: 'COMMAND', command: { shell: 'test -e ready' } }, intervalSeconds: 1 },
    });

    const fw = defined(c.frameworkId);
    await until(() => statuses(c, 'web').length === 2);
    await a.status(fw, 'web', 'RUNNING', 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED', { healthy: true, checkStatus: { type: 'COMMAND' } });
    await a.status(fw, 'web', 'RUNNING', 'REASON_TASK_CHECK_STATUS_UPDATED', {
      healthy: true,
      checkStatus: { type: 'COMMAND', exitCode: 1 },
    });
    await until(() => statuses(c, 'web').length === 4);
    expect(statuses(c, 'web')[2]).toMatchObject({
      state: 'TASK_RUNNING',
      healthy: true,
      reason: 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED',
      check_status: { type: 'COMMAND' },
    });
    expect(statuses(c, 'web')[3]).toMatchObject({
      reason: 'REASON_TASK_CHECK_STATUS_UPDATED',
      healthy: true,
      check_status: { type: 'COMMAND', command: { exit_code: 1 } },
    });

    const listed = (await cp.request('GET', `/api/v1/tasks?frameworkId=${fw}`)).body as { items: Array<Record<string, unknown>> };
    expect(listed.items[0]).toMatchObject({ taskId: 'web', healthy: true, checkStatus: { type: 'COMMAND', exitCode: 1 } });
    expect((await cp.request('GET', `/api/v1/tasks/${String(listed.items[0].id)}`)).body).toMatchObject({ healthy: true });
    const state = (await cp.request('GET', '/master/state')).body as { frameworks: Array<{ tasks: Array<Record<string, unknown>> }> };
    expect(state.frameworks[0].tasks[0]).toMatchObject({
      statuses: [{ state: 'TASK_RUNNING', healthy: true, check_status: { type: 'COMMAND', command: { exit_code: 1 } } }],
    });

    // Killed by its health check (as Mesos: KILLED, unhealthy): stored, shown and counted.
    await a.status(fw, 'web', 'RUNNING', 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED', { healthy: false });
    await a.status(fw, 'web', 'KILLED', 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED', { healthy: false });
    await until(() => statuses(c, 'web').length === 6);
    expect(statuses(c, 'web')[5]).toMatchObject({
      state: 'TASK_KILLED',
      healthy: false,
      reason: 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED',
    });
    const ended = (await cp.request('GET', `/api/v1/tasks/${String(listed.items[0].id)}`)).body as Record<string, unknown>;
    // The check status is the last one reported; the health, the kill's.
    expect(ended).toMatchObject({ state: 'KILLED', healthy: false, checkStatus: { type: 'COMMAND', exitCode: 1 } });
    const metrics = String((await cp.request('GET', '/metrics')).body);
    expect(metrics).toMatch(/arbiter_task_health_updates_total\{healthy="true",kill="false"\} 1\b/);
    expect(metrics).toMatch(/arbiter_task_health_updates_total\{healthy="false",kill="false"\} 1\b/);
    expect(metrics).toMatch(/arbiter_task_health_updates_total\{healthy="false",kill="true"\} 1\b/);
  },
);

it('a task without checks shows no health', async () => {
  const { cp, a, c, launch } = await setUp(false);
  expect((await launch({})).status).toBe(202);
  await until(() => a.launches.length === 1);
  expect(a.launches[0].task).not.toHaveProperty('healthCheck');
  expect(a.launches[0].task).not.toHaveProperty('check');
  const listed = (await cp.request('GET', `/api/v1/tasks?frameworkId=${defined(c.frameworkId)}`)).body as {
    items: Array<Record<string, unknown>>;
  };
  expect(listed.items[0]).toMatchObject({ healthy: null, checkStatus: null });
});

it.each([
  [
    'a health check of no type',
    { health_check: { http: { port: 80 } } },
    'INVALID_MESSAGE',
    /health_check: type must be COMMAND, HTTP or TCP/,
  ],
  ['an HTTP health check without http', { health_check: { type: 'HTTP' } }, 'INVALID_MESSAGE', /type HTTP needs http/],
  [
    'an IPv6 probe',
    { health_check: { type: 'TCP', tcp: { port: 80, protocol: 'IPv6' } } },
    'UNSUPPORTED',
    /protocol IPv6 is not supported/,
  ],
  ['a port 0', { check: { type: 'TCP', tcp: { port: 0 } } }, 'INVALID_MESSAGE', /check: probe\.port/],
  [
    "a check command's own user",
    { check: { type: 'COMMAND', command: { command: { value: 'true', user: 'root' } } } },
    'UNSUPPORTED',
    /command\.user/,
  ],
  [
    'zero consecutive failures',
    { health_check: { type: 'TCP', tcp: { port: 80 }, consecutive_failures: 0 } },
    'INVALID_MESSAGE',
    /consecutiveFailures/,
  ],
])('refuses %s with a clear 4xx', async (_what, fields, code, message) => {
  const { a, launch } = await setUp(false);
  const answer = await launch(fields);
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({ code });
  expect(answer.body).toMatch(message);
  expect(a.launches).toHaveLength(0);
});
