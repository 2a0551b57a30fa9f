/**
 * Accepts that reserve or unreserve (no launches): the reservations change through the
 * reservations service, with the operator API's lock, rules and audit, and the offers close in
 * the same transaction.
 */
import { Resources } from '@arbiter/allocator';
import { type Accept, type AcceptReply, PROTOCOL_ERRORS } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { AccessLog } from '../audit/access-log';
import { ArbiterException } from '../errors/errors.exception';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState, type FrameworkConnection } from '../master/cluster-state';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
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
    const { offers, agentId, pool } = await this.plans.accept(fw, msg);
    const role = offers[0].role;
    const offered = pool.get(role) ?? Resources.empty();
    const ops = msg.operations.flatMap((op) =>
      op.type === 'RESERVE' || op.type === 'UNRESERVE' ? [{ type: op.type, resources: Resources.of(op.resources) }] : [],
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
    for (const { type, resources } of ops) {
      const source = type === 'RESERVE' ? resources.withReservation(undefined) : resources;
      if (type === 'RESERVE' && !resources.reserved().isEmpty() && resources.reserved(role).isEmpty())
        throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `RESERVE may reserve only for the offer's role '${role}'`);
      if (!offered.contains(source))
        throw new ProtocolError(
          PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES,
          `${type} of ${resources.toString()} is not covered by the offers`,
        );
    }
    const at = this.clock.date();
    try {
      await this.reservations.applyForFramework(fw, agentId, role, ops, (tx) =>
        closeOffers(tx, new Map(offers.map((o) => [o.id, OfferState.ACCEPTED])), at),
      );
    } catch (err) {
      if (err instanceof ArbiterException && err.code === 'RESERVATION_INSUFFICIENT_RESOURCES')
        throw new ProtocolError(PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES, err.message);
      if (err instanceof ArbiterException && err.code === 'FORBIDDEN' && fw.actor) {
        await this.access.denied(fw.actor, { what: 'UNRESERVE', reason: err.message, targetType: 'agent', targetId: agentId });
        throw new ProtocolError(PROTOCOL_ERRORS.FORBIDDEN, err.message);
      }
      throw err;
    }
    this.state.offers.take(offers.map((o) => o.id));
    for (const o of offers) this.stream.emit('offer.closed', { offerId: o.id, state: OfferState.ACCEPTED });
    // The converted resources return to the allocator, which offers them to the role again once
    // the reservation's event has brought the agent's total in line (and asked for a cycle).
    for (const o of offers) this.state.allocator.recoverResources(fw.id, agentId, o.role, o.resources);
    this.loop.requestCycle();
    return { launched: [] };
  }
}
