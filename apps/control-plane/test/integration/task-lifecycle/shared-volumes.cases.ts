/**
 * Shared persistent volumes (Mesos's `Resource.shared`), against a real control plane and
 * database with an agent speaking the protocol: a SHARED_RESOURCES framework creates one (a
 * framework without the capability is refused), it stays offered while tasks use it, two tasks of
 * one accept and a third from a later offer use it at once, and DESTROY is refused while any of
 * them runs.
 */
import { parseResources, type ResourceEntry, Resources } from '@arbiter/allocator';
import type { Offer, Subscribe } from '@arbiter/scheduler-sdk';
import { ADMIN_TOKEN, controlPlaneBed, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

const { closers, start } = controlPlaneBed();

const SHARED: ResourceEntry = { name: 'disk', value: 256, reservation: 'db', volume: 'sv', shared: true };
const framework = async (t: TestControlPlane, info: Subscribe) => {
  const f = new Recorder(t, info);
  closers.push(() => f.s.close());
  await f.s.start();
  return f;
};
/** The next offer that passes `test` (others are declined). */
const offerWith = async (f: Recorder, test: (r: Resources) => boolean, what: string): Promise<Offer> => {
  let found: Offer | undefined;
  await until(async () => {
    for (const o of f.offers.splice(0)) {
      if (!found && test(Resources.of(o.resources))) found = o;
      else await f.s.decline(o.id, { refuseSeconds: 0 });
    }
    return found !== undefined;
  }, what);
  return defined(found);
};
const withFreeDisk = (r: Resources) => r.entries().some((e) => e.name === 'disk' && e.reservation === 'db' && !e.volume);
const withShared = (r: Resources) => r.entries().some((e) => e.volume === 'sv' && e.shared === true);
const onShared = (taskId: string) => ({
  taskId,
  name: taskId,
  command: { shell: 'sleep 600' },
  resources: [...parseResources('cpus:0.1;mem:16').toJSON(), SHARED],
});

it('a shared volume is used by several tasks at once and cannot be destroyed while any of them runs', async () => {
  const t = await start({ config: { allocationInterval: 0.1 } });
  const a = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
    hostname: 'shared-host',
    resources: parseResources('cpus:2;mem:1024;disk:512').toJSON(),
  });
  closers.push(() => a.close());
  const agentId = await a.register();
  await ok(t.client.POST('/api/v1/reservations', { body: { agentId, role: 'db', resources: 'disk:512' } }), 201);
  const volumes = () => ok(t.client.GET('/api/v1/volumes')).then((p) => p.items.map((v) => v.persistenceId));

  // Without SHARED_RESOURCES: refused, nothing made.
  const plain = await framework(t, { name: 'plain', roles: ['db'] });
  const first = await offerWith(plain, withFreeDisk, 'an offer with reserved disk');
  await expect(plain.s.createVolumes(first, [{ id: 'sv', disk: 256, containerPath: 'data', shared: true }])).rejects.toMatchObject({
    code: 'INVALID_MESSAGE',
  });
  expect(await volumes()).toEqual([]);
  await plain.s.teardown();

  const f = await framework(t, { name: 'sharer', roles: ['db'], capabilities: ['SHARED_RESOURCES'] });
  const free = await offerWith(f, withFreeDisk, 'an offer with reserved disk');
  await f.s.createVolumes(free, [{ id: 'sv', disk: 256, containerPath: 'data', shared: true }]);
  expect((await ok(t.client.GET('/api/v1/volumes'))).items).toMatchObject([{ persistenceId: 'sv', shared: true }]);

  // Two tasks of one accept on the one shared volume.
  const offered = await offerWith(f, withShared, 'the shared volume offered');
  await f.s.launch(offered, [onShared('s1'), onShared('s2')]);
  await until(() => f.states('s1').includes('RUNNING') && f.states('s2').includes('RUNNING'), 's1 and s2 running');
  // Still offered while they use it: a third task on it, from a later offer.
  const again = await offerWith(f, withShared, 'the shared volume offered while in use');
  await f.s.launch(again, [onShared('s3')]);
  await until(() => f.states('s3').includes('RUNNING'), 's3 running');
  expect(a.launches.filter((l) => l.task.resources.some((e) => e.volume === 'sv')).map((l) => l.task.taskId)).toEqual(['s1', 's2', 's3']);

  // DESTROY is refused while any copy is in use.
  for (const taskId of ['s1', 's2', 's3']) {
    const offer = await offerWith(f, withShared, `the shared volume offered before ${taskId} is killed`);
    await expect(f.s.destroyVolumes(offer, ['sv'])).rejects.toMatchObject({ code: 'VOLUME_IN_USE' });
    await f.s.decline(offer.id, { refuseSeconds: 0 });
    await f.s.kill(taskId);
    await until(() => f.states(taskId).includes('KILLED'), `${taskId} killed`);
  }
  const last = await offerWith(f, withShared, 'the shared volume offered once unused');
  await f.s.destroyVolumes(last, ['sv']);
  expect(await volumes()).toEqual([]);
  expect(a.volumes.size).toBe(0);
});
