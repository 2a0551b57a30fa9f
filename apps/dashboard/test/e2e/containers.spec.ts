/// <reference lib="dom" />
/**
 * Containers on the dashboard, in headless Chromium against the production build: a task's
 * page shows its container (type, image and the digest its agent runs, volumes, port mappings),
 * an agent's page what it can contain tasks with (runtime, isolators, tools, GPUs) and its
 * sandboxes' disk as its heartbeats report it. The agent
 * running the container task speaks the agents' protocol from the test (no image is pulled).
 */
import type { Page } from 'playwright-core';
import { parseResources } from '@arbiter/allocator';
import type { ContainerSpec } from '@arbiter/contracts';
import { type Offer, Scheduler } from '@arbiter/scheduler-sdk';
import { until } from '@arbiter/test-support';
import { ok } from '../../../control-plane/test/support/client';
import { ProtocolAgent } from '../../../control-plane/test/support/fake-agent';
import { ADMIN_TOKEN, type BrowserCluster, screenshot, startBrowserCluster } from '../support/cluster';

const DIGEST = `sha256:${'5e'.repeat(32)}`;
const GIB = 1024 ** 3;
const CONTAINER: ContainerSpec = {
  type: 'DOCKER',
  image: { name: 'registry.local:5000/web:1.0' },
  portMappings: [{ hostPort: 31005, containerPort: 80, protocol: 'tcp' }],
  volumes: [
    { containerPath: '/etc/web', mode: 'RO', source: { type: 'HOST_PATH', path: '/srv/web' } },
    { containerPath: 'cache', mode: 'RW', source: { type: 'SANDBOX_PATH', sandboxType: 'SELF', path: 'cache' } },
  ],
  hostname: 'web-1',
};

const shown = (page: Page, text: string) => page.getByText(text, { exact: false }).filter({ visible: true }).first().waitFor();

describe('containers on the dashboard', () => {
  let c: BrowserCluster;
  let node: ProtocolAgent;
  let scheduler: Scheduler;

  beforeAll(async () => {
    c = await startBrowserCluster();
    node = new ProtocolAgent(c.t.cp.url, ADMIN_TOKEN, {
      hostname: 'container-node',
      resources: parseResources('cpus:4;mem:4096;ports:[31000-31010]').toJSON(),
      capabilities: {
        containerizers: ['mesos'],
        isolators: ['cgroups/mem', 'filesystem/linux', 'namespaces/pid', 'network/ports', 'gpu/nvidia'],
        runtime: { name: 'runc', version: '1.1.12' },
        tools: { skopeo: '1.9.3', umoci: '0.4.7' },
        gpus: [{ index: 0, model: 'NVIDIA H100 80GB HBM3' }],
      },
      health: { ok: true, problems: [], sandboxDisk: { totalBytes: 250 * GIB, freeBytes: 80 * GIB, gcHeadroom: 0.1 } },
    });
    await node.register();
    scheduler = new Scheduler({ master: c.t.cp.url, token: ADMIN_TOKEN, framework: { name: 'web', roles: ['web'] } });
    await c.signIn();
  }, 180_000);

  afterAll(async () => {
    scheduler.close();
    node.close();
    await c.close();
  });

  it("shows a task's container with the digest its agent runs, and the agent's runtime, isolators, tools and GPUs", async () => {
    const offered = new Promise<Offer>((resolve) =>
      scheduler.on('offers', (offers) => {
        const mine = offers.find((o) => o.agentId === node.agentId);
        if (mine) resolve(mine);
      }),
    );
    const { frameworkId } = await scheduler.start();
    const task = {
      taskId: 'web-1',
      name: 'web',
      command: { shell: 'nginx -g "daemon off;"' },
      resources: [
        { name: 'cpus', value: 1 },
        { name: 'ports', ranges: [[31005, 31005]] as Array<[number, number]> },
      ],
      container: CONTAINER,
    };
    expect(await scheduler.launch(await offered, [task])).toEqual({ launched: ['web-1'] });
    await until(() => node.tasks.get('web-1')?.state === 'RUNNING');
    // Its sandbox, as an agent has it once the task started (the task page shows its output).
    node.sandboxes.set(
      'web-1',
      new Map([
        ['stdout', 'listening on :80\n'],
        ['stderr', ''],
      ]),
    );
    await node.status(frameworkId, 'web-1', 'RUNNING', undefined, {
      container: { image: { reference: 'registry.local:5000/web:1.0', digest: DIGEST } },
    });
    const tasks = async () => (await ok(c.t.client.GET('/api/v1/tasks', { params: { query: { frameworkId } } }))).items;
    await until(async () => (await tasks()).some((t) => t.containerImage !== null), 20_000, 'the digest recorded');
    const row = (await tasks())[0];

    await c.page.goto(c.url(`/tasks/${row.id}`));
    await shown(c.page, 'registry.local:5000/web:1.0');
    await shown(c.page, DIGEST);
    await shown(c.page, 'host 31005 → 80/tcp');
    await shown(c.page, '/etc/web');
    expect(await screenshot(c.page, 'task-container')).toBeGreaterThan(10_000);

    await c.page.goto(c.url(`/agents/${node.agentId ?? ''}`));
    await shown(c.page, 'runc 1.1.12');
    await shown(c.page, 'NVIDIA H100 80GB HBM3');
    await shown(c.page, 'namespaces/pid');
    await shown(c.page, 'skopeo 1.9.3');
    expect(await screenshot(c.page, 'agent-containers')).toBeGreaterThan(10_000);
    expect(c.errors).toEqual([]);
  });

  it("shows the agent's sandbox disk as it reports it, and when its garbage collection removes ended sandboxes at once", async () => {
    await c.page.goto(c.url(`/agents/${node.agentId ?? ''}`));
    await shown(c.page, '80.0 GiB free of 250.0 GiB (68.0% used)');
    await shown(c.page, "ended tasks' sandboxes go sooner as it fills, at once under 10% free");
    // A heartbeat says the disk filled up: the page follows.
    const sandboxDisk = { totalBytes: 250 * GIB, freeBytes: 20 * GIB, gcHeadroom: 0.1 };
    expect(await node.socket.timeout(5_000).emitWithAck('heartbeat', { health: { ok: true, problems: [], sandboxDisk } })).toEqual({
      ok: true,
    });
    await c.page.reload();
    await shown(c.page, '20.0 GiB free of 250.0 GiB (92.0% used)');
    await shown(c.page, "under the 10% its garbage collection keeps free: ended tasks' sandboxes go at once");
    expect(await screenshot(c.page, 'agent-sandbox-disk')).toBeGreaterThan(10_000);
    expect(c.errors).toEqual([]);
  });
});
