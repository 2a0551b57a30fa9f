/**
 * Disk sources end to end: an agent declares a MOUNT disk in Mesos's JSON form; it is offered
 * whole, a task cannot take part of it, and a volume made on it lives at the disk's root.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import type { ResourceEntry } from '@arbiter/contracts';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnControlPlane } from '../../support/process';
import { defined, until } from '../../support/until';

describe('disk sources end to end', () => {
  // Not under /tmp: the volume's directory must stay reachable past a task's private /tmp.
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : '/tmp', 'arbiter-disks-'));
  fs.chmodSync(dir, 0o711);
  const root = path.join(dir, 'mnt-1');
  fs.mkdirSync(root);
  const MOUNT: ResourceEntry = { name: 'disk', value: 300, source: { type: 'MOUNT', root } };
  const declared = JSON.stringify([
    { name: 'cpus', type: 'SCALAR', scalar: { value: 2 } },
    { name: 'mem', type: 'SCALAR', scalar: { value: 1024 } },
    { name: 'disk', type: 'SCALAR', scalar: { value: 100 } },
    { name: 'disk', type: 'SCALAR', scalar: { value: 300 }, disk: { source: { type: 'MOUNT', mount: { root } } } },
  ]);
  const agent = new AgentProcess('disks-agent', path.join(dir, 'agent'), declared);
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let cp: ControlPlaneProcess | undefined;
  let s: Scheduler | undefined;
  const offers: Offer[] = [];
  const updates: StatusUpdate[] = [];
  const take = async (test: (r: Resources) => boolean, what: string) => {
    let found: Offer | undefined;
    await until(
      async () => {
        for (const o of offers.splice(0)) {
          if (!found && test(Resources.of(o.resources))) found = o;
          else await defined(s).decline(o.id, { refuseSeconds: 0 });
        }
        return found !== undefined;
      },
      30_000,
      what,
    );
    return defined(found);
  };

  beforeAll(async () => {
    db = await freshDatabase();
    const port = await freePort();
    cp = await spawnControlPlane({
      DATABASE_URL: db.url,
      PORT: String(port),
      ARBITER_ADMIN_TOKEN: ADMIN_TOKEN,
      ARBITER_ALLOCATION_INTERVAL: '0.2',
    });
    agent.start(cp.url, ADMIN_TOKEN);
    s = new Scheduler({ master: cp.url, token: ADMIN_TOKEN, framework: { name: 'disks', roles: ['db'] } });
    s.on('offers', (o) => offers.push(...o));
    s.on('update', (u) => updates.push(u));
    await s.start();
  }, 60_000);

  afterAll(async () => {
    s?.close();
    await agent.killWithTasks();
    await cp?.stop('SIGKILL');
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('offers a MOUNT disk whole, refuses part of it, and makes a volume on it at its root', async () => {
    const first = await take((r) => r.contains(Resources.of([MOUNT])), 'an offer with the MOUNT disk');
    expect(first.resources).toEqual(expect.arrayContaining([MOUNT, { name: 'disk', value: 100 }]));
    // Part of a MOUNT disk is not offered: a task asking for it is refused.
    const part = { ...MOUNT, value: 100 };
    await expect(
      defined(s).launch(first, [
        { taskId: 'part', name: 'part', command: { shell: 'true' }, resources: [{ name: 'cpus', value: 0.1 }, part] },
      ]),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_OFFERED_RESOURCES' });
    await defined(s).decline(first.id, { refuseSeconds: 0 });
    const whole = await take((r) => r.contains(Resources.of([MOUNT])), 'the MOUNT disk again');
    await defined(s).accept([whole.id], [{ type: 'RESERVE', resources: [{ ...MOUNT, reservation: 'db' }] }]);
    const reserved = await take((r) => r.contains(Resources.of([{ ...MOUNT, reservation: 'db' }])), 'the reserved MOUNT disk');
    await defined(s).accept(
      [reserved.id],
      [{ type: 'CREATE', volumes: [{ id: 'm1', disk: 300, containerPath: 'data', mode: 'RW', source: { type: 'MOUNT', root } }] }],
    );
    const volume: ResourceEntry = { ...MOUNT, reservation: 'db', volume: 'm1' };
    const withVolume = await take((r) => r.contains(Resources.of([volume])), 'the volume on the MOUNT disk');
    await defined(s).launch(withVolume, [
      {
        taskId: 'writer',
        name: 'writer',
        command: { shell: 'echo on-mount > data/x' },
        resources: [{ name: 'cpus', value: 0.1 }, { name: 'mem', value: 32 }, volume],
      },
    ]);
    await until(() => updates.some((u) => u.taskId === 'writer' && ['FINISHED', 'FAILED'].includes(u.state)), 20_000, 'writer done');
    expect(updates.filter((u) => u.taskId === 'writer').map((u) => u.state)).toContain('FINISHED');
    expect(fs.readFileSync(path.join(root, 'x'), 'utf8')).toBe('on-mount\n');
    const list = (await (
      await fetch(`${defined(cp).url}/api/v1/volumes`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json()) as {
      items: Array<Record<string, unknown>>;
    };
    expect(list.items).toEqual([expect.objectContaining({ persistenceId: 'm1', hostPath: root, source: { type: 'MOUNT', root } })]);
  }, 90_000);
});
