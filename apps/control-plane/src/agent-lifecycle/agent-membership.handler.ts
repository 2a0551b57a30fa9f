/**
 * An agent's place in the allocator: its total (with its reservations applied) and the tasks it
 * runs, added when it registers or is restored at start, and changed when its resources change
 * while it runs.
 */
import { Resources } from '@arbiter/allocator';
import { PROTOCOL_ERRORS, type UpdateAgent } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../auth/auth.actor';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { type AgentSocket, ClusterState } from '../master/cluster-state';
import { AgentRegistry, imagesRefusal } from '../master/agent-registry';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import type { ReservationEntity } from '../reservations/reservation.entity';
import type { VolumeEntity } from '../volumes/volume.entity';
import { withVolumes } from '../volumes/volumes.rules';
import type { AgentEntity } from '../agents/agent.entity';
import { AgentSessionsRepository } from './agent-sessions.repository';

@Injectable()
export class AgentMembership {
  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly registry: AgentRegistry,
    private readonly agents: AgentSessionsRepository,
    private readonly offers: OfferRescinds,
    private readonly loop: AllocationLoop,
    private readonly stream: OperatorStream,
    private readonly audit: AuditService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** An agent known from the database at start: in the allocator, inactive until it registers again. */
  async restore(agent: AgentEntity): Promise<void> {
    this.registry.put({
      id: agent.id,
      hostname: agent.hostname,
      attributes: agent.attributes,
      lastSeen: this.clock.now(),
      inAllocator: false,
      recovered: true,
      ...imagesRefusal(agent.capabilities ?? null),
    });
    await this.add(agent, false);
  }

  /**
   * An agent's resources changed while it runs (Mesos's UPDATE_SLAVE): recorded and audited, its
   * outstanding offers rescinded, and the allocator given the new total at once (tasks keep
   * running; a total below what they use leaves nothing to offer until they end). Refused while
   * the new total cannot hold the agent's reservations.
   */
  update(socket: AgentSocket, msg: UpdateAgent, actor: Actor): Promise<void> {
    return this.kernel.exclusive(async () => {
      const runtime = this.state.agentOf(socket);
      if (!runtime) throw new ProtocolError(PROTOCOL_ERRORS.NOT_SUBSCRIBED, 'register before updating resources');
      this.registry.seen(runtime.id, this.clock.now());
      const row = await this.agents.find(runtime.id);
      if (!row) throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_AGENT, `no agent ${runtime.id}`);
      const resources = Resources.of(msg.resources);
      const reservations = await this.agents.reservationsOn(row.id);
      const reserved = reservations.reduce((sum, r) => sum.plus(Resources.of(r.resources).withReservation(undefined)), Resources.empty());
      if (!resources.contains(reserved))
        throw new ProtocolError(
          PROTOCOL_ERRORS.RESOURCES_BELOW_RESERVATIONS,
          `the new resources (${resources.toString()}) cannot hold the reservations on this agent (${reserved.toString()}); unreserve first`,
          { reserved: reserved.toJSON() },
        );
      const before = { resources: row.resources, attributes: row.attributes };
      const change = { resources: resources.toJSON(), attributes: msg.attributes ?? row.attributes };
      if (Resources.of(row.resources).equals(resources) && JSON.stringify(before.attributes) === JSON.stringify(change.attributes)) return;
      const now = this.clock.date();
      await this.agents.updateTotal(row.id, change, (tx) =>
        this.audit.record(tx, actor, { action: 'agent.update', targetType: 'agent', targetId: row.id, before, after: change }, now),
      );
      this.registry.attributesChanged(runtime.id, change.attributes);
      await this.offers.onAgent(row.id, "the agent's resources changed");
      const volumes = await this.agents.volumesOn(row.id);
      if (runtime.inAllocator)
        this.state.allocator.updateAgent(
          row.id,
          this.effectiveTotal(Object.assign(row, change), reservations, volumes),
          refinedRoles(reservations),
        );
      this.stream.emit('agent.updated', { agentId: row.id });
      this.loop.requestCycle();
    });
  }

  /**
   * Agent total with its reservations applied (unreserved minus reserved amounts, plus the
   * reserved pieces), then its persistent volumes (reserved disk made into volume pieces).
   */
  private effectiveTotal(agent: AgentEntity, reservations: readonly ReservationEntity[], volumes: readonly VolumeEntity[]): Resources {
    let total = Resources.of(agent.resources);
    for (const r of reservations) {
      const reserved = Resources.of(r.resources);
      const unreserved = reserved.withReservation(undefined);
      if (total.contains(unreserved)) total = total.minus(unreserved).plus(reserved);
    }
    this.state.volumes.set(agent.id, volumes);
    return withVolumes(total, volumes);
  }

  /** Adds an agent to the allocator with its reservations and volumes (read). */
  async add(agent: AgentEntity, activated: boolean): Promise<void> {
    this.addWith(agent, activated, await this.agents.reservationsOn(agent.id), await this.agents.volumesOn(agent.id));
  }

  /**
   * Gives the allocator an agent in it again with its reservations and volumes as stored now: read
   * first, then taken out and added back in one step, so that what reads the state outside the
   * serial order (the metrics, the REST API) never finds the agent missing.
   */
  async replace(agent: AgentEntity, activated: boolean): Promise<void> {
    const reservations = await this.agents.reservationsOn(agent.id);
    const volumes = await this.agents.volumesOn(agent.id);
    this.state.allocator.removeAgent(agent.id);
    this.addWith(agent, activated, reservations, volumes);
  }

  /** Adds an agent to the allocator with its reservations and volumes as given. */
  addWith(agent: AgentEntity, activated: boolean, reservations: readonly ReservationEntity[], volumes: readonly VolumeEntity[] = []): void {
    const total = this.effectiveTotal(agent, reservations, volumes);
    // The live tasks as they are in memory right now (not as read before an await): a task's end
    // committed after this is recovered from the allocator, one committed before is not counted.
    const used: Array<{ frameworkId: string; role: string; resources: Resources }> = [];
    for (const t of this.state.liveTasks.onAgent(agent.id))
      if (this.state.frameworks.has(t.frameworkId))
        used.push({ frameworkId: t.frameworkId, role: t.role, resources: Resources.of(t.resources) });
    // Executors hold their own resources beside their tasks' until they end.
    for (const e of this.state.executors.onAgent(agent.id))
      if (this.state.frameworks.has(e.frameworkId))
        used.push({ frameworkId: e.frameworkId, role: e.role, resources: Resources.of(e.resources) });
    this.state.allocator.addAgent(agent.id, total, {
      hostname: agent.hostname,
      used,
      activated: activated && agent.activated && !agent.drainState,
      refinedReservations: refinedRoles(reservations),
    });
    this.state.unavailability.delete(agent.id);
    this.registry.addedToAllocator(agent.id);
  }
}

/** The roles whose reservations refine another's (offered only to frameworks with RESERVATION_REFINEMENT). */
function refinedRoles(reservations: readonly ReservationEntity[]): string[] {
  return [...new Set(reservations.filter((r) => r.refines.length > 0).map((r) => r.role))];
}
