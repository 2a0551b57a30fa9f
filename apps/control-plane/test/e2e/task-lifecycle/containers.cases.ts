/**
 * Container images end to end, with real processes and no downloads: `arbiter control-plane`,
 * `arbiter agent` (runc, its provisioner pointed at a local registry), a test image built here
 * and pushed to a registry from the operating system's packages. A framework on Mesos's v1
 * scheduler API and one on the SDK each run the image to TASK_FINISHED, reading the image's own
 * /etc/os-release; Spark's shape (`ContainerInfo{type: MESOS}` without an image) runs as a plain
 * isolated process. The task's row shows the image's digest, as the agent reported it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { pushTestImage, startRegistry, type TestRegistry } from '../../../../agent/test/support/registry';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { rawRequest } from '../../support/client';
import { MesosClient, shellTaskInfo } from '../../support/mesos-client';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnSingleControlPlane } from '../../support/process';
import { until } from '../../support/until';

interface Status {
  task_id: { value: string };
  state: string;
  reason?: string;
  message?: string;
}

const MARKER = 'arbitere2e';

describe('container images, from a local registry to TASK_FINISHED', () => {
  // Outside /tmp: the agent makes each task's /tmp its own.
  const dir = fs.mkdtempSync('/var/tmp/arbiter-cp-containers-');
  fs.chmodSync(dir, 0o711);
  const agent = new AgentProcess('containers-agent-1', path.join(dir, 'agent'), 'cpus:4;mem:2048');
  let registry: TestRegistry | undefined;
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let cp: ControlPlaneProcess | undefined;
  let mesos: MesosClient | undefined;
  let sdk: Scheduler | undefined;

  afterAll(async () => {
    mesos?.close();
    sdk?.close();
    await agent.stop();
    await cp?.stop('SIGKILL');
    await db?.drop();
    await registry?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("runs an image for a Mesos framework and an SDK framework, and Spark's imageless MESOS container", async () => {
    registry = await startRegistry();
    const digest = await pushTestImage(registry, 'e2e/busybox', '1', { marker: MARKER });
    const image = `${registry.host}/e2e/busybox:1`;
    db = await freshDatabase();
    cp = await spawnSingleControlPlane(db.url);
    agent.start(cp.url, ADMIN_TOKEN, { ARBITER_INSECURE_REGISTRIES: registry.host });
    const url = cp.url;
    await until(
      async () => {
        const r = await rawRequest(url, ADMIN_TOKEN, 'GET', '/api/v1/agents');
        const items = (r.body as { items?: Array<{ capabilities: { runtime?: unknown } | null }> }).items ?? [];
        return items.some((a) => a.capabilities?.runtime !== undefined);
      },
      30_000,
      `the agent registered with a runtime:\n${agent.log}`,
    );

    // The Mesos framework: a MESOS container with a Docker image, and Spark's shape.
    const m = new MesosClient(cp.url, `Bearer ${ADMIN_TOKEN}`);
    mesos = m;
    expect(await m.subscribe({ user: 'nobody', name: 'mesos-images', role: 'images' })).toBe(200);
    const offers = () => m.of<{ offers: Array<{ id: { value: string }; agent_id: { value: string } }> }>('OFFERS').flatMap((e) => e.offers);
    await until(() => offers().length > 0, 20_000, `an offer:\n${agent.log}`);
    const offer = offers()[0];
    const task = (id: string, container: Record<string, unknown>, shell: string) => shellTaskInfo(offer, id, shell, { container });
    const accepted = await m.launch(
      [offer.id],
      [
        task(
          'mesos-image',
          { type: 'MESOS', mesos: { image: { type: 'DOCKER', docker: { name: image } } } },
          `grep -q ID=${MARKER} /etc/os-release`,
        ),
        // No image: the host's files, not the image's.
        task('spark-shape', { type: 'MESOS' }, `! grep -q ID=${MARKER} /etc/os-release`),
      ],
    );
    expect(accepted.status).toBe(202);
    const statuses = (id: string) =>
      m
        .of<{ status: Status }>('UPDATE')
        .map((e) => e.status)
        .filter((s) => s.task_id.value === id);
    const ended = (id: string) =>
      statuses(id).some((s) => ['TASK_FINISHED', 'TASK_FAILED', 'TASK_KILLED', 'TASK_ERROR', 'TASK_LOST'].includes(s.state));
    await until(() => ended('mesos-image') && ended('spark-shape'), 120_000, `both tasks ended:\n${agent.log}`);
    const last = (id: string) => {
      const s = statuses(id).at(-1);
      return [s?.state, s?.message];
    };
    expect(last('mesos-image')).toEqual(['TASK_FINISHED', 'exited with status 0']);
    expect(last('spark-shape')).toEqual(['TASK_FINISHED', 'exited with status 0']);

    // The SDK framework: a DOCKER container of the same image.
    const updates: StatusUpdate[] = [];
    const s = new Scheduler({
      master: cp.url,
      token: ADMIN_TOKEN,
      framework: { name: 'sdk-images', roles: ['sdk-images'], user: 'nobody' },
    });
    sdk = s;
    const offered = new Promise<Offer>((resolve) => s.on('offers', (o) => o.length && resolve(o[0])));
    s.on('update', (u) => updates.push(u));
    const { frameworkId } = await s.start();
    await s.launch(await offered, [
      {
        taskId: 'sdk-image',
        name: 'sdk-image',
        command: { shell: `grep -q ID=${MARKER} /etc/os-release` },
        resources: [
          { name: 'cpus', value: 0.5 },
          { name: 'mem', value: 64 },
        ],
        container: { type: 'DOCKER', image: { name: image } },
      },
    ]);
    await until(
      () => updates.some((u) => u.taskId === 'sdk-image' && ['FINISHED', 'FAILED', 'KILLED', 'ERROR', 'LOST'].includes(u.state)),
      120_000,
      `the SDK task ended:\n${agent.log}`,
    );
    expect(updates.filter((u) => u.taskId === 'sdk-image').at(-1)).toMatchObject({ state: 'FINISHED' });

    // The digest the agent reported, with the task.
    const rows = (await rawRequest(url, ADMIN_TOKEN, 'GET', `/api/v1/tasks?frameworkId=${frameworkId}`)).body as {
      items: Array<{ taskId: string; containerImage: { digest: string } | null }>;
    };
    expect(rows.items.find((r) => r.taskId === 'sdk-image')?.containerImage?.digest).toBe(digest);
  });
});
