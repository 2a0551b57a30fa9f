/**
 * One cycle's scratch: the offers made so far (one per framework, role and agent, in the order
 * first made), the shared volumes offered per agent, and the quota headroom still required and
 * still available. Made at the start of a cycle and dropped at its end; nothing of it is kept
 * on the agents.
 */
import { Resources } from '../resources';
import type { Agent } from './agent';
import type { FrameworkState } from './framework';
import { addMilli } from './milli';
import type { AllocatorState } from './state';
import type { TraceCollector } from './trace';
import type { InverseOffer, Offer } from './types';

export class Cycle {
  readonly offers: Offer[] = [];
  /** Shared volumes offered in this cycle, per agent id. */
  readonly offeredShared = new Map<string, Resources>();
  /** Per agent slot, the index of its latest offer (-1: none yet); offers on one agent are linked by `previousOnAgent`. */
  private readonly lastOnAgent: Int32Array;
  private readonly previousOnAgent: number[] = [];

  constructor(
    private readonly state: AllocatorState,
    readonly now: number,
    readonly trace: TraceCollector | undefined,
    /** Unmet guarantees, summed over roles (milli); kept current as offers meet them. */
    readonly requiredHeadroom: Map<string, number>,
    /** Unreserved non-revocable scalars available on all agents (only while headroom is required). */
    readonly availableHeadroom: Map<string, number>,
  ) {
    this.lastOnAgent = new Int32Array(state.slots).fill(-1);
  }

  /** Starts a cycle: the headroom required now and, only then, what is available for it. */
  static start(state: AllocatorState, now: number, trace: TraceCollector | undefined): Cycle {
    const required = state.quotas.requiredHeadroom();
    // Only needed while some guarantee is unmet (it is a pass over every agent).
    const available = new Map<string, number>();
    if (required.size > 0)
      for (const agent of state.agents.values()) addMilli(available, agent.available.unreserved().nonRevocable().scalarMilli());
    return new Cycle(state, now, trace, required, available);
  }

  /** Offers `resources` on the agent to the framework under the role, merged into its offer there if any. */
  offer(agent: Agent, fw: FrameworkState, role: string, resources: Resources): void {
    this.state.offer(agent, fw.id, role, resources);
    const shared = this.state.path.sharedIn(agent, resources);
    if (!shared.isEmpty()) this.offeredShared.set(agent.id, (this.offeredShared.get(agent.id) ?? Resources.empty()).plus(shared));
    if (this.availableHeadroom.size > 0 && this.requiredHeadroom.size > 0) {
      addMilli(this.availableHeadroom, agent.plain ? resources.scalarMilli() : resources.unreserved().nonRevocable().scalarMilli(), -1);
    }
    const offers = this.offers;
    for (let i = this.lastOnAgent[agent.slot]; i >= 0; i = this.previousOnAgent[i]) {
      const existing = offers[i];
      if (existing.frameworkId === fw.id && existing.role === role) {
        offers[i] = { frameworkId: fw.id, role, agentId: agent.id, resources: existing.resources.plus(resources) };
        return;
      }
    }
    this.previousOnAgent.push(this.lastOnAgent[agent.slot]);
    this.lastOnAgent[agent.slot] = offers.length;
    offers.push({ frameworkId: fw.id, role, agentId: agent.id, resources });
  }

  /** Inverse offers for the candidates under scheduled unavailability: one per active framework holding something there. */
  inverseOffers(candidates: readonly Agent[]): InverseOffer[] {
    const out: InverseOffer[] = [];
    for (const agent of candidates) {
      if (agent.unavailabilityStart === undefined) continue;
      for (const [fwId, byRole] of agent.allocations()) {
        const fw = this.state.frameworks.byId.get(fwId);
        if (!fw || !fw.active || agent.inverseOffered.has(fwId) || byRole.size === 0) continue;
        agent.inverseOffered.add(fwId);
        out.push({ frameworkId: fwId, agentId: agent.id, start: agent.unavailabilityStart });
      }
    }
    return out;
  }
}
