/**
 * The allocator's state between cycles: agents, frameworks and their sorters, quota, offer
 * filters, and the path cycles run on. An allocation changes three books at once (the agent's,
 * the sorters', the quota consumption); the methods here keep them in step. The public API
 * (allocator.ts) checks its arguments and calls these; the stages read and offer through them.
 */
import type { Resources } from '../resources';
import { Agent } from './agent';
import type { CyclePath } from './cycle-path';
import { Eligibility } from './eligibility';
import { Frameworks } from './frameworks';
import { type MinAllocatable, minAllocatableToMilli } from './milli';
import { OfferFilters } from './offer-filters';
import { Quotas } from './quotas';
import { createSorter, type SorterFactory } from './sorter-port';
import { type AllocatorConfig, AllocatorError } from './types';

export class AllocatorState {
  readonly agents = new Map<string, Agent>();
  readonly frameworks: Frameworks;
  readonly quotas = new Quotas();
  readonly filters: OfferFilters;
  readonly eligibility: Eligibility;
  /** minAllocatableResources in integer thousandths, computed once. */
  readonly minAllocatable: MinAllocatable;
  readonly inverseOfferResponses = new Map<string, Map<string, 'ACCEPT' | 'DECLINE'>>();
  whitelist: Set<string> | null = null;
  /**
   * Bumped by every change that may let a framework take an agent it passed by before (other
   * than a change of the agent's available resources or the clock): frameworks, roles,
   * capabilities, offer filters removed, quota, an agent's total. See `Agent.passedBy`.
   */
  epoch = 0;
  /** Slots of removed agents, for reuse by the next agents added. */
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;

  constructor(
    readonly config: AllocatorConfig,
    readonly path: CyclePath,
    newSorter: SorterFactory = createSorter,
  ) {
    this.frameworks = new Frameworks(newSorter, config.fairnessExcludeResourceNames);
    this.filters = new OfferFilters(config.allocationIntervalSeconds);
    this.minAllocatable = minAllocatableToMilli(config.minAllocatableResources);
    this.eligibility = new Eligibility(config.filterGpuResources, this.minAllocatable, this.filters, path);
  }

  /** How many slots agents may occupy (per-cycle tables indexed by `Agent.slot` are this long). */
  get slots(): number {
    return this.nextSlot;
  }

  addAgent(
    id: string,
    total: Resources,
    options: { hostname?: string; activated?: boolean; refinedReservations?: Iterable<string> },
  ): Agent {
    const slot = this.freeSlots.pop() ?? this.nextSlot++;
    const agent = new Agent(id, slot, total, this.filters.forAgent(id), options);
    this.agents.set(id, agent);
    this.frameworks.pool.set(id, total.scalarMilli());
    this.quotas.trackReservations(total, 1);
    return agent;
  }

  /** Recovers everything on the agent, then forgets it. */
  removeAgent(agent: Agent): void {
    for (const [fw, byRole] of [...agent.allocations()]) for (const [role, res] of [...byRole]) this.recover(agent, fw, role, res);
    this.quotas.trackReservations(agent.total, -1);
    this.agents.delete(agent.id);
    this.frameworks.pool.set(agent.id, undefined);
    this.filters.agentRemoved(agent);
    this.freeSlots.push(agent.slot);
  }

  setAgentTotal(agent: Agent, total: Resources): void {
    this.epoch++;
    this.quotas.trackReservations(agent.total, -1);
    agent.setTotal(total);
    this.quotas.trackReservations(total, 1);
    this.frameworks.pool.set(agent.id, total.scalarMilli());
  }

  /** Dynamically reserves unallocated, unreserved resources of the agent for `role`. */
  reserve(agent: Agent, role: string, resources: Resources): void {
    const unreserved = resources.unreserved();
    const free = agent.available.unreserved();
    if (!free.contains(unreserved)) {
      throw new AllocatorError(
        'INSUFFICIENT_RESOURCES',
        `agent '${agent.id}' has no ${unreserved.toString()} free and unreserved (free: ${free.toString() || 'nothing'})`,
      );
    }
    this.setAgentTotal(agent, agent.total.minus(unreserved).plus(unreserved.withReservation(role)));
  }

  /** Returns reserved, unallocated resources of the agent to the unreserved pool. */
  unreserve(agent: Agent, role: string, resources: Resources): void {
    const reserved = resources.withReservation(role);
    const free = agent.available.reserved(role);
    if (!free.contains(reserved)) {
      throw new AllocatorError(
        'INSUFFICIENT_RESOURCES',
        `agent '${agent.id}' has no unallocated ${reserved.toString()} reserved for '${role}'`,
      );
    }
    this.setAgentTotal(agent, agent.total.minus(reserved).plus(reserved.withReservation(undefined)));
  }

  /** Offers `resources` on the agent to the framework under the role (they must be available). */
  offer(agent: Agent, fwId: string, role: string, resources: Resources): void {
    agent.decreaseAvailable(fwId, role, resources);
    this.account(agent, fwId, role, resources, 1);
  }

  /** Records resources in use on an agent being added (they may exceed what it has). */
  addUsed(agent: Agent, fwId: string, role: string, resources: Resources): void {
    agent.addUsed(fwId, role, resources);
    this.account(agent, fwId, role, resources, 1);
  }

  /** Gives back resources the framework holds on the agent under the role. */
  recover(agent: Agent, fwId: string, role: string, resources: Resources): void {
    agent.increaseAvailable(fwId, role, resources);
    this.account(agent, fwId, role, resources, -1);
  }

  /** The sorters' and the quota's part of an allocation change. */
  private account(agent: Agent, fwId: string, role: string, resources: Resources, sign: 1 | -1): void {
    this.frameworks.track(fwId, role, agent.id, resources.scalarMilli(), sign, agent.plain ? undefined : resources.sharedScalars());
    this.quotas.trackAllocated(role, agent.plain ? resources.scalarMilli() : resources.unreserved().nonRevocable().scalarMilli(), sign);
  }
}
