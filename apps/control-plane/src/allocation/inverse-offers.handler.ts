/**
 * Inverse offers (Mesos's maintenance primitives): frameworks with resources on a machine
 * scheduled for maintenance are asked to give them back before the window starts; their
 * answers go to the allocator and are recorded.
 */
import { randomUUID } from 'node:crypto';
import { type InverseOfferAnswer, PROTOCOL_ERRORS } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState, type FrameworkConnection } from '../master/cluster-state';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { Outbox } from '../master/outbox';
import { InverseOfferStatus } from '../maintenance/inverse-offer-response.entity';
import { MaintenanceStateRepository } from '../maintenance/maintenance-state.repository';

@Injectable()
export class InverseOffers {
  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly maintenance: MaintenanceStateRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outbox: Outbox,
  ) {}

  /** Sends a cycle's inverse offers (`start` on the allocator's clock, in seconds). */
  async send(list: ReadonlyArray<{ frameworkId: string; agentId: string; start: number }>): Promise<void> {
    const windows = new Map<string, { start: string; durationSeconds: number | null }>();
    if (list.length) {
      for (const m of await this.maintenance.machines())
        if (m.window) windows.set(m.hostname, { start: m.window.startAt.toISOString(), durationSeconds: m.window.durationSeconds });
    }
    for (const io of list) {
      const agent = this.state.agents.get(io.agentId);
      const fw = this.state.frameworks.get(io.frameworkId);
      if (!agent || !fw?.socket) continue;
      const id = randomUUID();
      this.state.inverseOffers.set(id, { id, frameworkId: io.frameworkId, agentId: io.agentId });
      const unavailability = windows.get(agent.hostname) ?? {
        start: new Date(this.clock.date().getTime() + (io.start - this.state.seconds()) * 1000).toISOString(),
        durationSeconds: null,
      };
      this.outbox.inverseOffers(fw.id, [{ id, frameworkId: fw.id, agentId: agent.id, hostname: agent.hostname, unavailability }]);
    }
  }

  /**
   * Takes back the outstanding inverse offers for an agent's machine (their window changed or
   * ended, the agent went): each framework still connected hears `rescindInverseOffer`.
   */
  rescindOnAgent(agentId: string, reason: string): void {
    this.rescindWhere((io) => io.agentId === agentId, reason);
  }

  /** Takes back the outstanding inverse offers made to a framework (it went). */
  rescindOfFramework(frameworkId: string, reason: string): void {
    this.rescindWhere((io) => io.frameworkId === frameworkId, reason);
  }

  /** Inverse offers are few (one per framework with resources on a machine being drained): a walk over them is cheap. */
  private rescindWhere(matches: (io: { frameworkId: string; agentId: string }) => boolean, reason: string): void {
    for (const io of [...this.state.inverseOffers.values()]) {
      if (!matches(io)) continue;
      this.state.inverseOffers.delete(io.id);
      this.outbox.rescindInverseOffer(io.frameworkId, io.id, reason);
    }
  }

  /** A framework's answer to an inverse offer. */
  answer(socket: FrameworkConnection, msg: InverseOfferAnswer): Promise<void> {
    return this.kernel.exclusive(async () => {
      const fw = this.state.frameworkOf(socket);
      const io = this.state.inverseOffers.get(msg.inverseOfferId);
      if (io?.frameworkId !== fw.id)
        throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_OFFER, `no inverse offer ${msg.inverseOfferId} for this framework`);
      this.state.inverseOffers.delete(io.id);
      const agent = this.state.agents.get(io.agentId);
      if (agent?.inAllocator) this.state.allocator.respondToInverseOffer(io.agentId, fw.id, msg.accept);
      if (agent) {
        const status = msg.accept ? InverseOfferStatus.ACCEPT : InverseOfferStatus.DECLINE;
        await this.maintenance.recordInverseOfferAnswer(agent.hostname, fw.id, status, this.clock.date());
      }
    });
  }
}
