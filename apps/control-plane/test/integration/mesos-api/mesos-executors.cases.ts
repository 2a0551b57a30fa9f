/**
 * Executors over Mesos's v1 scheduler API: TaskInfo.executor and LAUNCH_GROUP reach the agent,
 * the executor's resources are taken once; SHUTDOWN and MESSAGE reach the agent (another
 * framework's are dropped, as Mesos drops them); the executor's messages and its end come back
 * as MESSAGE and FAILURE events; in JSON and in protobuf as another implementation encodes it.
 */
import { parseResources, Resources } from '@arbiter/allocator';
import { ADMIN_TOKEN, seedAgent, controlPlaneBed, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { MesosClient } from '../../support/mesos-client';
import { mesosFrameworkCodec } from '../../support/mesos-framework-codec';
import { defined, until } from '../../support/until';

const { closers, start: startControlPlane } = controlPlaneBed();

interface Offer {
  id: { value: string };
  agent_id: { value: string };
  hostname: string;
  resources: Array<{ name: string; scalar?: { value: number } }>;
  executor_ids?: Array<{ value: string }>;
}
const start = () => startControlPlane({ config: { allocationInterval: 0.1 } });
const agent = async (cp: TestControlPlane, hostname: string) => {
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, { hostname, resources: parseResources('cpus:4;mem:4096').toJSON() });
  closers.push(() => a.close());
  await a.register();
  return a;
};
const client = (cp: TestControlPlane, token = ADMIN_TOKEN, codec?: typeof mesosFrameworkCodec) => {
  const c = new MesosClient(cp.cp.url, `Bearer ${token}`, codec);
  closers.push(() => c.close());
  return c;
};
const offers = (c: MesosClient) => c.of<{ offers: Offer[] }>('OFFERS').flatMap((e) => e.offers);
const cpus = (o: Offer) => o.resources.filter((r) => r.name === 'cpus').reduce((sum, r) => sum + (r.scalar?.value ?? 0), 0);
/** The newest offer holding `n` cpus (the framework declines nothing: each accept's rest comes back). */
const offerOf = async (c: MesosClient, n: number) => {
  await until(() => offers(c).some((o) => Math.abs(cpus(o) - n) < 1e-9));
  return defined(
    offers(c)
      .reverse()
      .find((o) => Math.abs(cpus(o) - n) < 1e-9),
  );
};
const scalar = (name: string, value: number) => ({ name, type: 'SCALAR', scalar: { value } });
const EXECUTOR = {
  executor_id: { value: 'mx-1' },
  name: 'mesos executor',
  command: { value: './executor --flag', environment: { variables: [{ name: 'MODE', value: 'fast' }] } },
  resources: [scalar('cpus', 0.5), scalar('mem', 64)],
};
const taskInfo = (taskId: string, offer: Offer, executor: Record<string, unknown> = EXECUTOR) => ({
  name: taskId,
  task_id: { value: taskId },
  agent_id: offer.agent_id,
  resources: [scalar('cpus', 1), scalar('mem', 128)],
  executor,
});
const accept = (c: MesosClient, offer: Offer, operations: unknown[]) =>
  c.call('ACCEPT', { accept: { offer_ids: [offer.id], operations, filters: { refuse_seconds: 0 } } });
const DATA = Buffer.from('from the scheduler').toString('base64');
interface StateFrameworks {
  frameworks: Array<{ id: string; executors: unknown[]; completed_executors: unknown[] }>;
}

it.each([
  ['JSON', undefined],
  ['protobuf', mesosFrameworkCodec],
] as const)(
  'launches under an executor, routes SHUTDOWN and MESSAGE to it and its messages and end back (%s)',
  async (_encoding, codec) => {
    const cp = await start();
    const a = await agent(cp, 'mx-node');
    const c = client(cp, ADMIN_TOKEN, codec);
    expect(await c.subscribe({ user: 'nobody', name: 'mesos-exec', role: 'analytics' })).toBe(200);
    const first = await offerOf(c, 4);
    expect((await accept(c, first, [{ type: 'LAUNCH', launch: { task_infos: [taskInfo('m1', first)] } }])).status).toBe(202);
    await until(() => a.launches.length === 1);
    expect(a.launches[0].task).toMatchObject({
      taskId: 'm1',
      executor: {
        executorId: 'mx-1',
        type: 'CUSTOM',
        name: 'mesos executor',
        command: { shell: './executor --flag' },
        env: { MODE: 'fast' },
        resources: Resources.fromScalars({ cpus: 0.5, mem: 64 }).toJSON(),
      },
    });
    expect(a.launches[0].task.command).toBeUndefined();
    // Its FrameworkInfo has no checkpoint: Mesos's default, false, goes with the launch (its executor does not outlive an agent restart).
    expect(a.launches[0].checkpoint).toBe(false);
    // 4 - 1 - 0.5; then the executor runs, and a second task takes only its own.
    const second = await offerOf(c, 2.5);
    // Offers name the framework's executors running on their agent.
    expect(second.executor_ids).toEqual([{ value: 'mx-1' }]);
    expect((await accept(c, second, [{ type: 'LAUNCH', launch: { task_infos: [taskInfo('m2', second)] } }])).status).toBe(202);
    const third = await offerOf(c, 1.5);
    // Another ExecutorInfo under the same id: TASK_ERROR, as Mesos answers it.
    const other = { ...EXECUTOR, command: { value: './other' } };
    expect((await accept(c, third, [{ type: 'LAUNCH', launch: { task_infos: [taskInfo('m3', third, other)] } }])).status).toBe(202);
    await until(() => c.of<{ status: { task_id: { value: string } } }>('UPDATE').some((u) => u.status.task_id.value === 'm3'));
    const m3 = c
      .of<{ status: { task_id: { value: string }; state: string; message: string } }>('UPDATE')
      .find((u) => u.status.task_id.value === 'm3');
    expect(m3?.status).toMatchObject({ state: 'TASK_ERROR', message: expect.stringContaining('ExecutorInfo') as unknown });

    const agentId = defined(a.agentId);
    // /master/state lists the running executor under its framework, in Mesos's shape.
    const state = (await cp.request('GET', '/master/state')).body as { frameworks: Array<{ id: string; executors: unknown[] }> };
    expect(defined(state.frameworks.find((f) => f.id === c.frameworkId)).executors).toEqual([
      expect.objectContaining({
        executor_id: 'mx-1',
        framework_id: c.frameworkId,
        slave_id: agentId,
        type: 'CUSTOM',
        command: { shell: true, value: './executor --flag' },
        resources: expect.objectContaining({ cpus: 0.5, mem: 64 }) as unknown,
      }),
    ]);
    const target = { agent_id: { value: agentId }, executor_id: { value: 'mx-1' } };
    expect((await c.call('MESSAGE', { message: { ...target, data: DATA } })).status).toBe(202);
    await until(() => a.frameworkMessages.length === 1);
    expect(a.frameworkMessages[0]).toEqual({ frameworkId: c.frameworkId, executorId: 'mx-1', data: DATA });

    const reply = Buffer.from('from the executor').toString('base64');
    expect(await a.executorMessage({ frameworkId: defined(c.frameworkId), executorId: 'mx-1', data: reply })).toEqual({ ok: true });
    await until(() => c.of('MESSAGE').length === 1);
    expect(c.of('MESSAGE')[0]).toEqual({ ...target, data: reply });

    // Another framework naming this one's executor: accepted as Mesos does, and dropped.
    const bToken = await cp.principal(`mx-other-${_encoding}`);
    const b = client(cp, bToken, codec);
    expect(await b.subscribe({ user: 'nobody', name: 'mesos-other', role: 'other' })).toBe(200);
    await until(() => b.frameworkId !== undefined);
    expect((await b.call('SHUTDOWN', { shutdown: target })).status).toBe(202);
    expect((await b.call('MESSAGE', { message: { ...target, data: DATA } })).status).toBe(202);

    expect((await c.call('SHUTDOWN', { shutdown: target })).status).toBe(202);
    await until(() => a.shutdowns.length === 1);
    expect(a.shutdowns).toEqual([{ frameworkId: c.frameworkId, executorId: 'mx-1' }]);
    expect(a.frameworkMessages).toHaveLength(1);

    expect(await a.executorExited({ frameworkId: defined(c.frameworkId), executorId: 'mx-1', exitCode: 3 })).toEqual({ ok: true });
    await until(() => c.of('FAILURE').length === 1);
    // The wait status of an exit with code 3.
    expect(c.of('FAILURE')[0]).toEqual({ ...target, status: 3 << 8 });

    // Ended: /master/state moves it to the framework's completed_executors, and the REST API lists it by state.
    const mine = async () =>
      defined(((await cp.request('GET', '/master/state')).body as StateFrameworks).frameworks.find((f) => f.id === c.frameworkId));
    await until(async () => (await mine()).executors.length === 0);
    expect((await mine()).completed_executors).toEqual([
      expect.objectContaining({ executor_id: 'mx-1', framework_id: c.frameworkId, slave_id: agentId, type: 'CUSTOM' }),
    ]);
    const listed = async (state: string) =>
      (
        (await cp.request('GET', `/api/v1/executors?frameworkId=${defined(c.frameworkId)}&state=${state}`)).body as {
          items: Array<{ executorId: string; state: string }>;
        }
      ).items;
    expect((await listed('ENDED')).map((e) => [e.executorId, e.state])).toEqual([['mx-1', 'ENDED']]);
    expect(await listed('RUNNING')).toEqual([]);
    expect((await cp.request('GET', '/api/v1/executors?state=GONE')).status).toBe(400);
  },
);

it('runs a LAUNCH_GROUP under the default executor, sent to the agent as one group', async () => {
  const cp = await start();
  const a = await agent(cp, 'mx-group');
  const c = client(cp);
  expect(await c.subscribe({ user: 'nobody', name: 'mesos-group', role: 'analytics', checkpoint: true })).toBe(200);
  const offer = await offerOf(c, 4);
  const member = (taskId: string) => ({
    name: taskId,
    task_id: { value: taskId },
    agent_id: offer.agent_id,
    resources: [scalar('cpus', 1)],
    command: { value: 'sleep 60' },
  });
  const group = {
    type: 'LAUNCH_GROUP',
    launch_group: {
      executor: { type: 'DEFAULT', executor_id: { value: 'dx' }, resources: [scalar('cpus', 0.1), scalar('mem', 32)] },
      task_group: { tasks: [member('mg1'), member('mg2')] },
    },
  };
  expect((await accept(c, offer, [group])).status).toBe(202);
  await until(() => a.launchGroups.length === 1);
  expect(a.launchGroups[0]).toMatchObject({
    frameworkId: c.frameworkId,
    executor: { executorId: 'dx', type: 'DEFAULT' },
    checkpoint: true,
  });
  expect(a.launchGroups[0].tasks.map((x) => x.taskId)).toEqual(['mg1', 'mg2']);
  expect(a.launches).toEqual([]);
  await offerOf(c, 1.9);
});

it("bounds each framework's completed_executors in /master/state at 150, the last started first, as Mesos does", async () => {
  const cp = await start();
  await seedAgent(cp.cp, { id: 'ag' });
  const db = cp.cp.dataSource;
  await db.query(
    `INSERT INTO frameworks (id, name, roles, capabilities, failover_timeout_seconds, state, suppressed_roles, registered_at) VALUES ('fw', 'fw', '{r}', '{}', 0, 'COMPLETED', '{}', now())`,
  );
  await db.query(
    `INSERT INTO executors (agent_id, framework_id, executor_id, spec, role, resources, state, started_at, ended_at, end_reason)
     SELECT 'ag', 'fw', 'e' || g, jsonb_build_object('executorId', 'e' || g, 'type', 'CUSTOM', 'command', jsonb_build_object('shell', 'true'), 'resources', '[]'::jsonb),
            'r', '[]', 'ENDED', now() - g * interval '1 s', now(), 'REASON_EXECUTOR_TERMINATED'
       FROM generate_series(1, 152) g`,
  );
  const state = (await cp.request('GET', '/master/state')).body as {
    completed_frameworks: Array<{ id: string; executors: unknown[]; completed_executors: Array<{ executor_id: string }> }>;
  };
  const fw = defined(state.completed_frameworks.find((f) => f.id === 'fw'));
  expect(fw.executors).toEqual([]);
  expect(fw.completed_executors).toHaveLength(150);
  expect(fw.completed_executors.slice(0, 2).map((e) => e.executor_id)).toEqual(['e1', 'e2']);
  expect(fw.completed_executors.at(-1)?.executor_id).toBe('e150');
  // The REST API lists them all.
  expect(((await cp.request('GET', '/api/v1/executors?frameworkId=fw&state=ENDED&limit=500')).body as { total: number }).total).toBe(152);
});

it("refuses share_pid_namespace outside a task group (it shares the default executor's), changing nothing", async () => {
  const cp = await start();
  const a = await agent(cp, 'mx-sharepid');
  const c = client(cp);
  expect(await c.subscribe({ user: 'nobody', name: 'mesos-sharepid', role: 'analytics' })).toBe(200);
  const offer = await offerOf(c, 4);
  const container = {
    type: 'MESOS',
    mesos: { image: { type: 'DOCKER', docker: { name: 'busybox' } } },
    linux_info: { share_pid_namespace: true },
  };
  const task = { ...taskInfo('sp1', offer), executor: undefined, command: { value: 'true' }, container };
  const res = await accept(c, offer, [{ type: 'LAUNCH', launch: { task_infos: [task] } }]);
  // As Mesos answers a task it refuses: 202, then TASK_ERROR naming why.
  expect(res.status).toBe(202);
  const update = () =>
    c
      .of<{ status: { task_id: { value: string }; state: string; message?: string } }>('UPDATE')
      .find((u) => u.status.task_id.value === 'sp1');
  await until(() => update() !== undefined);
  expect(update()?.status).toMatchObject({ state: 'TASK_ERROR', message: expect.stringContaining('share_pid_namespace') as unknown });
  expect(a.launches).toEqual([]);
});
