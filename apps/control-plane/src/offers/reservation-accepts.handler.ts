/**
 * Accepts that reserve or unreserve (no launches): the reservations change through the
 * reservations service, with the operator API's lock, rules and audit, and the offers close in
 * the same transaction. RESERVE with a `source` refines a reservation of an ancestor role
 * (RESERVATION_REFINEMENT frameworks); operations named with an id report how they ended
 * (operations/operation-feedback.handler.ts): kept in the same transaction when applied,
 * OPERATION_ERROR when refused.
 */
import { Resources } from '@arbiter/allocator';
import { type Accept, type AcceptReply, type OperationStatus, PROTOCOL_ERRORS } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { AccessLog } from '../audit/access-log';
import { ArbiterException } from '../errors/errors.exception';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState, type FrameworkConnection, type FrameworkRuntime } from '../master/cluster-state';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { type AppliedOperation, type NamedOperation, OperationFeedback } from '../operations/operation-feedback.handler';
import { ReservationsService } from '../reservations/reservations.service';
import { AnswerPlans } from './answer-plans';
import { OfferState } from './offer.entity';
import { closeOffers } from './offers.repository';

@Injectable()
export class ReservationAccepts {
  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly plans: AnswerPlans,
    private readonly reservations: ReservationsService,
    private readonly loop: AllocationLoop,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly acls: AclsService,
    private readonly access: AccessLog,
    private readonly feedback: OperationFeedback,
  ) {}

  /**
   * An accept with RESERVE or UNRESERVE operations (no launches): the reservations change through
   * the reservations service (same lock, rules and audit as the operator API), the offers close in
   * the same transaction, and the agent is offered anew once the allocator has its new total.
   */
  async accept(socket: FrameworkConnection, msg: Accept): Promise<AcceptReply> {
    // It reads and changes the agent's rows: after the writes in flight.
    await this.kernel.settled();
    const fw = this.state.frameworkOf(socket);
    return this.feedback.applying(fw.id, msg.operations, (named) => this.apply(fw, msg, named));
  }

  private async apply(fw: FrameworkRuntime, msg: Accept, named: NamedOperation[]): Promise<AcceptReply> {
    const { offers, agentId, pool } = await this.plans.accept(fw, msg);
    const role = offers[0].role;
    const offered = pool.get(role) ?? Resources.empty();
    const ops = msg.operations.flatMap((op) =>
      op.type === 'RESERVE' || op.type === 'UNRESERVE'
        ? [
            {
              type: op.type,
              resources: Resources.of(op.resources),
              ...(op.type === 'RESERVE' && op.source ? { source: Resources.of(op.source) } : {}),
            },
          ]
        : [],
    );
    // RESERVE is checked here against the role; UNRESERVE by the reservations service against
    // each reservation's principal, since which reservations it shrinks is known only there.
    if (fw.actor && ops.some((op) => op.type === 'RESERVE') && !this.acls.allows(fw.actor, 'reserve_resources', role)) {
      await this.access.denied(fw.actor, {
        what: 'RESERVE',
        reason: `ACL reserve_resources refuses '${role}'`,
        targetType: 'agent',
        targetId: agentId,
      });
      throw new ProtocolError(
        PROTOCOL_ERRORS.FORBIDDEN,
        `principal '${fw.actor.name}' may not RESERVE for '${role}' (ACL reserve_resources)`,
      );
    }
    for (const { type, resources, source: refined } of ops) {
      if (refined) checkRefinement(fw, role, resources, refined);
      const source = refined ?? (type === 'RESERVE' ? resources.withReservation(undefined) : resources);
      if (type === 'RESERVE' && !resources.reserved().isEmpty() && resources.reserved(role).isEmpty())
        throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `RESERVE may reserve only for the offer's role '${role}'`);
      if (!offered.contains(source))
        throw new ProtocolError(
          PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES,
          `${type} of ${resources.toString()} is not covered by the offers`,
        );
    }
    const at = this.clock.date();
    let statuses: OperationStatus[] = [];
    try {
      await this.reservations.applyForFramework(fw, agentId, role, ops, async (tx) => {
        await closeOffers(tx, new Map(offers.map((o) => [o.id, OfferState.ACCEPTED])), at);
        statuses = await this.feedback.record(tx, fw.id, appliedOf(msg, named, agentId));
      });
    } catch (err) {
      if (err instanceof ArbiterException && err.code === 'RESERVATION_INSUFFICIENT_RESOURCES')
        throw new ProtocolError(PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES, err.message);
      if (err instanceof ArbiterException && err.code === 'FORBIDDEN' && fw.actor) {
        await this.access.denied(fw.actor, { what: 'UNRESERVE', reason: err.message, targetType: 'agent', targetId: agentId });
        throw new ProtocolError(PROTOCOL_ERRORS.FORBIDDEN, err.message);
      }
      throw err;
    }
    this.feedback.deliver(fw.id, statuses);
    this.state.offers.take(offers.map((o) => o.id));
    for (const o of offers) this.stream.emit('offer.closed', { offerId: o.id, state: OfferState.ACCEPTED });
    // The converted resources return to the allocator, which offers them to the role again once
    // the reservation's event has brought the agent's total in line (and asked for a cycle).
    for (const o of offers) this.state.allocator.recoverResources(fw.id, agentId, o.role, o.resources);
    this.loop.requestCycle();
    return { launched: [] };
  }
}

/**
 * A RESERVE with a source (refinement), as Mesos checks it: the framework has the
 * RESERVATION_REFINEMENT capability, the source is reserved for one role, a strict ancestor of
 * the role reserved for, and the same amounts are reserved.
 */
function checkRefinement(fw: FrameworkRuntime, role: string, resources: Resources, source: Resources): void {
  const refuse = (why: string) =>
    new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `RESERVE with a source (reservation refinement): ${why}`);
  if (!fw.capabilities.includes('RESERVATION_REFINEMENT')) throw refuse('the framework needs the RESERVATION_REFINEMENT capability');
  const from = new Set(source.entries().map((e) => e.reservation));
  const [parent] = from;
  if (from.size !== 1 || parent === undefined || !source.unreserved().isEmpty())
    throw refuse('the source must be resources reserved for one role');
  if (!role.startsWith(`${parent}/`)) throw refuse(`'${role}' is not a strict descendant of the source's role '${parent}'`);
  if (!resources.equals(source.withReservation(role)))
    throw refuse(`the resources (${resources.toString()}) must be the source (${source.toString()}) reserved for '${role}'`);
}

/** What an applied accept reports for the operations it named. */
function appliedOf(msg: Accept, named: NamedOperation[], agentId: string): AppliedOperation[] {
  const byId = new Map(msg.operations.flatMap((op) => ('id' in op && op.id !== undefined ? [[op.id, op] as const] : [])));
  return named.map((n) => {
    const op = byId.get(n.operationId);
    const convertedResources = op?.type === 'RESERVE' ? op.resources : undefined;
    return { ...n, agentId, ...(convertedResources ? { convertedResources } : {}) };
  });
}
