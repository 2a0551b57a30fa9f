/**
 * The /frameworks socket.io namespace: a framework's scheduler subscribes, receives offers and
 * task updates, and answers. Connect with `auth: { token }`. Every call is acknowledged with a
 * Reply ({ ok: true, ... } or { ok: false, error: { code, message } }).
 *
 *   framework -> control plane:
 *     'subscribe'   Subscribe      -> { frameworkId, heartbeatIntervalSeconds }
 *     'updateFramework' UpdateFramework -> {}
 *     'accept'      Accept         -> { launched: taskIds }
 *     'decline'     Decline        -> {}
 *     'suppress'    RolesCall      -> {}
 *     'revive'      RolesCall      -> {}
 *     'kill'        Kill           -> {}
 *     'acknowledge' Acknowledge    -> {}
 *     'reconcile'   Reconcile      -> {}  (answers come as 'update' events)
 *     'inverseOffer' InverseOfferAnswer -> {}
 *     'teardown'    {}             -> {}
 *     'shutdownExecutor' ExecutorCall -> {}  (./executors.ts)
 *     'message'     SchedulerMessage -> {}  (to one of its executors)
 *   control plane -> framework (events):
 *     'offers'        { offers: Offer[] }
 *     'rescind'       { offerId, reason }
 *     'inverseOffers' { inverseOffers: InverseOffer[] }
 *     'update'        { status: StatusUpdate }   (until acknowledged)
 *     'rescindInverseOffer' { inverseOfferId, reason }
 *     'agentLost'     { agentId, reason }         (an agent was taken out: Mesos's slaveLost)
 *     'heartbeat'     { at }
 *     'message'       SchedulerMessage             (from one of its executors)
 *     'failure'       ExecutorFailure              (one of its executors ended)
 */
import { z } from 'zod';
import { Id, type Reply, Resources, type ResourceEntry, Role, type StatusUpdate, TaskSpec } from './common';
import { CreateOperation, DestroyOperation } from './volumes';
import { type ExecutorCall, type ExecutorFailure, LaunchGroupOperation, type SchedulerMessage } from './executors';
import { type AcknowledgeOperationStatus, OperationId, type OperationStatus, type ReconcileOperations } from './operation-feedback';

export const FRAMEWORKS_NAMESPACE = '/frameworks';

export const CAPABILITIES = [
  'GPU_RESOURCES',
  'REVOCABLE_RESOURCES',
  'SHARED_RESOURCES',
  'MULTI_ROLE',
  'RESERVATION_REFINEMENT',
  'PARTITION_AWARE',
  /** Told KILLING when a kill of its task is under way (then KILLED). */
  'TASK_KILLING_STATE',
] as const;

export const Subscribe = z
  .object({
    /** The id from an earlier subscription: reconnect within the failover timeout keeps tasks. */
    frameworkId: Id.optional(),
    name: z.string().min(1).max(255),
    roles: z.array(Role).min(1).max(100),
    capabilities: z.array(z.enum(CAPABILITIES)).max(CAPABILITIES.length).default([]),
    /** Seconds the framework's tasks survive its disconnection (default 0: killed at once). */
    failoverTimeoutSeconds: z
      .number()
      .nonnegative()
      .max(365 * 24 * 3600)
      .default(0),
    principal: z.string().max(255).optional(),
    user: z.string().max(255).optional(),
    hostname: z.string().max(253).optional(),
    /**
     * Whether its executors outlive an agent restart (Mesos's FrameworkInfo.checkpoint); absent:
     * true (the Mesos API's FrameworkInfo without it: false, Mesos's default).
     */
    checkpoint: z.boolean().optional(),
    /** Roles to subscribe suppressed (no offers until revived). */
    suppressedRoles: z.array(Role).max(100).default([]),
    /**
     * Per role, the least an offer must hold for this framework (Mesos's FrameworkInfo
     * offer_filters): alternatives of quantities, one of which it must hold all of; they replace
     * the control plane's minimum allocatable resources for this framework and role.
     */
    offerFilters: z
      .record(
        Role,
        z
          .object({
            minAllocatableResources: z
              .array(z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/), z.number().nonnegative().max(1e12)))
              .max(20),
          })
          .strict(),
      )
      .optional(),
    /**
     * The resources of this framework's typical task (beyond Mesos): its offers are cut to a
     * whole number of such tasks, and the rest of an agent goes to other frameworks in the same
     * cycle (docs/allocator.md, placement).
     */
    taskSize: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/), z.number().positive().max(1e12))
      .refine((m) => Object.keys(m).length >= 1 && Object.keys(m).length <= 20, 'must name 1 to 20 resources')
      .optional(),
  })
  .strict();
export type Subscribe = z.input<typeof Subscribe>;
export interface SubscribeReply {
  frameworkId: string;
  heartbeatIntervalSeconds: number;
}

/**
 * Changes the subscribed framework's info without subscribing again (Mesos's UPDATE_FRAMEWORK):
 * the whole info as in Subscribe, naming the framework the connection is subscribed as. Roles,
 * capabilities, failover timeout, suppressed roles, offer filters, name, hostname and task size
 * take the values given; `user` and `principal` cannot change.
 */
export const UpdateFramework = Subscribe.extend({ frameworkId: Id });
export type UpdateFramework = z.input<typeof UpdateFramework>;

/**
 * An offer id as an answer names it: any text. An id the control plane never issued, whatever
 * its form, is UNKNOWN_OFFER (for a Mesos framework: its tasks TASK_DROPPED or TASK_LOST with
 * REASON_INVALID_OFFERS, as Mesos answers).
 */
const OfferId = z.string().min(1).max(255);

export const Operation = z.discriminatedUnion('type', [
  z.object({ type: z.literal('LAUNCH'), tasks: z.array(TaskSpec).min(1).max(10_000) }).strict(),
  /**
   * `source` (refinement, RESERVATION_REFINEMENT frameworks): resources reserved for an ancestor
   * of the role `resources` are reserved for, which the reservation refines (`eng` to `eng/ml`).
   */
  z
    .object({ type: z.literal('RESERVE'), id: OperationId.optional(), resources: Resources.min(1), source: Resources.min(1).optional() })
    .strict(),
  z.object({ type: z.literal('UNRESERVE'), id: OperationId.optional(), resources: Resources.min(1) }).strict(),
  LaunchGroupOperation,
  CreateOperation,
  DestroyOperation,
]);
export type Operation = z.infer<typeof Operation>;

const RefuseSeconds = z
  .number()
  .min(0)
  .max(365 * 24 * 3600);

export const Accept = z
  .object({
    offerIds: z.array(OfferId).min(1).max(1000),
    operations: z.array(Operation).max(1000),
    /** Filter for the resources left unused (default 5 s, as Mesos). */
    refuseSeconds: RefuseSeconds.optional(),
  })
  .strict();
export type Accept = z.infer<typeof Accept>;
export interface AcceptReply {
  launched: string[];
}

export const Decline = z.object({ offerIds: z.array(OfferId).min(1).max(1000), refuseSeconds: RefuseSeconds.optional() }).strict();
export type Decline = z.infer<typeof Decline>;

export const RolesCall = z.object({ roles: z.array(Role).max(100).optional() }).strict();
export type RolesCall = z.infer<typeof RolesCall>;

export const Kill = z.object({ taskId: Id, gracePeriodSeconds: z.number().nonnegative().max(3600).optional() }).strict();
export type Kill = z.infer<typeof Kill>;

export const Acknowledge = z.object({ taskId: Id, updateUuid: z.uuid() }).strict();
export type Acknowledge = z.infer<typeof Acknowledge>;

/**
 * The tasks to hear the state of (none: every live task of the framework), at most 100,000 in
 * one call (more is INVALID_MESSAGE: split the list); the control plane looks them up in one
 * query whatever their number.
 */
export const Reconcile = z
  .object({
    tasks: z
      .array(z.object({ taskId: Id }).strict())
      .max(100_000)
      .default([]),
  })
  .strict();
export type Reconcile = z.input<typeof Reconcile>;

export const InverseOfferAnswer = z.object({ inverseOfferId: z.uuid(), accept: z.boolean() }).strict();
export type InverseOfferAnswer = z.infer<typeof InverseOfferAnswer>;

export interface Offer {
  id: string;
  frameworkId: string;
  agentId: string;
  hostname: string;
  role: string;
  resources: ResourceEntry[];
  attributes: Record<string, string | number>;
}

export interface InverseOffer {
  id: string;
  frameworkId: string;
  agentId: string;
  hostname: string;
  unavailability: { start: string; durationSeconds: number | null };
}

export interface FrameworkEvents {
  offers: (m: { offers: Offer[] }) => void;
  rescind: (m: { offerId: string; reason: string }) => void;
  inverseOffers: (m: { inverseOffers: InverseOffer[] }) => void;
  /** An inverse offer no longer holds (its maintenance changed or ended, its agent went). */
  rescindInverseOffer: (m: { inverseOfferId: string; reason: string }) => void;
  update: (m: { status: StatusUpdate }) => void;
  /** An agent was taken out (unreachable, gone, down for maintenance); its tasks' updates follow (Mesos's slaveLost, the v1 FAILURE event). */
  agentLost: (m: { agentId: string; reason: string }) => void;
  heartbeat: (m: { at: string }) => void;
  /** A message from one of its executors (Mesos's MESSAGE event). */
  message: (m: SchedulerMessage) => void;
  /** One of its executors ended (Mesos's FAILURE event with an executor_id). */
  failure: (m: ExecutorFailure) => void;
  /** How an operation named with an id ended (operation-feedback.ts). */
  operationStatus: (m: { status: OperationStatus }) => void;
}

/** What a framework calls on /frameworks; the control plane acknowledges each call with a Reply. */
export interface FrameworkCalls {
  subscribe: (m: Subscribe, ack?: (r: Reply<SubscribeReply>) => void) => void;
  updateFramework: (m: UpdateFramework, ack?: (r: Reply) => void) => void;
  accept: (m: Accept, ack?: (r: Reply<AcceptReply>) => void) => void;
  decline: (m: Decline, ack?: (r: Reply) => void) => void;
  suppress: (m: RolesCall, ack?: (r: Reply) => void) => void;
  revive: (m: RolesCall, ack?: (r: Reply) => void) => void;
  kill: (m: Kill, ack?: (r: Reply) => void) => void;
  acknowledge: (m: Acknowledge, ack?: (r: Reply) => void) => void;
  reconcile: (m: Reconcile, ack?: (r: Reply) => void) => void;
  inverseOffer: (m: InverseOfferAnswer, ack?: (r: Reply) => void) => void;
  teardown: (m: Record<string, never>, ack?: (r: Reply) => void) => void;
  /** Ends one of its executors (Mesos's SHUTDOWN). */
  shutdownExecutor: (m: ExecutorCall, ack?: (r: Reply) => void) => void;
  /** Sends one of its executors a message (Mesos's MESSAGE). */
  message: (m: SchedulerMessage, ack?: (r: Reply) => void) => void;
  acknowledgeOperationStatus: (m: AcknowledgeOperationStatus, ack?: (r: Reply) => void) => void;
  reconcileOperations: (m: ReconcileOperations, ack?: (r: Reply) => void) => void;
}
