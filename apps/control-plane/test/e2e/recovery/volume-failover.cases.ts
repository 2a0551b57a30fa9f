/**
 * A persistent volume across a control-plane failover, with real processes: two control-plane
 * replicas on one database, one agent, a framework on the SDK given both URLs. The framework
 * reserves disk, creates a volume and a task writes a file into it; the leader is SIGKILLed;
 * once the standby leads, the volume is offered again to its role with its persistence id, the
 * new leader lists it over REST, and a new task on it reads the file.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import type { ResourceEntry } from '@arbiter/contracts';
import { type Offer, Scheduler, type StatusUpdate, volumeIn } from '@arbiter/scheduler-sdk';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/app';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, getAsAdmin, replicaRole, spawnReplica } from '../../support/process';
import { defined, until } from '../../support/until';

const ROLE = 'store';
const VOLUME: ResourceEntry = { name: 'disk', value: 128, reservation: ROLE, volume: 'store-data' };

interface VolumeView {
  id: string;
  role: string;
  persistenceId: string;
  disk: number;
  hostPath: string;
}

describe('a persistent volume across a control-plane failover', () => {
  // Not under /tmp when root: tasks get a private /tmp.
  const dir = fs.mkdtempSync(path.join(process.getuid?.() === 0 ? '/var/tmp' : os.tmpdir(), 'arbiter-volume-failover-'));
  fs.chmodSync(dir, 0o711);
  let db: { url: string; drop: () => Promise<void> };
  const replicas: Array<{ url: string; process?: ControlPlaneProcess }> = [];
  const agent = new AgentProcess('volume-failover-agent', path.join(dir, 'agent'), 'cpus:2;mem:1024;disk:512');
  const volumeDir = path.join(dir, 'agent', 'volumes', 'roles', ROLE, 'store-data');
  let s: Scheduler | undefined;
  const offers: Offer[] = [];
  const updates: StatusUpdate[] = [];

  /** The next offer whose resources pass `test` (others are declined at once). */
  const offerWith = async (test: (r: Resources) => boolean, what: string): Promise<Offer> => {
    let found: Offer | undefined;
    await until(
      async () => {
        for (const o of offers.splice(0)) {
          if (!found && test(Resources.of(o.resources))) found = o;
          else
            await defined(s)
              .decline(o.id, { refuseSeconds: 0 })
              .catch(() => undefined);
        }
        return found !== undefined;
      },
      40_000,
      what,
    );
    return defined(found);
  };
  const hasVolume = (r: Resources) => r.contains(Resources.of([VOLUME]));
  const states = (taskId: string) => updates.filter((u) => u.taskId === taskId).map((u) => u.state);
  const done = (taskId: string) => states(taskId).some((x) => x === 'FINISHED' || x === 'FAILED' || x === 'LOST' || x === 'ERROR');

  beforeAll(async () => {
    db = await freshDatabase();
    for (let i = 0; i < 2; i++) replicas.push({ url: `http://127.0.0.1:${await freePort()}` });
    // One at a time: the first leads.
    for (const r of replicas) r.process = await spawnReplica(db.url, r.url);
  }, 120_000);

  afterAll(async () => {
    s?.close();
    await agent.killWithTasks();
    for (const r of replicas) await r.process?.stop('SIGKILL');
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('offers the volume again from the new leader, which lists it, and a new task reads what the first wrote', async () => {
    const [first, second] = replicas;
    expect([await replicaRole(first.url), await replicaRole(second.url)]).toEqual(['leader', 'standby']);
    const masters = replicas.map((r) => r.url).join(',');
    agent.start(masters, ADMIN_TOKEN);
    s = new Scheduler({ master: masters, token: ADMIN_TOKEN, framework: { name: 'store', roles: [ROLE], failoverTimeoutSeconds: 300 } });
    s.on('offers', (o) => offers.push(...o));
    s.on('update', (u) => updates.push(u));
    s.on('error', () => undefined);
    await s.start();
    const frameworkId = defined(s.frameworkId);

    // Reserve disk, create the volume on it, write a file into it.
    const plain = await offerWith((r) => r.get('disk') >= 128, 'an offer with disk');
    await s.accept([plain.id], [{ type: 'RESERVE', resources: [{ name: 'disk', value: 128, reservation: ROLE }] }]);
    const reserved = await offerWith((r) => r.reserved(ROLE).get('disk') >= 128, 'an offer with reserved disk');
    await s.accept([reserved.id], [{ type: 'CREATE', volumes: [{ id: 'store-data', disk: 128, containerPath: 'data', mode: 'RW' }] }]);
    const withVolume = await offerWith(hasVolume, 'an offer with the volume');
    await s.launch(withVolume, [
      {
        taskId: 'writer',
        name: 'writer',
        command: { shell: 'echo before-failover > data/note' },
        resources: [...Resources.fromScalars({ cpus: 0.1, mem: 32 }).toJSON(), VOLUME],
      },
    ]);
    await until(() => done('writer'), 30_000, 'writer done');
    expect(states('writer')).toContain('FINISHED');
    expect(fs.readFileSync(path.join(volumeDir, 'note'), 'utf8')).toBe('before-failover\n');
    const before = await getAsAdmin<{ items: VolumeView[] }>(first.url, '/api/v1/volumes');
    expect(before.items).toHaveLength(1);

    // The leader dies at once; the standby takes over.
    await defined(first.process).stop('SIGKILL');
    offers.splice(0);
    await until(async () => (await replicaRole(second.url)) === 'leader', 20_000, 'the standby to lead');
    await until(
      async () => (await getAsAdmin<{ total: number }>(second.url, '/api/v1/agents?status=REACHABLE')).total === 1,
      30_000,
      'the agent re-registered with the new leader',
    );

    // The new leader lists the volume, as it was.
    const after = await getAsAdmin<{ items: VolumeView[] }>(second.url, '/api/v1/volumes');
    expect(after.items).toEqual([
      expect.objectContaining({ id: before.items[0].id, role: ROLE, persistenceId: 'store-data', disk: 128, hostPath: volumeDir }),
    ]);

    // The volume is offered again to its role with its persistence id, and a new task on it reads the file.
    const again = await offerWith(hasVolume, 'an offer with the volume from the new leader');
    expect(volumeIn(again, 'store-data')).toEqual(VOLUME);
    expect(s.frameworkId).toBe(frameworkId);
    await s.launch(again, [
      {
        taskId: 'reader',
        name: 'reader',
        command: { shell: 'test "$(cat data/note)" = before-failover' },
        resources: [...Resources.fromScalars({ cpus: 0.1, mem: 32 }).toJSON(), VOLUME],
      },
    ]);
    await until(() => done('reader'), 30_000, 'reader done');
    expect(states('reader')).toContain('FINISHED');
    const tasks = await getAsAdmin<{ items: Array<{ taskId: string; state: string }> }>(
      second.url,
      `/api/v1/tasks?frameworkId=${frameworkId}`,
    );
    expect(tasks.items.map((t) => [t.taskId, t.state]).sort()).toEqual([
      ['reader', 'FINISHED'],
      ['writer', 'FINISHED'],
    ]);
  }, 180_000);
});
