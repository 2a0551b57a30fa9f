/**
 * The maintenance schedule as the allocator sees it: machines DOWN get no offers, machines
 * DRAINING get inverse offers from their window's start. Matched to agents by hostname.
 */
import { Inject, Injectable } from '@nestjs/common';
import { AgentSessionsRepository } from '../agents/agent-sessions.repository';
import { CLOCK, type Clock } from '../kernel/clock';
import { type AgentRuntime, ClusterState } from '../kernel/cluster-state';
import { OfferBook } from '../offers/offer-book.handler';
import { MachineMode, type MaintenanceMachineEntity } from './maintenance-machine.entity';
import { MaintenanceStateRepository } from './maintenance-state.repository';

@Injectable()
export class MaintenanceSync {
  /** The schedule's machines by hostname, as last read (every change re-reads it). */
  private byHost = new Map<string, MaintenanceMachineEntity>();

  constructor(
    private readonly state: ClusterState,
    private readonly maintenance: MaintenanceStateRepository,
    private readonly agents: AgentSessionsRepository,
    private readonly offers: OfferBook,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Whether the machine is DOWN for maintenance. */
  isDown(hostname: string): boolean {
    return this.state.downHosts.has(hostname);
  }

  /** Applies the schedule as stored to every agent in the allocator (after the schedule changed). */
  async apply(): Promise<void> {
    const machines = await this.maintenance.machines();
    this.byHost = new Map(machines.map((m) => [m.hostname, m]));
    const wasDown = this.state.downHosts;
    this.state.downHosts = new Set(machines.filter((m) => m.mode === MachineMode.DOWN).map((m) => m.hostname));
    for (const agent of this.state.agents.values()) await this.applyTo(agent, wasDown);
  }

  /**
   * Applies the schedule as last read to one agent (it just joined the allocator): no read,
   * no walk over the other agents, so registering N agents costs N, not N squared.
   */
  async applyToAgent(agentId: string): Promise<void> {
    const agent = this.state.agents.get(agentId);
    if (agent) await this.applyTo(agent, this.state.downHosts);
  }

  private async applyTo(agent: AgentRuntime, wasDown: ReadonlySet<string>): Promise<void> {
    if (!agent.inAllocator) return;
    const { allocator, unavailability } = this.state;
    const m = this.byHost.get(agent.hostname);
    if (m?.mode === MachineMode.DOWN) {
      allocator.deactivateAgent(agent.id, { maintenance: true });
      await this.offers.rescindWhere((o) => o.agentId === agent.id, 'the agent is down for maintenance');
    } else if (wasDown.has(agent.hostname)) {
      // Back from maintenance: offered again if nothing else keeps it out.
      const row = await this.agents.find(agent.id);
      if (row?.activated && !row.drainState && agent.socket) allocator.activateAgent(agent.id);
    }
    // Only a changed window resets the inverse offers (and the answers to them).
    const nowMs = this.clock.date().getTime();
    const start = m?.mode === MachineMode.DRAINING ? (m.window?.startAt.getTime() ?? nowMs) : null;
    if (unavailability.get(agent.id) !== start) {
      unavailability.set(agent.id, start);
      allocator.updateUnavailability(agent.id, start === null ? null : this.state.seconds() + (start - nowMs) / 1000);
    }
  }
}
