/**
 * Mesos's reservation operations and operation feedback, both ways (no I/O): RESERVE (with
 * `source`, or a refined `reservations` stack, for refinement) and UNRESERVE with their
 * `id`; ACKNOWLEDGE and ACKNOWLEDGE_OPERATION_STATUS, RECONCILE_OPERATIONS; the
 * UPDATE_OPERATION_STATUS event.
 */
import {
  type Acknowledge,
  type AcknowledgeOperationStatus,
  type MesosCall,
  type MesosOperation,
  type MesosResource,
  type Operation,
  type OperationStatus,
  PROTOCOL_ERRORS,
  type ReconcileOperations,
  type ResourceEntry,
} from '@arbiter/contracts';
import { ProtocolError } from '../kernel/protocol-error';
import { mesosBytesToUuid, toMesosResource, uuidToMesosBytes } from './mesos-codec';

type FromMesos = (list: MesosResource[] | undefined, where: string) => ResourceEntry[];

const invalid = (message: string) => new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, message);

/**
 * RESERVE or UNRESERVE as Arbiter's operation. A RESERVE refines when it has a `source`, or, as
 * Mesos reads a RESERVE without one, when its resources carry a stack of two reservations or
 * more: the source is then the resources with the last layer popped.
 */
export function reservationOpOf(op: MesosOperation, where: string, fromMesos: FromMesos): Operation {
  const id = op.id !== undefined ? { id: op.id.value } : {};
  if (op.type === 'UNRESERVE') return { type: 'UNRESERVE', ...id, resources: fromMesos(op.unreserve?.resources, where) };
  const resources = op.reserve?.resources ?? [];
  let source = op.reserve?.source?.length ? fromMesos(op.reserve.source, `${where} source`) : undefined;
  if (!source && resources.some((r) => (r.reservations?.length ?? 0) >= 2))
    source = fromMesos(
      resources.map((r) => ({ ...r, reservations: (r.reservations ?? []).slice(0, -1) })),
      `${where} (the layers below its refined reservation)`,
    );
  return { type: 'RESERVE', ...id, resources: fromMesos(resources, where), ...(source ? { source } : {}) };
}

/** ACKNOWLEDGE (a task's status update). */
export function acknowledgeOf(call: MesosCall): Acknowledge {
  const ack = call.acknowledge;
  if (!ack) throw invalid("ACKNOWLEDGE: the call needs an 'acknowledge' field");
  const uuid = mesosBytesToUuid(ack.uuid);
  if (!uuid) throw invalid("ACKNOWLEDGE: uuid must be the base64 of the 16 bytes of an update's uuid");
  return { taskId: ack.task_id.value, updateUuid: uuid };
}

export function acknowledgeOperationOf(call: MesosCall): AcknowledgeOperationStatus {
  const ack = call.acknowledge_operation_status;
  if (!ack) throw invalid("ACKNOWLEDGE_OPERATION_STATUS: the call needs an 'acknowledge_operation_status' field");
  if (ack.resource_provider_id)
    throw new ProtocolError(PROTOCOL_ERRORS.UNSUPPORTED, 'ACKNOWLEDGE_OPERATION_STATUS: Arbiter has no resource providers');
  const uuid = mesosBytesToUuid(ack.uuid);
  if (!uuid) throw invalid("ACKNOWLEDGE_OPERATION_STATUS: uuid must be the base64 of the 16 bytes of the status's uuid");
  return { operationId: ack.operation_id.value, uuid, ...(ack.agent_id ? { agentId: ack.agent_id.value } : {}) };
}

export function reconcileOperationsOf(call: MesosCall): ReconcileOperations {
  const ops = call.reconcile_operations?.operations ?? [];
  if (ops.some((o) => o.resource_provider_id))
    throw new ProtocolError(PROTOCOL_ERRORS.UNSUPPORTED, 'RECONCILE_OPERATIONS: Arbiter has no resource providers');
  return { operations: ops.map((o) => ({ operationId: o.operation_id.value, ...(o.agent_id ? { agentId: o.agent_id.value } : {}) })) };
}

/** An operation status as Mesos's OperationStatus (in UPDATE_OPERATION_STATUS). */
export function mesosOperationStatus(s: OperationStatus): Record<string, unknown> {
  return {
    operation_id: { value: s.operationId },
    state: s.state,
    ...(s.message !== undefined ? { message: s.message } : {}),
    ...(s.convertedResources ? { converted_resources: s.convertedResources.map((r) => toMesosResource(r)) } : {}),
    ...(s.uuid !== undefined ? { uuid: { value: uuidToMesosBytes(s.uuid) } } : {}),
    ...(s.agentId !== undefined ? { agent_id: { value: s.agentId } } : {}),
  };
}
