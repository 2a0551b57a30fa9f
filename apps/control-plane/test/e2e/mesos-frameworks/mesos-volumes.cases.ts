/**
 * Persistent volumes over Mesos's v1 scheduler API in JSON, with real processes: a Mesos
 * framework reserves disk, CREATEs a volume (disk.persistence, disk.volume), is offered it back
 * with its persistence id and container path, launches a task with the offered volume resource
 * (which writes there) and DESTROYs it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort } from '../../../src/database/database.embedded';
import { ADMIN_TOKEN } from '../../support/admin-token';
import { MesosClient, shellTaskInfo } from '../../support/mesos-client';
import { freshDatabase } from '../../support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnControlPlane } from '../../support/process';
import { defined, until } from '../../support/until';

interface MesosResource {
  name: string;
  scalar?: { value: number };
  reservations?: Array<{ role: string }>;
  disk?: { persistence?: { id: string }; volume?: { container_path: string; mode: string } };
}
interface Offer {
  id: { value: string };
  agent_id: { value: string };
  resources: MesosResource[];
}

describe("persistent volumes over Mesos's scheduler API", () => {
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : '/tmp', 'arbiter-mesos-volumes-'));
  fs.chmodSync(dir, 0o711);
  const agent = new AgentProcess('mesos-volumes-agent', path.join(dir, 'agent'), 'cpus:2;mem:1024;disk:512');
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let cp: ControlPlaneProcess | undefined;
  let c: MesosClient | undefined;

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
    c = new MesosClient(cp.url, `Bearer ${ADMIN_TOKEN}`);
    expect(await c.subscribe({ user: 'nobody', name: 'mesos-volumes', role: 'mdb' })).toBe(200);
  }, 60_000);

  afterAll(async () => {
    c?.close();
    await agent.killWithTasks();
    await cp?.stop('SIGKILL');
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const seen = new Set<string>();
  /** The next offer not seen before whose resources pass `test`. */
  const offerWith = async (test: (r: MesosResource[]) => boolean, what: string): Promise<Offer> => {
    let found: Offer | undefined;
    await until(
      () => {
        found = defined(c)
          .of<{ offers: Offer[] }>('OFFERS')
          .flatMap((e) => e.offers)
          .find((o) => !seen.has(o.id.value) && test(o.resources));
        return found !== undefined;
      },
      30_000,
      what,
    );
    seen.add(defined(found).id.value);
    return defined(found);
  };
  const reservedDisk = (r: MesosResource) => r.name === 'disk' && r.reservations?.at(-1)?.role === 'mdb';
  const accept = async (offer: Offer, operations: unknown[]) => {
    const answer = await defined(c).call('ACCEPT', { accept: { offer_ids: [offer.id], operations, filters: { refuse_seconds: 0 } } });
    expect(answer.status).toBe(202);
  };

  it('reserves, creates, launches on the volume, and destroys it', async () => {
    const first = await offerWith((rs) => rs.some((r) => r.name === 'disk'), 'an offer with disk');
    const disk = { name: 'disk', type: 'SCALAR', scalar: { value: 128 }, reservations: [{ type: 'DYNAMIC', role: 'mdb' }] };
    await accept(first, [{ type: 'RESERVE', reserve: { resources: [disk] } }]);
    const reserved = await offerWith((rs) => rs.some((r) => reservedDisk(r) && !r.disk), 'an offer with the reserved disk');
    const volume = { ...disk, disk: { persistence: { id: 'mv-1' }, volume: { container_path: 'data', mode: 'RW' } } };
    await accept(reserved, [{ type: 'CREATE', create: { volumes: [volume] } }]);
    const withVolume = await offerWith((rs) => rs.some((r) => r.disk?.persistence?.id === 'mv-1'), 'an offer with the volume');
    const offered = defined(withVolume.resources.find((r) => r.disk?.persistence?.id === 'mv-1'));
    expect(offered.disk).toMatchObject({ persistence: { id: 'mv-1', principal: 'admin' }, volume: { container_path: 'data', mode: 'RW' } });
    const task = shellTaskInfo(withVolume, 'writer', 'echo from-mesos > data/f');
    await accept(withVolume, [{ type: 'LAUNCH', launch: { task_infos: [{ ...task, resources: [...task.resources, offered] }] } }]);
    const finished = () =>
      defined(c)
        .of<{ status: { task_id: { value: string }; state: string } }>('UPDATE')
        .some((u) => u.status.task_id.value === 'writer' && u.status.state === 'TASK_FINISHED');
    await until(finished, 30_000, 'writer TASK_FINISHED');
    const where = path.join(dir, 'agent', 'volumes', 'roles', 'mdb', 'mv-1');
    expect(fs.readFileSync(path.join(where, 'f'), 'utf8')).toBe('from-mesos\n');
    const again = await offerWith((rs) => rs.some((r) => r.disk?.persistence?.id === 'mv-1'), 'the volume offered again');
    await accept(again, [{ type: 'DESTROY', destroy: { volumes: [again.resources.find((r) => r.disk?.persistence?.id === 'mv-1')] } }]);
    expect(fs.existsSync(where)).toBe(false);
  }, 90_000);
});
