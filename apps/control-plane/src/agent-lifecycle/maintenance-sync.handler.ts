/**
 * The maintenance schedule as the allocator sees it: machines DOWN get no offers and their
 * agents are shut down (as Mesos does when maintenance starts), machines DRAINING get inverse
 * offers from their window's start. A machine matches an agent by hostname or by the IP the
 * agent connects from.
 */
import { Inject, Injectable } from '@nestjs/common';
import { AgentSessionsRepository } from './agent-sessions.repository';
import { CLOCK, type Clock } from '../kernel/clock';
import { type AgentRuntime, ClusterState } from '../master/cluster-state';
import { InverseOffers } from '../allocation/inverse-offers.handler';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { MachineMode, type MaintenanceMachineEntity } from '../maintenance/maintenance-machine.entity';
import { MaintenanceStateRepository } from '../maintenance/maintenance-state.repository';

@Injectable()
export class MaintenanceSync {
  /** The schedule's machines by hostname and by IP, as last read (every change re-reads it). */
  private byHost = new Map<string, MaintenanceMachineEntity>();
  private byIp = new Map<string, MaintenanceMachineEntity>();
  /** Told of each agent whose machine has just gone DOWN. */
  private readonly downListeners: Array<(agentId: string) => Promise<void>> = [];

  constructor(
    private readonly state: ClusterState,
    private readonly maintenance: MaintenanceStateRepository,
    private readonly agents: AgentSessionsRepository,
    private readonly offers: OfferRescinds,
    private readonly inverseOffers: InverseOffers,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Whether the agent's machine is DOWN for maintenance (by hostname or IP). */
  isDown(agent: { hostname: string; ip?: string }): boolean {
    return this.state.downHosts.has(agent.hostname) || (agent.ip !== undefined && this.state.downIps.has(agent.ip));
  }

  /** Calls `listener` (in the same turn) for each agent whose machine goes DOWN. */
  onDown(listener: (agentId: string) => Promise<void>): void {
    this.downListeners.push(listener);
  }

  private machineOf(agent: { hostname: string; ip?: string }): MaintenanceMachineEntity | undefined {
    return this.byHost.get(agent.hostname) ?? (agent.ip !== undefined ? this.byIp.get(agent.ip) : undefined);
  }

  /** Applies the schedule as stored to every agent in the allocator (after the schedule changed). */
  async apply(): Promise<void> {
    const machines = await this.maintenance.machines();
    this.byHost = new Map(machines.filter((m) => m.hostname !== '').map((m) => [m.hostname, m]));
    this.byIp = new Map(machines.filter((m) => m.ip !== '').map((m) => [m.ip, m]));
    const wasDown = new Set([...this.state.agents.values()].filter((a) => this.isDown(a)).map((a) => a.id));
    const down = machines.filter((m) => m.mode === MachineMode.DOWN);
    this.state.downHosts = new Set(down.filter((m) => m.hostname !== '').map((m) => m.hostname));
    this.state.downIps = new Set(down.filter((m) => m.ip !== '').map((m) => m.ip));
    for (const agent of [...this.state.agents.values()]) await this.applyTo(agent, wasDown);
  }

  /**
   * Applies the schedule as last read to one agent (it just joined the allocator): no read,
   * no walk over the other agents, so registering N agents costs N, not N squared.
   */
  async applyToAgent(agentId: string): Promise<void> {
    const agent = this.state.agents.get(agentId);
    if (agent) await this.applyTo(agent, new Set(this.isDown(agent) ? [agent.id] : []));
  }

  /** `wasDown`: ids of the agents whose machine was DOWN before this change. */
  private async applyTo(agent: AgentRuntime, wasDown: ReadonlySet<string>): Promise<void> {
    if (!agent.inAllocator) return;
    const { allocator, unavailability } = this.state;
    const m = this.machineOf(agent);
    if (m?.mode === MachineMode.DOWN) {
      allocator.deactivateAgent(agent.id, { maintenance: true });
      await this.offers.onAgent(agent.id, 'the agent is down for maintenance');
      // Just gone DOWN: its agent is shut down (and out of the allocator).
      if (!wasDown.has(agent.id)) for (const listener of this.downListeners) await listener(agent.id);
      if (!allocator.hasAgent(agent.id)) return;
    } else if (wasDown.has(agent.id)) {
      // Back from maintenance: offered again if nothing else keeps it out.
      const row = await this.agents.find(agent.id);
      if (row?.activated && !row.drainState && agent.socket) allocator.activateAgent(agent.id);
    }
    // Only a changed window resets the inverse offers (and the answers to them).
    const nowMs = this.clock.date().getTime();
    const start = m?.mode === MachineMode.DRAINING ? (m.window?.startAt.getTime() ?? nowMs) : null;
    if (unavailability.get(agent.id) !== start) {
      // Inverse offers made for the old window (if any) no longer hold.
      if (unavailability.has(agent.id))
        this.inverseOffers.rescindOnAgent(agent.id, start === null ? 'the maintenance was cancelled' : 'the maintenance window changed');
      unavailability.set(agent.id, start);
      allocator.updateUnavailability(agent.id, start === null ? null : this.state.seconds() + (start - nowMs) / 1000);
    }
  }
}
