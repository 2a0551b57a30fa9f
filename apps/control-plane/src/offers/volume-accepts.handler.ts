/**
 * Accepts that create or destroy persistent volumes (no launches): CREATE takes the offered
 * plain disk reserved for the offer's role, DESTROY an offered volume; the volumes change
 * through the volumes service (same lock, rules, ACLs and audit as the operator API, and the
 * agent makes or removes the directory), and the offers close in the same transaction.
 * Operations named with an id report how they ended (operations/operation-feedback.handler.ts):
 * kept in the same transaction when applied, OPERATION_ERROR when refused.
 */
import { Resources } from '@arbiter/allocator';
import { type Accept, type AcceptReply, type OperationStatus, PROTOCOL_ERRORS } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { AccessLog } from '../audit/access-log';
import { ArbiterException } from '../errors/errors.exception';
import { CLOCK, type Clock } from '../kernel/clock';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { ClusterState, type FrameworkConnection, type FrameworkRuntime } from '../master/cluster-state';
import { type NamedOperation, OperationFeedback } from '../operations/operation-feedback.handler';
import { OperatorStream } from '../realtime/operator-stream';
import { plainDiskOf } from '../volumes/volumes.rules';
import { VolumesService, type VolumeSpec } from '../volumes/volumes.service';
import { AnswerPlans } from './answer-plans';
import { OfferState } from './offer.entity';
import { closeOffers } from './offers.repository';

/** Whether an accept creates or destroys volumes (it then goes here, not to the launches). */
export const isVolumeAccept = (msg: Accept): boolean => msg.operations.some((op) => op.type === 'CREATE' || op.type === 'DESTROY');

@Injectable()
export class VolumeAccepts {
  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly plans: AnswerPlans,
    private readonly volumes: VolumesService,
    private readonly loop: AllocationLoop,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly acls: AclsService,
    private readonly access: AccessLog,
    private readonly feedback: OperationFeedback,
  ) {}

  async accept(socket: FrameworkConnection, msg: Accept): Promise<AcceptReply> {
    await this.kernel.settled();
    const fw = this.state.frameworkOf(socket);
    return this.feedback.applying(fw.id, msg.operations, (named) => this.apply(fw, msg, named));
  }

  private async apply(fw: FrameworkRuntime, msg: Accept, named: NamedOperation[]): Promise<AcceptReply> {
    const creates: VolumeSpec[] = [];
    const destroys: Array<{ id: string }> = [];
    for (const op of msg.operations) {
      if (op.type === 'CREATE') creates.push(...op.volumes);
      else if (op.type === 'DESTROY') destroys.push(...op.volumes);
      else
        throw new ProtocolError(
          PROTOCOL_ERRORS.INVALID_MESSAGE,
          `CREATE and DESTROY cannot be combined with ${op.type} in one accept; reserve first, then create on the reserved disk of the next offer`,
        );
    }
    if (creates.length && destroys.length)
      throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, 'CREATE and DESTROY cannot be combined in one accept');
    const { offers, agentId, pool } = await this.plans.accept(fw, msg);
    const role = offers[0].role;
    const offered = pool.get(role) ?? Resources.empty();
    if (creates.length) {
      if (fw.actor && !this.acls.allows(fw.actor, 'create_volumes', role)) {
        await this.access.denied(fw.actor, {
          what: 'CREATE',
          reason: `ACL create_volumes refuses '${role}'`,
          targetType: 'agent',
          targetId: agentId,
        });
        throw new ProtocolError(
          PROTOCOL_ERRORS.FORBIDDEN,
          `principal '${fw.actor.name}' may not CREATE volumes for '${role}' (ACL create_volumes)`,
        );
      }
      if (creates.some((v) => v.shared) && !fw.capabilities.includes('SHARED_RESOURCES'))
        throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, 'CREATE of a shared volume needs the SHARED_RESOURCES capability');
      // Each volume of the disk its source names (a MOUNT disk only whole).
      const wanted = Resources.of(creates.map((v) => plainDiskOf({ role, persistenceId: v.id, disk: v.disk, source: v.source })));
      if (!offered.contains(wanted))
        throw new ProtocolError(
          PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES,
          `CREATE needs ${wanted.toString()} reserved for '${role}' in the offers (${offered.toString() || 'nothing offered'}); reserve disk first (a MOUNT disk is taken whole)`,
        );
    }
    for (const { id } of destroys)
      if (!offered.entries().some((e) => e.name === 'disk' && e.reservation === role && e.volume === id))
        throw new ProtocolError(PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES, `DESTROY of volume '${id}': it is not in the offers`);
    const at = this.clock.date();
    let statuses: OperationStatus[] = [];
    const close = async (tx: Parameters<Parameters<VolumesService['applyForFramework']>[4]>[0]) => {
      await closeOffers(tx, new Map(offers.map((o) => [o.id, OfferState.ACCEPTED])), at);
      statuses = await this.feedback.record(
        tx,
        fw.id,
        named.map((n) => ({ ...n, agentId })),
      );
    };
    try {
      await this.volumes.applyForFramework(
        fw,
        agentId,
        role,
        creates.length ? { type: 'CREATE', volumes: creates } : { type: 'DESTROY', volumes: destroys },
        close,
      );
    } catch (err) {
      if (err instanceof ArbiterException) {
        if (err.code === 'FORBIDDEN' && fw.actor)
          await this.access.denied(fw.actor, { what: 'DESTROY', reason: err.message, targetType: 'agent', targetId: agentId });
        throw new ProtocolError(err.code, err.message, err.details ?? undefined);
      }
      throw err;
    }
    this.feedback.deliver(fw.id, statuses);
    this.state.offers.take(offers.map((o) => o.id));
    for (const o of offers) this.stream.emit('offer.closed', { offerId: o.id, state: OfferState.ACCEPTED });
    for (const o of offers) this.state.allocator.recoverResources(fw.id, agentId, o.role, o.resources);
    this.loop.requestCycle();
    return { launched: [] };
  }
}
