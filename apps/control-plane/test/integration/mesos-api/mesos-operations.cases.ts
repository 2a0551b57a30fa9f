/**
 * Reservation refinement and operation feedback on Mesos's v1 scheduler API, in JSON and in
 * protobuf: RESERVE with a refined `reservations` stack and an operation id, its
 * UPDATE_OPERATION_STATUS, ACKNOWLEDGE_OPERATION_STATUS and RECONCILE_OPERATIONS.
 */
import { parseResources } from '@arbiter/allocator';
import { mesosTypes } from '../../../src/mesos/mesos-protobuf';
import { ADMIN_TOKEN, controlPlaneBed, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { type MesosCodec, MesosClient, type MesosEvent } from '../../support/mesos-client';
import { defined, until } from '../../support/until';

const { closers, start } = controlPlaneBed();

interface Offer {
  id: { value: string };
  agent_id: { value: string };
  resources: Array<{ name: string; scalar?: { value: number }; reservations?: Array<{ role: string }> }>;
}
interface OperationStatus {
  operation_id: { value: string };
  state: string;
  message?: string;
  uuid?: { value: string };
  agent_id?: { value: string };
  converted_resources?: Array<{ name: string; reservations?: Array<{ role: string }> }>;
}

/** The control plane's own protobuf schema (its field numbers are Mesos's). */
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

const setUp = async (codec?: MesosCodec) => {
  const cp = await start({ config: { allocationInterval: 0.1 } });
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, { hostname: 'ops-host', resources: parseResources('cpus:4;mem:4096').toJSON() });
  closers.push(() => a.close());
  const agentId = await a.register();
  await ok(cp.client.POST('/api/v1/reservations', { body: { agentId, role: 'eng', resources: 'cpus:2' } }), 201);
  const c = new MesosClient(cp.cp.url, `Bearer ${ADMIN_TOKEN}`, codec);
  closers.push(() => c.close());
  expect(
    await c.subscribe({
      user: 'nobody',
      name: 'ops',
      roles: ['eng/ml'],
      capabilities: [{ type: 'MULTI_ROLE' }, { type: 'RESERVATION_REFINEMENT' }],
    }),
  ).toBe(200);
  return { cp, c, agentId };
};
const statuses = (c: MesosClient) => c.of<{ status: OperationStatus }>('UPDATE_OPERATION_STATUS').map((e) => e.status);
const statusOf = async (c: MesosClient, id: string, state: string) => {
  await until(() => statuses(c).some((s) => s.operation_id.value === id && s.state === state), `${state} for ${id}`);
  return defined(statuses(c).find((s) => s.operation_id.value === id && s.state === state));
};
const engOffer = async (c: MesosClient) => {
  const holds = (o: Offer) => o.resources.some((r) => r.reservations?.[0]?.role === 'eng');
  await until(() => c.of<{ offers: Offer[] }>('OFFERS').some((e) => e.offers.some(holds)), 'an offer of the eng reservation');
  return defined(
    c
      .of<{ offers: Offer[] }>('OFFERS')
      .flatMap((e) => e.offers)
      .find(holds),
  );
};
/** cpus:2 reserved for eng, refined to eng/ml: Mesos's stack form, without `source`. */
const refinedCpus = [
  {
    name: 'cpus',
    type: 'SCALAR',
    scalar: { value: 2 },
    reservations: [
      { type: 'DYNAMIC', role: 'eng' },
      { type: 'DYNAMIC', role: 'eng/ml' },
    ],
    allocation_info: { role: 'eng/ml' },
  },
];

async function refineAndAcknowledge(cp: TestControlPlane, c: MesosClient, agentId: string) {
  const offer = await engOffer(c);
  const accept = await c.call('ACCEPT', {
    accept: { offer_ids: [offer.id], operations: [{ type: 'RESERVE', id: { value: 'refine-1' }, reserve: { resources: refinedCpus } }] },
  });
  expect(accept.status).toBe(202);
  const finished = await statusOf(c, 'refine-1', 'OPERATION_FINISHED');
  expect(finished.agent_id).toEqual({ value: agentId });
  expect(finished.uuid?.value).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  expect(finished.converted_resources?.[0]?.reservations?.map((r) => r.role)).toEqual(['eng/ml']);
  const rows = await ok(cp.client.GET('/api/v1/reservations'));
  expect(rows.items.map((r) => [r.role, r.resourcesText, r.refines.map((l) => l.role)])).toEqual([['eng/ml', 'cpus(eng/ml):2', ['eng']]]);

  const ack = await c.call('ACKNOWLEDGE_OPERATION_STATUS', {
    acknowledge_operation_status: { agent_id: { value: agentId }, uuid: defined(finished.uuid).value, operation_id: { value: 'refine-1' } },
  });
  expect(ack.status).toBe(202);
  const reconcile = await c.call('RECONCILE_OPERATIONS', {
    reconcile_operations: { operations: [{ operation_id: { value: 'refine-1' }, agent_id: { value: agentId } }] },
  });
  expect(reconcile.status).toBe(202);
  const unknown = await statusOf(c, 'refine-1', 'OPERATION_UNKNOWN');
  expect(unknown.uuid).toBeUndefined();
}

it('refines a reservation from its stack form and reports it with UPDATE_OPERATION_STATUS, acknowledged and reconciled (JSON)', async () => {
  const { cp, c, agentId } = await setUp();
  await refineAndAcknowledge(cp, c, agentId);
  // A status not kept needs no acknowledgement: an ACCEPT of offers no longer valid is OPERATION_ERROR without uuid.
  const gone = await c.call('ACCEPT', {
    accept: {
      offer_ids: [{ value: '00000000-0000-4000-8000-000000000000' }],
      operations: [{ type: 'UNRESERVE', id: { value: 'late' }, unreserve: { resources: refinedCpus } }],
    },
  });
  expect(gone.status).toBe(202);
  const error = await statusOf(c, 'late', 'OPERATION_ERROR');
  expect(error.uuid).toBeUndefined();
  // Malformed feedback calls are 400s.
  const bad = await c.call('ACKNOWLEDGE_OPERATION_STATUS', {
    acknowledge_operation_status: { uuid: 'not-a-uuid', operation_id: { value: 'refine-1' } },
  });
  expect(bad.status).toBe(400);
});

it('speaks the same in protobuf', async () => {
  const { cp, c, agentId } = await setUp(protobufCodec);
  await refineAndAcknowledge(cp, c, agentId);
});
