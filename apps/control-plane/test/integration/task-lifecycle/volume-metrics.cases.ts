/**
 * Persistent volumes in what the operator audits and in /metrics, against a real control plane
 * and database with an agent speaking the protocol: a framework's CREATE and DESTROY (offer
 * operations) and an operator's (REST) are audit entries under their principals, counted by
 * operation and source, and the volumes on agents are gauged in use or idle, with their disk.
 */
import { parseResources, Resources } from '@arbiter/allocator';
import type { Offer } from '@arbiter/scheduler-sdk';
import { AgentSessionsRepository } from '../../../src/agent-lifecycle/agent-sessions.repository';
import { ADMIN_TOKEN, controlPlaneBed, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

const { closers, start } = controlPlaneBed();
const MB = 1024 * 1024;

/** The samples of a scrape, by name and labels as written: `name{a="1",b="2"}`. */
async function scrape(t: TestControlPlane): Promise<Map<string, number>> {
  const res = await fetch(`${t.cp.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (line.startsWith('#') || !line.trim()) continue;
    const i = line.lastIndexOf(' ');
    samples.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return samples;
}

/** The volume samples of a scrape, named without their common prefix. */
async function volumeMetrics(t: TestControlPlane): Promise<Record<string, number | undefined>> {
  const m = await scrape(t);
  return {
    createdByOffer: m.get('arbiter_volume_operations_total{operation="create",source="offer"}'),
    createdByOperator: m.get('arbiter_volume_operations_total{operation="create",source="operator"}'),
    destroyedByOffer: m.get('arbiter_volume_operations_total{operation="destroy",source="offer"}'),
    destroyedByOperator: m.get('arbiter_volume_operations_total{operation="destroy",source="operator"}'),
    inUse: m.get('arbiter_persistent_volumes{state="in_use"}'),
    idle: m.get('arbiter_persistent_volumes{state="idle"}'),
    bytes: m.get('arbiter_persistent_volume_bytes'),
  };
}

/** The next offer that passes `test` (others are declined). */
async function offerWith(f: Recorder, test: (r: Resources) => boolean, what: string): Promise<Offer> {
  let found: Offer | undefined;
  await until(async () => {
    for (const o of f.offers.splice(0)) {
      if (!found && test(Resources.of(o.resources))) found = o;
      else await f.s.decline(o.id, { refuseSeconds: 0 });
    }
    return found !== undefined;
  }, what);
  return defined(found);
}
/** An agent speaking the protocol, registered, with all its disk (512 MB) reserved for role db; its id. */
async function agentWithDbDisk(t: TestControlPlane, hostname: string): Promise<string> {
  const a = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname, resources: parseResources('cpus:2;mem:1024;disk:512').toJSON() });
  closers.push(() => a.close());
  const agentId = await a.register();
  await ok(t.client.POST('/api/v1/reservations', { body: { agentId, role: 'db', resources: 'disk:512' } }), 201);
  return agentId;
}

const withVolume = (id: string) => (r: Resources) => r.entries().some((e) => e.volume === id);
const withFreeDisk = (r: Resources) => r.entries().some((e) => e.name === 'disk' && e.reservation === 'db' && !e.volume);

it("audits and counts a framework's and an operator's CREATE and DESTROY, and gauges volumes in use and their disk", async () => {
  const t = await start({ config: { allocationInterval: 0.1 } });
  const agentId = await agentWithDbDisk(t, 'vol-host');
  const token = await t.principal('db-framework', 'FRAMEWORK');
  const f = new Recorder(t, { name: 'db', roles: ['db'] }, { token });
  closers.push(() => f.s.close());
  await f.s.start();
  expect(await volumeMetrics(t)).toMatchObject({ inUse: 0, idle: 0, bytes: 0 });

  // A framework's CREATE through its offer, an operator's through REST.
  await f.s.createVolumes(await offerWith(f, withFreeDisk, 'an offer with reserved disk'), [
    { id: 'v1', disk: 256, containerPath: 'data' },
  ]);
  const v2 = await ok(
    t.client.POST('/api/v1/volumes', { body: { agentId, role: 'db', persistenceId: 'v2', disk: 128, containerPath: 'other', mode: 'RW' } }),
    201,
  );
  await until(async () => (await volumeMetrics(t)).idle === 2, 'both volumes gauged');
  // The operator's volume rescinded the offers made before it; those made since go back.
  for (const o of f.offers.splice(0)) await f.s.decline(o.id, { refuseSeconds: 0 }).catch(() => undefined);
  expect(await volumeMetrics(t)).toEqual({
    createdByOffer: 1,
    createdByOperator: 1,
    destroyedByOffer: undefined,
    destroyedByOperator: undefined,
    inUse: 0,
    idle: 2,
    bytes: 384 * MB,
  });

  // A task on v1: in use until it ends.
  const offer = await offerWith(f, withVolume('v1'), 'an offer with v1');
  const v1 = defined(offer.resources.find((e) => e.volume === 'v1'));
  await f.s.launch(offer, [
    {
      taskId: 'uses-v1',
      name: 'uses-v1',
      command: { shell: 'sleep 100' },
      resources: [...Resources.fromScalars({ cpus: 0.1, mem: 32 }).toJSON(), v1],
    },
  ]);
  await until(() => f.states('uses-v1').includes('RUNNING'), 'the task RUNNING');
  expect(await volumeMetrics(t)).toMatchObject({ inUse: 1, idle: 1, bytes: 384 * MB });
  await f.s.kill('uses-v1');
  await until(() => f.states('uses-v1').includes('KILLED'), 'the task KILLED');
  await until(async () => (await volumeMetrics(t)).inUse === 0, 'v1 idle again');

  // A framework's DESTROY through its offer, an operator's through REST.
  await f.s.destroyVolumes(await offerWith(f, withVolume('v1'), 'an offer with v1'), ['v1']);
  await ok(t.client.DELETE('/api/v1/volumes/{id}', { params: { path: { id: v2.id } } }), 204);
  await until(async () => (await volumeMetrics(t)).idle === 0, 'no volume gauged');
  expect(await volumeMetrics(t)).toEqual({
    createdByOffer: 1,
    createdByOperator: 1,
    destroyedByOffer: 1,
    destroyedByOperator: 1,
    inUse: 0,
    idle: 0,
    bytes: 0,
  });

  // The audit log has all four, newest first, each under the principal that asked.
  const audit = await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'volume.*' } } }));
  expect(audit.items.map((e) => [e.action, e.actor, (e.after ?? e.before) as { persistenceId?: string }])).toEqual([
    ['volume.destroy', 'admin', expect.objectContaining({ persistenceId: 'v2' })],
    ['volume.destroy', 'db-framework', expect.objectContaining({ persistenceId: 'v1' })],
    ['volume.create', 'admin', expect.objectContaining({ persistenceId: 'v2' })],
    ['volume.create', 'db-framework', expect.objectContaining({ persistenceId: 'v1' })],
  ]);
});

it("gauges an agent's volumes all through a change of its reservations (the allocator is given its new total in one step)", async () => {
  const t = await start();
  const agentId = await agentWithDbDisk(t, 'resync-host');
  await ok(
    t.client.POST('/api/v1/volumes', {
      body: { agentId, role: 'db', persistenceId: 'kept', disk: 128, containerPath: 'data', mode: 'RW' },
    }),
    201,
  );
  await until(async () => (await volumeMetrics(t)).idle === 1, 'the volume gauged');

  // Scraped while the control plane reads the agent's volumes again for the new total.
  const repository = t.cp.app.get(AgentSessionsRepository);
  const read = repository.volumesOn.bind(repository);
  const scrapedDuring: Array<Record<string, number | undefined>> = [];
  const reads = jest.spyOn(repository, 'volumesOn').mockImplementation(async (id) => {
    if (id === agentId) scrapedDuring.push(await volumeMetrics(t));
    return read(id);
  });
  closers.push(() => reads.mockRestore());
  await ok(t.client.POST('/api/v1/reservations', { body: { agentId, role: 'web', resources: 'cpus:1' } }), 201);
  await until(() => scrapedDuring.length > 0, "the agent's volumes read again");

  expect(scrapedDuring).toEqual([expect.objectContaining({ inUse: 0, idle: 1, bytes: 128 * MB })]);
  expect(await volumeMetrics(t)).toMatchObject({ inUse: 0, idle: 1, bytes: 128 * MB });
});
