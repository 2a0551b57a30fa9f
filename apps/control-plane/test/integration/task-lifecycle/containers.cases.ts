/**
 * Containers through the control plane: Mesos's ContainerInfo (JSON and protobuf, the bytes of
 * Mesos's own definitions) and the SDK's ContainerSpec reach the agent, the database, the REST
 * API and /master/state, with the image digest the agent reports; agents' capabilities are
 * stored and shown; a task with an image is refused at the accept on an agent that cannot run
 * images; a viewer sees containers only of the tasks it may view.
 */
import { parseResources } from '@arbiter/allocator';
import type { AgentCapabilities, ContainerSpec, TaskSpec } from '@arbiter/contracts';
import { SchedulerError, type Offer } from '@arbiter/scheduler-sdk';
import { ADMIN_TOKEN, controlPlaneBed, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { MesosClient } from '../../support/mesos-client';
import { mesosFrameworkCodec } from '../../support/mesos-framework-codec';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

const { closers, start: startControlPlane } = controlPlaneBed();

const RUNC: AgentCapabilities = {
  containerizers: ['mesos'],
  isolators: ['cgroups/mem', 'filesystem/linux', 'namespaces/pid', 'network/ports', 'gpu/nvidia'],
  runtime: { name: 'runc', version: '1.1.12' },
  tools: { skopeo: '1.9.3', umoci: '0.4.7' },
  gpus: [{ index: 0, model: 'NVIDIA H100 80GB HBM3', uuid: 'GPU-0000' }],
};
const NO_RUNTIME: AgentCapabilities = {
  containerizers: ['mesos'],
  isolators: ['cgroups/mem'],
  imagesProblem: 'runc was not found on PATH; install it (apt-get install runc) to run images',
};
const DIGEST = `sha256:${'ab'.repeat(32)}`;

const start = () => startControlPlane({ config: { allocationInterval: 0.1 } });
const agentOf = async (cp: TestControlPlane, hostname: string, capabilities?: AgentCapabilities) => {
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, {
    hostname,
    resources: parseResources('cpus:8;mem:8192;ports:[31000-31010]').toJSON(),
    ...(capabilities ? { capabilities } : {}),
  });
  closers.push(() => a.close());
  await a.register();
  return a;
};
const mesos = (cp: TestControlPlane, protobuf = false) => {
  const c = new MesosClient(cp.cp.url, `Bearer ${ADMIN_TOKEN}`, protobuf ? mesosFrameworkCodec : undefined);
  closers.push(() => c.close());
  return c;
};
const recorder = (cp: TestControlPlane, name: string, extra: { token?: string; user?: string } = {}) => {
  const r = new Recorder(
    cp,
    { name, roles: [name], ...(extra.user ? { user: extra.user } : {}) },
    extra.token ? { token: extra.token } : {},
  );
  closers.push(() => r.s.close());
  return r;
};

interface MesosOffer {
  id: { value: string };
  agent_id: { value: string };
}
interface MesosStatus {
  task_id: { value: string };
  state: string;
  reason?: string;
  message?: string;
  source?: string;
}
const offers = (c: MesosClient) => c.of<{ offers: MesosOffer[] }>('OFFERS').flatMap((e) => e.offers);
const updates = (c: MesosClient) => c.of<{ status: MesosStatus }>('UPDATE').map((e) => e.status);
const cpus = (value: number) => ({ name: 'cpus', type: 'SCALAR', scalar: { value } });
const ports = (begin: number, end: number) => ({ name: 'ports', type: 'RANGES', ranges: { range: [{ begin, end }] } });
const launch = (c: MesosClient, offer: MesosOffer, tasks: Array<Record<string, unknown>>) =>
  c.launch([offer.id], tasks, { filters: { refuse_seconds: 0 } });
const taskInfo = (offer: MesosOffer, id: string, container: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: id,
  task_id: { value: id },
  agent_id: offer.agent_id,
  resources: [cpus(1)],
  command: { value: 'sleep 60' },
  container,
  ...extra,
});

/** Spark's coarse-grained executor's shape: a MESOS container without an image. */
const SPARK = { type: 'MESOS' };
/** Marathon's shape for a Docker app with port mappings. */
const WEB = {
  type: 'DOCKER',
  docker: {
    image: 'registry.local:5000/web:1.0',
    network: 'BRIDGE',
    port_mappings: [{ host_port: 31000, container_port: 80, protocol: 'tcp' }],
  },
  volumes: [{ mode: 'RO', container_path: '/etc/web', host_path: '/srv/web' }],
};
const WEB_SPEC: ContainerSpec = {
  type: 'DOCKER',
  image: { name: 'registry.local:5000/web:1.0' },
  portMappings: [{ hostPort: 31000, containerPort: 80, protocol: 'tcp' }],
  volumes: [{ containerPath: '/etc/web', mode: 'RO', source: { type: 'HOST_PATH', path: '/srv/web' } }],
};
const IMAGE_TASK = { type: 'MESOS', mesos: { image: { type: 'DOCKER', docker: { name: 'busybox:1.36' } } } };

type Row = Record<string, unknown> & { id: string; taskId: string };
const tasksOf = async (cp: TestControlPlane, frameworkId: string, token?: string) => {
  const r = await cp.request('GET', `/api/v1/tasks?frameworkId=${frameworkId}`, undefined, token ? { token } : {});
  return (r.body as { items: Row[] }).items;
};

it.each([['JSON', false] as const, ['protobuf', true] as const])(
  "takes Mesos's ContainerInfo (%s) to the agent, the REST API and /master/state, with the image digest the agent reports",
  async (_encoding, protobuf) => {
    const cp = await start();
    const a = await agentOf(cp, 'node-1', RUNC);
    const c = mesos(cp, protobuf);
    await c.subscribe({ user: 'nobody', name: 'containers', role: 'web' });
    await until(() => offers(c).length > 0);
    const offer = offers(c)[0];
    const answer = await launch(c, offer, [
      taskInfo(offer, 'web', WEB, { resources: [cpus(1), ports(31000, 31000)] }),
      taskInfo(offer, 'spark', SPARK),
    ]);
    expect(answer.status).toBe(202);
    await until(() => a.launches.length === 2);
    expect(a.launches.find((l) => l.task.taskId === 'web')?.task.container).toEqual(WEB_SPEC);
    expect(a.launches.find((l) => l.task.taskId === 'spark')?.task.container).toEqual({ type: 'MESOS' });

    // The agent names the image it runs (normalized) with its digest.
    const frameworkId = defined(c.frameworkId);
    await a.status(frameworkId, 'web', 'RUNNING', undefined, {
      container: { image: { reference: 'registry.local:5000/web:1.0', digest: DIGEST } },
    });
    await until(async () => (await tasksOf(cp, frameworkId)).some((r) => r.taskId === 'web' && r.containerImage !== null));
    const rows = await tasksOf(cp, frameworkId);
    const web = defined(rows.find((r) => r.taskId === 'web'));
    expect(web).toMatchObject({ container: WEB_SPEC, containerImage: { reference: 'registry.local:5000/web:1.0', digest: DIGEST } });
    expect(rows.find((r) => r.taskId === 'spark')).toMatchObject({ container: { type: 'MESOS' }, containerImage: null });
    expect((await cp.request('GET', `/api/v1/tasks/${web.id}`)).body).toMatchObject({
      container: WEB_SPEC,
      containerImage: { digest: DIGEST },
    });

    // Mesos's ContainerInfo in /master/state and /master/tasks.
    const state = (await cp.request('GET', '/master/state')).body as { frameworks: Array<{ tasks: Array<Record<string, unknown>> }> };
    const mesosWeb = {
      id: 'web',
      container: {
        type: 'DOCKER',
        docker: {
          image: 'registry.local:5000/web:1.0',
          network: 'BRIDGE',
          port_mappings: [{ host_port: 31000, container_port: 80, protocol: 'tcp' }],
        },
        volumes: [{ mode: 'RO', container_path: '/etc/web', source: { type: 'HOST_PATH', host_path: { path: '/srv/web' } } }],
      },
      arbiter_container_image: { reference: 'registry.local:5000/web:1.0', digest: DIGEST },
    };
    expect(state.frameworks[0].tasks.find((x) => x.id === 'web')).toMatchObject(mesosWeb);
    expect(state.frameworks[0].tasks.find((x) => x.id === 'spark')).toMatchObject({ container: { type: 'MESOS' } });
    const listed = (await cp.request('GET', '/master/tasks')).body as { tasks: Array<Record<string, unknown>> };
    expect(listed.tasks.find((x) => x.id === 'web')).toMatchObject(mesosWeb);
  },
);

it("stores agents' capabilities and shows them in the REST API and /master/state (null for an agent that reports none)", async () => {
  const cp = await start();
  const gpu = await agentOf(cp, 'gpu-1', RUNC);
  const old = await agentOf(cp, 'old-1');
  const one = (await cp.request('GET', `/api/v1/agents/${defined(gpu.agentId)}`)).body as Record<string, unknown>;
  expect(one.capabilities).toEqual(RUNC);
  const list = (await cp.request('GET', '/api/v1/agents')).body as { items: Array<{ id: string; capabilities: unknown }> };
  expect(list.items.find((i) => i.id === old.agentId)?.capabilities).toBeNull();
  expect(list.items.find((i) => i.id === gpu.agentId)?.capabilities).toEqual(RUNC);
  const state = (await cp.request('GET', '/master/state')).body as { slaves: Array<Record<string, unknown>> };
  expect(state.slaves.find((s) => s.id === gpu.agentId)).toMatchObject({ arbiter_capabilities: RUNC });
  expect(state.slaves.find((s) => s.id === old.agentId)).toMatchObject({ arbiter_capabilities: null });
});

describe('a task with an image on an agent that cannot run images', () => {
  it.each([
    ['no runtime', NO_RUNTIME, 'runc was not found on PATH'],
    ['no capabilities (an older agent)', undefined, 'it reports no container capabilities'],
  ])('is TASK_ERROR / REASON_TASK_INVALID on the Mesos API, naming the agent and why (%s)', async (_case, capabilities, why) => {
    const cp = await start();
    const a = await agentOf(cp, 'plain-1', capabilities);
    const c = mesos(cp);
    await c.subscribe({ user: 'nobody', name: 'images', role: 'img' });
    await until(() => offers(c).length > 0);
    const offer = offers(c)[0];
    expect((await launch(c, offer, [taskInfo(offer, 'img', IMAGE_TASK)])).status).toBe(202);
    await until(() => updates(c).some((u) => u.task_id.value === 'img'));
    const status = defined(updates(c).find((u) => u.task_id.value === 'img'));
    expect(status).toMatchObject({ state: 'TASK_ERROR', reason: 'REASON_TASK_INVALID', source: 'SOURCE_MASTER' });
    expect(status.message).toContain(
      `task 'img' runs image 'busybox:1.36', which agent ${defined(a.agentId)} (plain-1) cannot run: ${why}`,
    );
    expect(a.launches).toEqual([]);

    // Spark's shape (no image) runs there as a plain isolated process.
    await until(() => offers(c).length > 1);
    const next = offers(c)[offers(c).length - 1];
    expect((await launch(c, next, [taskInfo(next, 'spark', SPARK)])).status).toBe(202);
    await until(() => a.launches.length === 1);
    expect(a.launches[0].task).toMatchObject({ taskId: 'spark', container: { type: 'MESOS' } });
  });

  it('is refused AGENT_CANNOT_RUN_IMAGES to an SDK framework, an executor with an image too; it runs on an agent with a runtime', async () => {
    const cp = await start();
    const plain = await agentOf(cp, 'plain-2', NO_RUNTIME);
    const r = recorder(cp, 'sdk-images');
    await r.s.start();
    const offerOn = async (agentId: string | undefined): Promise<Offer> => {
      await until(() => r.offers.some((o) => o.agentId === agentId));
      const i = r.offers.findIndex((o) => o.agentId === agentId);
      return r.offers.splice(i, 1)[0];
    };
    const task = (taskId: string, extra: Partial<TaskSpec>): TaskSpec => ({
      taskId,
      name: taskId,
      command: { shell: 'cat /etc/os-release' },
      resources: [{ name: 'cpus', value: 1 }],
      ...extra,
    });
    // A refused accept takes nothing: the offer stays outstanding for the next try.
    const offer = await offerOn(plain.agentId);
    const codeOf = (err: unknown) => (err instanceof SchedulerError ? `${err.code}: ${err.message}` : String(err));
    const refused = await r.s
      .launch(offer, [task('img', { container: { type: 'DOCKER', image: { name: 'busybox' } } })], {
        refuseSeconds: 0,
      })
      .catch(codeOf);
    expect(refused).toBe(
      `AGENT_CANNOT_RUN_IMAGES: task 'img' runs image 'busybox', which agent ${defined(plain.agentId)} (plain-2) cannot run: ${NO_RUNTIME.imagesProblem}`,
    );
    const executor = {
      executorId: 'in-image',
      type: 'CUSTOM' as const,
      command: { shell: './executor' },
      resources: [{ name: 'cpus', value: 0.1 }],
      container: { type: 'MESOS' as const, image: { name: 'registry.local:5000/executor:2' } },
    };
    const viaExecutor = await r.s
      .launch(offer, [{ taskId: 'ex', name: 'ex', resources: [{ name: 'cpus', value: 1 }], executor }], {
        refuseSeconds: 0,
      })
      .catch(codeOf);
    expect(viaExecutor).toMatch(/^AGENT_CANNOT_RUN_IMAGES: task 'ex' runs image 'registry.local:5000\/executor:2'/);
    expect(plain.launches).toEqual([]);

    // A bad container is refused with the field named; a good one runs on an agent with a runtime.
    const invalid: Array<[unknown, RegExp]> = [
      [{ type: 'DOCKER' }, /container\.image/],
      [
        { type: 'MESOS', volumes: [{ containerPath: '/d', source: { type: 'HOST_PATH', path: 'relative' } }] },
        /container\.volumes\.0\.source\.path/,
      ],
      [
        { type: 'DOCKER', image: { name: 'busybox' }, portMappings: [{ hostPort: 0, containerPort: 80 }] },
        /container\.portMappings\.0\.hostPort/,
      ],
      [{ type: 'MESOS', privileged: true }, /container/],
      [{ type: 'LXC' }, /container\.type/],
    ];
    for (const [container, field] of invalid) {
      const bad = await r.s.launch(offer, [task('bad', { container: container as ContainerSpec })], { refuseSeconds: 0 }).catch(codeOf);
      expect(bad).toMatch(/^INVALID_MESSAGE: /);
      expect(bad).toMatch(field);
    }
    const runc = await agentOf(cp, 'runc-1', RUNC);
    const spec = { type: 'DOCKER' as const, image: { name: 'busybox', forcePull: true }, hostname: 'box' };
    expect(await r.s.launch(await offerOn(runc.agentId), [task('ok', { container: spec })])).toEqual({ launched: ['ok'] });
    await until(() => runc.launches.length === 1);
    expect(runc.launches[0].task.container).toEqual(spec);
  });
});

it("shows a task's container only to those who may view the task (the view_tasks ACL)", async () => {
  const cp = await start();
  const a = await agentOf(cp, 'shared-1', RUNC);
  const alice = recorder(cp, 'alice-fw', { user: 'alice' });
  const bob = recorder(cp, 'bob-fw', { user: 'bob' });
  const aliceId = (await alice.s.start()).frameworkId;
  const bobId = (await bob.s.start()).frameworkId;
  const spec = (image: string): ContainerSpec => ({ type: 'MESOS', image: { name: image } });
  const one = (taskId: string, image: string): TaskSpec => ({
    taskId,
    name: taskId,
    command: { shell: 'true' },
    resources: [{ name: 'cpus', value: 1 }],
    container: spec(image),
  });
  await alice.s.launch(await alice.nextOffer(), [one('a1', 'alice/secret-app:1')]);
  await bob.s.launch(await bob.nextOffer(), [one('b1', 'bob/app:1')]);
  await until(() => a.launches.length === 2);

  const viewer = await cp.principal('container-viewer', 'VIEWER');
  const only = [
    { principals: { values: ['container-viewer'] }, users: { values: ['bob'] } },
    { principals: { values: ['container-viewer'] }, users: { type: 'NONE' } },
  ];
  expect((await cp.request('PUT', '/api/v1/acls', { permissive: true, view_tasks: only })).status).toBe(200);
  expect(await tasksOf(cp, aliceId, viewer)).toEqual([]);
  expect((await tasksOf(cp, bobId, viewer)).map((r) => r.container)).toEqual([spec('bob/app:1')]);
  const aliceTask = defined((await tasksOf(cp, aliceId)).find((r) => r.taskId === 'a1'));
  const denied = await cp.request('GET', `/api/v1/tasks/${aliceTask.id}`, undefined, { token: viewer });
  expect(denied.status).toBe(403);
  expect(JSON.stringify(denied.body)).not.toContain('secret-app');
  const listed = JSON.stringify((await cp.request('GET', '/master/state', undefined, { token: viewer })).body);
  expect(listed).not.toContain('secret-app');
  expect(listed).toContain('bob/app:1');
});
