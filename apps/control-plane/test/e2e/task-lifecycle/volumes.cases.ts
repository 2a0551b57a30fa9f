/**
 * Persistent volumes end to end with real processes: a framework on the SDK reserves disk,
 * creates a volume, runs a task that writes there, and finds the data again from a new task,
 * after the task was killed, after its agent restarted and after the control plane restarted, and
 * from a task group's task;
 * DESTROY is refused while a task uses the volume, then removes it and its data; the ACLs
 * create_volumes and destroy_volumes refuse other principals.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import type { ResourceEntry } from '@arbiter/contracts';
import { principal } from '@arbiter/test-support';
import { type Offer, Scheduler, SchedulerError, type StatusUpdate, volumeIn } from '@arbiter/scheduler-sdk';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnControlPlane } from '../../support/process';
import { defined, until } from '../../support/until';

const ROLE = 'kv';
const VOLUME: ResourceEntry = { name: 'disk', value: 256, reservation: ROLE, volume: 'kv-data' };

describe('persistent volumes end to end', () => {
  // Not under /tmp when root: tasks get a private /tmp, where a task group's links to volumes would not lead.
  const dir = fs.mkdtempSync(path.join(process.getuid?.() === 0 ? '/var/tmp' : os.tmpdir(), 'arbiter-volumes-'));
  fs.chmodSync(dir, 0o711);
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let port: number;
  let cp: ControlPlaneProcess | undefined;
  let master = '';
  const agent = new AgentProcess('volumes-agent', path.join(dir, 'agent'), 'cpus:4;mem:2048;disk:1024');
  const volumeDir = path.join(dir, 'agent', 'volumes', 'roles', ROLE, 'kv-data');
  let s: Scheduler | undefined;
  const offers: Offer[] = [];
  const updates: StatusUpdate[] = [];
  const env = () => ({
    DATABASE_URL: defined(db).url,
    PORT: String(port),
    ARBITER_ADMIN_TOKEN: ADMIN_TOKEN,
    ARBITER_ALLOCATION_INTERVAL: '0.2',
  });
  const api = async (method: string, route: string, body?: unknown, token = ADMIN_TOKEN) => {
    const res = await fetch(master + route, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> & { items?: Array<Record<string, unknown>> },
    };
  };
  /** The next offer whose resources pass `test` (others are declined at once). */
  const offerWith = async (test: (r: Resources) => boolean, what: string): Promise<Offer> => {
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
  const hasVolume = (r: Resources) => r.contains(Resources.of([VOLUME]));
  const states = (taskId: string) => updates.filter((u) => u.taskId === taskId).map((u) => u.state);
  /** Launches on the next offer holding the volume; one rescinded meanwhile (its agent registered again) is passed over, as a framework would. */
  const launchOnVolume = async (taskId: string, shell: string): Promise<void> => {
    const offer = await offerWith(hasVolume, `an offer with volume kv-data for ${taskId}`);
    const task = {
      taskId,
      name: taskId,
      command: { shell },
      resources: [...Resources.fromScalars({ cpus: 0.1, mem: 32 }).toJSON(), VOLUME],
    };
    try {
      await defined(s).launch(offer, [task]);
    } catch (e) {
      if (!(e instanceof SchedulerError && e.code === 'OFFER_STALE')) throw e;
      await launchOnVolume(taskId, shell);
    }
  };
  const subscribe = async (frameworkId?: string) => {
    s = new Scheduler({
      master,
      token: ADMIN_TOKEN,
      framework: { name: 'kv', roles: [ROLE], failoverTimeoutSeconds: 300, ...(frameworkId ? { frameworkId } : {}) },
    });
    s.on('offers', (o) => offers.push(...o));
    s.on('update', (u) => updates.push(u));
    await s.start();
  };

  beforeAll(async () => {
    db = await freshDatabase();
    port = await freePort();
    cp = await spawnControlPlane(env());
    master = cp.url;
    agent.start(master, ADMIN_TOKEN);
    await subscribe();
  }, 60_000);

  afterAll(async () => {
    s?.close();
    await agent.killWithTasks();
    await cp?.stop('SIGKILL');
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reserves disk, creates a volume on it, and offers the volume back with its persistence id', async () => {
    const first = await offerWith((r) => r.get('disk') >= 256, 'an offer with disk');
    await defined(s).accept([first.id], [{ type: 'RESERVE', resources: [{ name: 'disk', value: 256, reservation: ROLE }] }]);
    // CREATE on disk that is not reserved is refused.
    const plain = await offerWith((r) => r.reserved(ROLE).get('disk') >= 256, 'an offer with reserved disk');
    await expect(
      defined(s).accept([plain.id], [{ type: 'CREATE', volumes: [{ id: 'kv-data', disk: 2048, containerPath: 'data', mode: 'RW' }] }]),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_OFFERED_RESOURCES' });
    // A refused accept leaves its offers outstanding.
    await defined(s).decline(plain.id, { refuseSeconds: 0 });
    const reserved = await offerWith((r) => r.reserved(ROLE).get('disk') >= 256, 'an offer with reserved disk');
    await defined(s).accept(
      [reserved.id],
      [{ type: 'CREATE', volumes: [{ id: 'kv-data', disk: 256, containerPath: 'data', mode: 'RW' }] }],
    );
    expect(fs.statSync(volumeDir).isDirectory()).toBe(true);
    await defined(s).decline((await offerWith(hasVolume, 'an offer with the volume')).id, { refuseSeconds: 0 });
    const list = await api('GET', '/api/v1/volumes');
    expect(list.body.items).toEqual([
      expect.objectContaining({ role: ROLE, persistenceId: 'kv-data', disk: 256, containerPath: 'data', mode: 'RW', hostPath: volumeDir }),
    ]);
    const audit = await api('GET', '/api/v1/audit?action=volume.*');
    expect(audit.body.items?.map((e) => e.action)).toEqual(['volume.create']);
  }, 90_000);

  it('keeps the data across the task being killed: a new task on the volume reads it', async () => {
    await launchOnVolume('writer', 'echo hello-volume > data/greeting && exec sleep 300');
    await until(() => states('writer').includes('RUNNING'), 20_000, 'writer RUNNING');
    await until(() => fs.existsSync(path.join(volumeDir, 'greeting')), 20_000, 'the file on the volume');
    // DESTROY is refused while the volume is used.
    const id = String((await api('GET', '/api/v1/volumes')).body.items?.[0].id);
    const refused = await api('DELETE', `/api/v1/volumes/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('VOLUME_IN_USE');
    expect(fs.existsSync(path.join(volumeDir, 'greeting'))).toBe(true);
    await defined(s).kill('writer');
    await until(() => states('writer').includes('KILLED'), 20_000, 'writer KILLED');
    await launchOnVolume('reader', 'grep -q hello-volume data/greeting');
    await until(() => states('reader').some((x) => x === 'FINISHED' || x === 'FAILED'), 20_000, 'reader done');
    expect(states('reader')).toContain('FINISHED');
  }, 90_000);

  it('keeps the data across an agent restart and a control plane restart', async () => {
    await agent.stop('SIGTERM');
    agent.start(master, ADMIN_TOKEN);
    await launchOnVolume('after-agent-restart', 'grep -q hello-volume data/greeting && echo again >> data/greeting');
    await until(() => states('after-agent-restart').some((x) => x === 'FINISHED' || x === 'FAILED'), 30_000, 'task done');
    expect(states('after-agent-restart')).toContain('FINISHED');
    const frameworkId = defined(defined(s).frameworkId);
    s?.close();
    expect(await defined(cp).stop('SIGTERM')).toBe(0);
    cp = await spawnControlPlane(env());
    offers.splice(0);
    await subscribe(frameworkId);
    await launchOnVolume('after-failover', 'test "$(cat data/greeting)" = "$(printf "hello-volume\\nagain")"');
    await until(() => states('after-failover').some((x) => x === 'FINISHED' || x === 'FAILED'), 30_000, 'task done');
    expect(states('after-failover')).toContain('FINISHED');
  }, 120_000);

  it("mounts the volume for a task group's task, in its own sandbox under the default executor", async () => {
    const offer = await offerWith(hasVolume, 'an offer with the volume for a group');
    await defined(s).launchGroup(
      offer,
      { executorId: 'group-ex', type: 'DEFAULT', resources: Resources.fromScalars({ cpus: 0.1, mem: 256 }).toJSON() },
      [
        {
          taskId: 'group-reader',
          name: 'group-reader',
          command: { shell: 'grep -q hello-volume data/greeting' },
          resources: [...Resources.fromScalars({ cpus: 0.1, mem: 32 }).toJSON(), VOLUME],
        },
      ],
    );
    await until(() => states('group-reader').some((x) => x === 'FINISHED' || x === 'FAILED'), 60_000, 'group task done');
    expect(updates.filter((u) => u.taskId === 'group-reader').at(-1)).toMatchObject({ state: 'FINISHED' });
  }, 90_000);

  it('refuses CREATE and DESTROY to principals the ACLs refuse', async () => {
    const ops = await principal({ url: master, token: ADMIN_TOKEN }, 'ops-b', 'OPERATOR');
    const acls = {
      permissive: true,
      create_volumes: [{ principals: { values: ['ops-b'] }, roles: { type: 'NONE' } }],
      destroy_volumes: [{ principals: { values: ['ops-b'] }, creator_principals: { type: 'NONE' } }],
    };
    expect((await api('PUT', '/api/v1/acls', acls)).status).toBe(200);
    const agentId = String((await api('GET', '/api/v1/agents')).body.items?.[0].id);
    const create = await api('POST', '/api/v1/volumes', { agentId, role: ROLE, persistenceId: 'other', disk: 1, containerPath: 'x' }, ops);
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('FORBIDDEN');
    const id = String((await api('GET', '/api/v1/volumes')).body.items?.[0].id);
    const destroy = await api('DELETE', `/api/v1/volumes/${id}`, undefined, ops);
    expect(destroy.status).toBe(403);
    expect(fs.existsSync(path.join(volumeDir, 'greeting'))).toBe(true);
    // No reserved disk is left free for an operator's volume either.
    const full = await api('POST', '/api/v1/volumes', { agentId, role: ROLE, persistenceId: 'other', disk: 1, containerPath: 'x' });
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('VOLUME_INSUFFICIENT_DISK');
    // Nor can the reservation be removed from under the volume.
    const reservation = String((await api('GET', '/api/v1/reservations')).body.items?.[0].id);
    const unreserve = await api('DELETE', `/api/v1/reservations/${reservation}`);
    expect(unreserve.status).toBe(409);
    expect(unreserve.body.code).toBe('RESERVATION_IN_USE');
  }, 60_000);

  it('destroys the volume through the offer: its data is gone and the disk is offered reserved again', async () => {
    const offer = await offerWith(hasVolume, 'an offer with the volume');
    expect(volumeIn(offer, 'kv-data')).toEqual(VOLUME);
    await defined(s).destroyVolumes(offer, ['kv-data']);
    expect(fs.existsSync(volumeDir)).toBe(false);
    expect((await api('GET', '/api/v1/volumes')).body.items).toEqual([]);
    const again = await offerWith((r) => r.reserved(ROLE).get('disk') >= 256 && !hasVolume(r), 'reserved disk offered again');
    await defined(s).decline(again.id, { refuseSeconds: 0 });
    const audit = await api('GET', '/api/v1/audit?action=volume.*');
    expect(audit.body.items?.map((e) => e.action)).toEqual(['volume.destroy', 'volume.create']);
  }, 60_000);
});
