import { MesosCall } from '@arbiter/contracts';
import { acceptOf } from './mesos-codec';
import { acknowledgeOperationOf, mesosOperationStatus, reconcileOperationsOf } from './mesos-operations-codec';

const cpus = (value: number, roles: string[]) => ({
  name: 'cpus',
  type: 'SCALAR',
  scalar: { value },
  reservations: roles.map((role) => ({ type: 'DYNAMIC', role })),
});
const accept = (operation: Record<string, unknown>) =>
  acceptOf(
    MesosCall.parse({ framework_id: { value: 'f' }, type: 'ACCEPT', accept: { offer_ids: [{ value: 'o' }], operations: [operation] } }),
  ).accept.operations[0];

describe('reservation operations from Mesos', () => {
  it('reads a RESERVE with a source as a refinement, keeping its id', () => {
    expect(
      accept({ type: 'RESERVE', id: { value: 'op' }, reserve: { source: [cpus(2, ['eng'])], resources: [cpus(2, ['eng', 'eng/ml'])] } }),
    ).toEqual({
      type: 'RESERVE',
      id: 'op',
      resources: [{ name: 'cpus', value: 2, reservation: 'eng/ml' }],
      source: [{ name: 'cpus', value: 2, reservation: 'eng' }],
    });
  });

  it('reads a refined stack without a source as Mesos does: the source is the stack with its last layer popped', () => {
    expect(accept({ type: 'RESERVE', reserve: { resources: [cpus(1, ['a', 'a/b', 'a/b/c'])] } })).toEqual({
      type: 'RESERVE',
      resources: [{ name: 'cpus', value: 1, reservation: 'a/b/c' }],
      source: [{ name: 'cpus', value: 1, reservation: 'a/b' }],
    });
    expect(accept({ type: 'RESERVE', reserve: { resources: [cpus(1, ['a'])] } })).toEqual({
      type: 'RESERVE',
      resources: [{ name: 'cpus', value: 1, reservation: 'a' }],
    });
  });

  it('refuses an operation id on a launch', () => {
    expect(() => accept({ type: 'LAUNCH', id: { value: 'x' }, launch: { task_infos: [] } })).toThrow(/operation ids are not supported/);
  });
});

describe('operation feedback calls and events', () => {
  const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const bytes = Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64');

  it('reads ACKNOWLEDGE_OPERATION_STATUS and RECONCILE_OPERATIONS', () => {
    const ack = MesosCall.parse({
      type: 'ACKNOWLEDGE_OPERATION_STATUS',
      acknowledge_operation_status: { agent_id: { value: 'ag' }, uuid: bytes, operation_id: { value: 'op' } },
    });
    expect(acknowledgeOperationOf(ack)).toEqual({ operationId: 'op', uuid, agentId: 'ag' });
    expect(() => acknowledgeOperationOf(MesosCall.parse({ type: 'ACKNOWLEDGE_OPERATION_STATUS' }))).toThrow(/needs/);
    const reconcile = MesosCall.parse({
      type: 'RECONCILE_OPERATIONS',
      reconcile_operations: {
        operations: [{ operation_id: { value: 'op' } }, { operation_id: { value: 'op2' }, agent_id: { value: 'ag' } }],
      },
    });
    expect(reconcileOperationsOf(reconcile)).toEqual({ operations: [{ operationId: 'op' }, { operationId: 'op2', agentId: 'ag' }] });
  });

  it("writes an OperationStatus in Mesos's shape, the uuid as bytes", () => {
    expect(mesosOperationStatus({ operationId: 'op', state: 'OPERATION_FINISHED', uuid, agentId: 'ag' })).toEqual({
      operation_id: { value: 'op' },
      state: 'OPERATION_FINISHED',
      uuid: { value: bytes },
      agent_id: { value: 'ag' },
    });
  });
});
