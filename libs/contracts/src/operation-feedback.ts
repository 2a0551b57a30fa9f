/**
 * Operation feedback (Mesos's `Offer.Operation.id`): a framework that names an offer operation
 * with an id hears how it ended as an `operationStatus` event (Mesos's UPDATE_OPERATION_STATUS).
 * A status with a `uuid` is delivered reliably: the control plane keeps it (across failovers) and
 * sends it again on each subscription until the framework acknowledges it
 * (`acknowledgeOperationStatus`, Mesos's ACKNOWLEDGE_OPERATION_STATUS). A status without one
 * (an operation refused before it was applied: OPERATION_ERROR, OPERATION_DROPPED; or an answer
 * to `reconcileOperations`) needs no acknowledgement. Any operation type may carry an id;
 * today RESERVE and UNRESERVE do.
 */
import { z } from 'zod';
import { Id, type ResourceEntry } from './common';

/** Mesos's OperationState values. */
export const OPERATION_STATES = [
  'OPERATION_UNSUPPORTED',
  'OPERATION_PENDING',
  'OPERATION_FINISHED',
  'OPERATION_FAILED',
  'OPERATION_ERROR',
  'OPERATION_DROPPED',
  'OPERATION_UNREACHABLE',
  'OPERATION_GONE_BY_OPERATOR',
  'OPERATION_RECOVERING',
  'OPERATION_UNKNOWN',
] as const;
export type OperationState = (typeof OPERATION_STATES)[number];

/** States after which an operation changes no more. */
export const TERMINAL_OPERATION_STATES: ReadonlySet<OperationState> = new Set([
  'OPERATION_FINISHED',
  'OPERATION_FAILED',
  'OPERATION_ERROR',
  'OPERATION_DROPPED',
  'OPERATION_GONE_BY_OPERATOR',
]);

/** The id a framework gives an offer operation (unique among its operations not yet acknowledged). */
export const OperationId = z.string().min(1).max(255);

export interface OperationStatus {
  operationId: string;
  state: OperationState;
  message?: string;
  /** The agent whose resources the operation changed (absent when it was refused before naming one). */
  agentId?: string;
  /** Set on statuses delivered reliably: acknowledge with it. */
  uuid?: string;
  /** OPERATION_FINISHED: the resources as the operation left them. */
  convertedResources?: ResourceEntry[];
}

export const AcknowledgeOperationStatus = z.object({ operationId: OperationId, uuid: z.uuid(), agentId: Id.optional() }).strict();
export type AcknowledgeOperationStatus = z.infer<typeof AcknowledgeOperationStatus>;

/** The operations to hear the latest status of (none: every operation the control plane keeps for the framework). */
export const ReconcileOperations = z
  .object({
    operations: z
      .array(z.object({ operationId: OperationId, agentId: Id.optional() }).strict())
      .max(100_000)
      .default([]),
  })
  .strict();
export type ReconcileOperations = z.input<typeof ReconcileOperations>;
