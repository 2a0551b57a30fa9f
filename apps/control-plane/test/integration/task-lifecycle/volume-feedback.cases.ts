/**
 * Operation feedback for CREATE and DESTROY (persistent volumes), against a real control plane
 * and database with an agent speaking the protocol: on the SDK, a CREATE and a DESTROY with an id
 * are OPERATION_FINISHED (kept until acknowledged, reconciled without a uuid, unknown once
 * acknowledged), a refused one OPERATION_ERROR without a uuid (the offers not covering it, the
 * agent refusing a DESTROY of a volume in use, the ACL), an id in use is refused; on Mesos's v1
 * scheduler API, the same in JSON and in protobuf.
 */
import { parseResources, Resources } from '@arbiter/allocator';
import { type Offer, type OperationStatus, type Subscribe } from '@arbiter/scheduler-sdk';
import { mesosTypes } from '../../../src/mesos/mesos-protobuf';
import { ADMIN_TOKEN, controlPlaneBed, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { type MesosCodec, MesosClient, type MesosEvent } from '../../support/mesos-client';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

const { closers, start } = controlPlaneBed();

class FeedbackRecorder extends Recorder {
  readonly statuses: OperationStatus[] = [];
  constructor(t: TestControlPlane, framework: Subscribe, options: { autoAcknowledge?: boolean; token?: string } = {}) {
    super(t, framework, options);
    this.s.on('operationStatus', (st) => this.statuses.push(st));
  }
  async status(operationId: string, state: string): Promise<OperationStatus> {
    const find = () => this.statuses.find((s) => s.operationId === operationId && s.state === state);
    await until(() => find() !== undefined, `${state} for ${operationId}`);
    return defined(find());
  }
}

/** A control plane with an agent whose 512 MB of disk are reserved for `db`. */
const setUp = async () => {
  const t = await start({ config: { allocationInterval: 0.1 } });
  const a = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
    hostname: 'vol-host',
    resources: parseResources('cpus:2;mem:1024;disk:512').toJSON(),
  });
  closers.push(() => a.close());
  const agentId = await a.register();
  await ok(t.client.POST('/api/v1/reservations', { body: { agentId, role: 'db', resources: 'disk:512' } }), 201);
  return { t, a, agentId };
};
const framework = async (t: TestControlPlane, options: { token?: string } = {}) => {
  const f = new FeedbackRecorder(t, { name: 'db', roles: ['db'] }, { autoAcknowledge: false, ...options });
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
const withVolume = (id: string) => (r: Resources) => r.entries().some((e) => e.volume === id);
const withFreeDisk = (r: Resources) => r.entries().some((e) => e.name === 'disk' && e.reservation === 'db' && !e.volume);
const volumes = (t: TestControlPlane) => ok(t.client.GET('/api/v1/volumes')).then((p) => p.items.map((v) => v.persistenceId));

it('reports CREATE and DESTROY with an id: finished and kept until acknowledged, refused as OPERATION_ERROR, an id in use refused', async () => {
  const { t, a, agentId } = await setUp();
  const f = await framework(t);
  const spec = { id: 'v1', disk: 256, containerPath: 'data' };

  // Refused (the offers do not hold that much reserved disk): OPERATION_ERROR, nothing to acknowledge, nothing made.
  const first = await offerWith(f, withFreeDisk, 'an offer with reserved disk');
  await expect(f.s.createVolumes(first, [{ ...spec, disk: 4096 }], { operationId: 'too-big' })).rejects.toMatchObject({
    code: 'INSUFFICIENT_OFFERED_RESOURCES',
  });
  const tooBig = await f.status('too-big', 'OPERATION_ERROR');
  expect(tooBig.uuid).toBeUndefined();
  expect(await volumes(t)).toEqual([]);
  await f.s.decline(first.id, { refuseSeconds: 0 });

  const free = await offerWith(f, withFreeDisk, 'an offer with reserved disk');
  await f.s.createVolumes(free, [spec], { operationId: 'create-1' });
  const created = await f.status('create-1', 'OPERATION_FINISHED');
  expect(created.agentId).toBe(agentId);
  expect(created.uuid).toMatch(/^[0-9a-f-]{36}$/);
  expect(await volumes(t)).toEqual(['v1']);
  expect(a.volumes).toEqual(new Set(['db/v1']));

  // The id is in use until its status is acknowledged.
  const offered = await offerWith(f, withVolume('v1'), 'the volume offered');
  await expect(f.s.destroyVolumes(offered, ['v1'], { operationId: 'create-1' })).rejects.toMatchObject({ code: 'INVALID_MESSAGE' });
  expect(await volumes(t)).toEqual(['v1']);

  // Reconciled without a uuid; unknown once acknowledged.
  f.statuses.length = 0;
  await f.s.reconcileOperations([{ operationId: 'create-1' }]);
  expect((await f.status('create-1', 'OPERATION_FINISHED')).uuid).toBeUndefined();
  await f.s.acknowledgeOperationStatus(created);
  await f.s.reconcileOperations([{ operationId: 'create-1' }]);
  await f.status('create-1', 'OPERATION_UNKNOWN');

  // The agent refuses a DESTROY of a volume in use: OPERATION_ERROR, the volume stays.
  a.volumesInUse.add('db/v1');
  await expect(f.s.destroyVolumes(offered, ['v1'], { operationId: 'destroy-busy' })).rejects.toMatchObject({ code: 'VOLUME_IN_USE' });
  expect((await f.status('destroy-busy', 'OPERATION_ERROR')).uuid).toBeUndefined();
  expect(await volumes(t)).toEqual(['v1']);
  a.volumesInUse.clear();

  // A refused accept leaves its offer outstanding.
  await f.s.destroyVolumes(offered, ['v1'], { operationId: 'destroy-1' });
  const destroyed = await f.status('destroy-1', 'OPERATION_FINISHED');
  expect(destroyed.agentId).toBe(agentId);
  expect(destroyed.uuid).toMatch(/^[0-9a-f-]{36}$/);
  expect(await volumes(t)).toEqual([]);
  expect(a.volumes.size).toBe(0);
  // Kept in the database until acknowledged.
  const kept = await t.cp.dataSource.query<Array<{ operation_id: string; type: string }>>(
    'SELECT operation_id, type FROM operation_statuses ORDER BY operation_id',
  );
  expect(kept).toEqual([{ operation_id: 'destroy-1', type: 'DESTROY' }]);
});

it('refuses a CREATE the create_volumes ACL refuses with OPERATION_ERROR, and another principal cannot acknowledge a status', async () => {
  const { t } = await setUp();
  const token = await t.principal('fw-denied', 'FRAMEWORK');
  const acls = await t.request('PUT', '/api/v1/acls', {
    permissive: true,
    create_volumes: [{ principals: { values: ['fw-denied'] }, roles: { type: 'NONE' } }],
  });
  expect(acls.status).toBe(200);
  const denied = await framework(t, { token });
  const offer = await offerWith(denied, withFreeDisk, 'an offer with reserved disk');
  await expect(
    denied.s.createVolumes(offer, [{ id: 'nope', disk: 128, containerPath: 'data' }], { operationId: 'acl' }),
  ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  expect((await denied.status('acl', 'OPERATION_ERROR')).uuid).toBeUndefined();
  expect(await volumes(t)).toEqual([]);
  denied.s.close();

  const f = await framework(t);
  const free = await offerWith(f, withFreeDisk, 'an offer with reserved disk');
  await f.s.createVolumes(free, [{ id: 'v2', disk: 128, containerPath: 'data' }], { operationId: 'mine' });
  const finished = await f.status('mine', 'OPERATION_FINISHED');
  const other = new FeedbackRecorder(
    t,
    { name: 'other', roles: ['elsewhere'] },
    {
      token: await t.principal('fw-other', 'FRAMEWORK'),
      autoAcknowledge: false,
    },
  );
  closers.push(() => other.s.close());
  await other.s.start();
  await other.s.acknowledgeOperationStatus(finished);
  await other.s.reconcileOperations([{ operationId: 'mine' }]);
  await other.status('mine', 'OPERATION_UNKNOWN');
  f.statuses.length = 0;
  await f.s.reconcileOperations([{ operationId: 'mine' }]);
  await f.status('mine', 'OPERATION_FINISHED');
});

interface MesosOffer {
  id: { value: string };
  resources: Array<{ name: string; disk?: { persistence?: { id: string } }; reservations?: Array<{ role: string }> }>;
}
interface MesosOperationStatus {
  operation_id: { value: string };
  state: string;
  uuid?: { value: string };
  agent_id?: { value: string };
}
const protobufCodec: MesosCodec = {
  encodeCall: (call) => {
    const { call: type } = mesosTypes();
    return Buffer.from(type.encode(type.fromObject(call)).finish());
  },
  decodeEvent: (record) => {
    const { event } = mesosTypes();
    return event.toObject(event.decode(record), { enums: String, longs: Number, bytes: String }) as MesosEvent;
  },
};

async function mesosCreateAndDestroy(codec?: MesosCodec) {
  const { t, agentId } = await setUp();
  const c = new MesosClient(t.cp.url, `Bearer ${ADMIN_TOKEN}`, codec);
  closers.push(() => c.close());
  expect(await c.subscribe({ user: 'nobody', name: 'mesos-db', roles: ['db'], capabilities: [{ type: 'MULTI_ROLE' }] })).toBe(200);
  const statuses = () => c.of<{ status: MesosOperationStatus }>('UPDATE_OPERATION_STATUS').map((e) => e.status);
  const statusOf = async (id: string, state: string) => {
    const find = () => statuses().find((s) => s.operation_id.value === id && s.state === state);
    await until(() => find() !== undefined, `${state} for ${id}`);
    return defined(find());
  };
  const used = new Set<string>();
  const offerWhere = async (test: (o: MesosOffer) => boolean, what: string) => {
    const find = () =>
      c
        .of<{ offers: MesosOffer[] }>('OFFERS')
        .flatMap((e) => e.offers)
        .find((o) => !used.has(o.id.value) && test(o));
    await until(() => find() !== undefined, what);
    const offer = defined(find());
    used.add(offer.id.value);
    return offer;
  };
  const disk = {
    name: 'disk',
    type: 'SCALAR',
    scalar: { value: 256 },
    reservations: [{ type: 'DYNAMIC', role: 'db' }],
    allocation_info: { role: 'db' },
  };
  const reserved = await offerWhere(
    (o) => o.resources.some((r) => r.name === 'disk' && r.reservations?.[0]?.role === 'db'),
    'reserved disk',
  );
  const volume = { ...disk, disk: { persistence: { id: 'mv' }, volume: { container_path: 'data', mode: 'RW' } } };
  const create = await c.call('ACCEPT', {
    accept: { offer_ids: [reserved.id], operations: [{ type: 'CREATE', id: { value: 'mc' }, create: { volumes: [volume] } }] },
  });
  expect(create.status).toBe(202);
  const created = await statusOf('mc', 'OPERATION_FINISHED');
  expect(created.agent_id).toEqual({ value: agentId });
  expect(created.uuid?.value).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  const ack = await c.call('ACKNOWLEDGE_OPERATION_STATUS', {
    acknowledge_operation_status: { agent_id: { value: agentId }, uuid: defined(created.uuid).value, operation_id: { value: 'mc' } },
  });
  expect(ack.status).toBe(202);

  const offered = await offerWhere((o) => o.resources.some((r) => r.disk?.persistence?.id === 'mv'), 'the volume offered');
  const destroy = await c.call('ACCEPT', {
    accept: {
      offer_ids: [offered.id],
      operations: [
        { type: 'DESTROY', id: { value: 'md' }, destroy: { volumes: [offered.resources.find((r) => r.disk?.persistence?.id === 'mv')] } },
      ],
    },
  });
  expect(destroy.status).toBe(202);
  expect((await statusOf('md', 'OPERATION_FINISHED')).uuid).toBeDefined();
  const reconcile = await c.call('RECONCILE_OPERATIONS', { reconcile_operations: { operations: [{ operation_id: { value: 'mc' } }] } });
  expect(reconcile.status).toBe(202);
  expect((await statusOf('mc', 'OPERATION_UNKNOWN')).uuid).toBeUndefined();
}

it('reports CREATE and DESTROY with an id on the Mesos API (JSON)', async () => {
  await mesosCreateAndDestroy();
});

it('speaks the same in protobuf', async () => {
  await mesosCreateAndDestroy(protobufCodec);
});
