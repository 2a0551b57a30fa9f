/**
 * The hierarchical DRF allocator: Mesos's HierarchicalAllocatorProcess without the actor.
 *
 * It owns the allocation state (agents, frameworks, roles, quotas, weights, filters, whitelist,
 * maintenance) and runs cycles on demand: `allocate()` returns offers, inverse offers and,
 * when asked, a decision trace. It never calls out; the caller (the control plane's loop or the
 * scenario runner) decides when to run a cycle and what to do with the result. The clock and
 * the agent-order randomness are injected so that a cycle is reproducible.
 *
 * A cycle follows scenario-format.md ("One allocation cycle"): candidates, stage 1 (quota
 * guarantees, quota-stage.ts), stage 2 (everything else, within limits and headroom,
 * fair-share-stage.ts), inverse offers. This class checks arguments and keeps changes out of a
 * running cycle; the state and its bookkeeping are in state.ts and the modules it composes.
 */
import { isReservationUsableBy, type Resources } from '../resources';
import type { Agent } from './agent';
import { FastPath } from './cycle-path';
import { type FrameworkState, newFramework, offerFiltersToMilli, taskSizeToMilli } from './framework';
import { milliToQuantities, seededRandom } from './milli';
import { placementFor, type PlacementStrategy } from './placement';
import { quotaFromInput } from './quotas';
import { ReferencePath } from './reference-path';
import { runCycle } from './run-cycle';
import { quotasOf, snapshotOf } from './snapshot';
import { AllocatorState } from './state';
import { type DecisionReason, type Quantities, TraceCollector } from './trace';
import {
  type AgentOptions,
  type AllocatorConfig,
  AllocatorError,
  type AllocatorOptions,
  type AllocatorSnapshot,
  type Clock,
  type CycleResult,
  DEFAULT_CONFIG,
} from './types';

export class HierarchicalAllocator {
  readonly config: AllocatorConfig;
  private readonly clock: Clock;
  private readonly state: AllocatorState;
  private readonly placement: PlacementStrategy;
  /** A cycle run in slices is under way (see `cycle`). */
  private running = false;

  constructor(options: AllocatorOptions = {}) {
    this.config = { ...DEFAULT_CONFIG, ...options.config };
    if (!(this.config.allocationIntervalSeconds > 0)) {
      throw new AllocatorError('INVALID_ARGUMENT', 'allocationIntervalSeconds must be positive');
    }
    this.clock = options.clock ?? { now: () => 0 };
    this.placement = (options.placementFactory ?? placementFor)(this.config, options.random ?? seededRandom(1));
    this.state = new AllocatorState(this.config, options.referencePath ? new ReferencePath() : new FastPath(), options.sorterFactory);
  }

  // ---------------------------------------------------------------- agents

  addAgent(id: string, total: Resources, options: AgentOptions = {}): void {
    this.idle();
    if (this.state.agents.has(id)) throw new AllocatorError('DUPLICATE_AGENT', `agent '${id}' already exists`);
    const agent = this.state.addAgent(id, total, options);
    for (const used of options.used ?? []) {
      if (!this.state.frameworks.byId.has(used.frameworkId)) this.addFramework(used.frameworkId, [used.role]);
      this.state.addUsed(agent, used.frameworkId, used.role, used.resources);
    }
  }

  removeAgent(id: string): void {
    this.idle();
    this.state.removeAgent(this.requireAgent(id));
  }

  /** New total (and refined roles, when given); allocations stay (available clamps at 0). Whether anything changed. */
  updateAgent(id: string, total: Resources, refinedReservations?: Iterable<string>): boolean {
    this.idle();
    const agent = this.requireAgent(id);
    const refinedChanged = refinedReservations !== undefined && agent.setRefinedReservations(refinedReservations);
    // What frameworks were passed by for no longer holds when the refined roles change.
    if (refinedChanged) this.state.epoch++;
    if (agent.total.equals(total)) return refinedChanged;
    this.state.setAgentTotal(agent, total);
    return true;
  }

  activateAgent(id: string): void {
    this.idle();
    const agent = this.requireAgent(id);
    agent.activated = true;
    agent.deactivatedForMaintenance = false;
  }

  /** Stops offers from the agent; `maintenance` marks it as down for maintenance in traces. */
  deactivateAgent(id: string, options: { maintenance?: boolean } = {}): void {
    this.idle();
    const agent = this.requireAgent(id);
    agent.activated = false;
    agent.deactivatedForMaintenance = !!options.maintenance;
  }

  /** Hostnames allowed to be offered; `null` means every agent. */
  updateWhitelist(hostnames: Iterable<string> | null): void {
    this.idle();
    this.state.whitelist = hostnames === null ? null : new Set(hostnames);
  }

  /** Schedules (or, with `null`, cancels) unavailability; resets outstanding inverse offers. */
  updateUnavailability(id: string, start: number | null): void {
    this.idle();
    const agent = this.requireAgent(id);
    agent.unavailabilityStart = start ?? undefined;
    agent.inverseOffered.clear();
    this.state.inverseOfferResponses.delete(id);
  }

  /** Records a framework's answer to an inverse offer. */
  respondToInverseOffer(agentId: string, frameworkId: string, accept: boolean): void {
    this.idle();
    this.requireAgent(agentId);
    this.requireFramework(frameworkId);
    const responses = this.state.inverseOfferResponses;
    let byFw = responses.get(agentId);
    if (!byFw) responses.set(agentId, (byFw = new Map<string, 'ACCEPT' | 'DECLINE'>()));
    byFw.set(frameworkId, accept ? 'ACCEPT' : 'DECLINE');
  }

  inverseOfferStatus(agentId: string): Record<string, 'ACCEPT' | 'DECLINE' | 'OUTSTANDING'> {
    const agent = this.requireAgent(agentId);
    const out: Record<string, 'ACCEPT' | 'DECLINE' | 'OUTSTANDING'> = {};
    for (const fw of agent.inverseOffered) out[fw] = 'OUTSTANDING';
    for (const [fw, answer] of this.state.inverseOfferResponses.get(agentId) ?? []) out[fw] = answer;
    return out;
  }

  /** Dynamically reserves unallocated, unreserved resources of the agent for `role`. */
  reserve(agentId: string, role: string, resources: Resources): void {
    this.idle();
    this.state.reserve(this.requireAgent(agentId), role, resources);
  }

  /** Returns reserved, unallocated resources of the agent to the unreserved pool. */
  unreserve(agentId: string, role: string, resources: Resources): void {
    this.idle();
    this.state.unreserve(this.requireAgent(agentId), role, resources);
  }

  // ---------------------------------------------------------------- frameworks

  addFramework(
    id: string,
    roles: string[],
    options: {
      capabilities?: Iterable<string>;
      active?: boolean;
      suppressedRoles?: string[];
      /** Per role, minimum allocatable resources replacing the configured ones (Mesos's OfferFilters). */
      offerFilters?: Record<string, Array<Record<string, number>>>;
      /** Its typical task's scalars: offers are cut to a whole number of such tasks (beyond Mesos). */
      taskSize?: Record<string, number>;
    } = {},
  ): void {
    this.idle();
    const taskSize = taskSizeToMilli(options.taskSize);
    if (this.state.frameworks.byId.has(id)) throw new AllocatorError('DUPLICATE_FRAMEWORK', `framework '${id}' already exists`);
    const fw = newFramework(id, options, taskSize);
    this.state.epoch++;
    this.state.frameworks.byId.set(id, fw);
    for (const role of roles) this.state.frameworks.subscribe(fw, role);
  }

  /** Changes roles, capabilities and offer filters; allocations under dropped roles stay until recovered. */
  updateFramework(
    id: string,
    roles: string[],
    capabilities?: Iterable<string>,
    offerFilters?: Record<string, Array<Record<string, number>>>,
    /** Its typical task's scalars; null: none any more; absent: unchanged. */
    taskSize?: Record<string, number> | null,
  ): void {
    this.idle();
    const fw = this.requireFramework(id);
    const size = taskSize ? taskSizeToMilli(taskSize) : undefined;
    this.state.epoch++;
    if (capabilities) fw.capabilities = new Set(capabilities);
    if (offerFilters) fw.minAllocatable = offerFiltersToMilli(offerFilters);
    if (taskSize !== undefined) fw.taskSize = size;
    for (const role of [...fw.roles]) if (!roles.includes(role)) this.state.frameworks.unsubscribe(fw, role);
    for (const role of roles) if (!fw.roles.has(role)) this.state.frameworks.subscribe(fw, role);
  }

  /** Removes the framework and recovers everything allocated to it. */
  removeFramework(id: string): void {
    this.idle();
    const fw = this.requireFramework(id);
    for (const agent of this.state.agents.values()) {
      const byRole = agent.allocations().get(id);
      if (!byRole) continue;
      for (const [role, res] of [...byRole]) this.state.recover(agent, id, role, res);
      agent.inverseOffered.delete(id);
    }
    for (const role of [...fw.roles]) this.state.frameworks.unsubscribe(fw, role);
    this.clearFilters(fw);
    this.state.frameworks.byId.delete(id);
  }

  activateFramework(id: string): void {
    this.idle();
    const fw = this.requireFramework(id);
    fw.active = true;
    this.state.epoch++;
    this.state.frameworks.refreshActivity(fw);
  }

  /** Stops offers to the framework and clears its offer filters. */
  deactivateFramework(id: string): void {
    this.idle();
    const fw = this.requireFramework(id);
    fw.active = false;
    this.clearFilters(fw);
    this.state.frameworks.refreshActivity(fw);
  }

  suppressOffers(id: string, roles?: string[]): void {
    this.idle();
    const fw = this.requireFramework(id);
    for (const role of roles ?? fw.roles) fw.suppressed.add(role);
    this.state.epoch++;
    this.state.frameworks.refreshActivity(fw);
  }

  /** Resumes offers for the roles and deletes the framework's filters for those roles only. */
  reviveOffers(id: string, roles?: string[]): void {
    this.idle();
    const fw = this.requireFramework(id);
    const revived = new Set(roles ?? fw.roles);
    for (const role of revived) fw.suppressed.delete(role);
    this.clearFilters(fw, revived);
    this.state.frameworks.refreshActivity(fw);
  }

  /**
   * Gives back resources offered or allocated to the framework under `role` on the agent
   * (a declined offer or a finished task). With `refuseSeconds` > 0 installs an offer filter.
   */
  recoverResources(frameworkId: string, agentId: string, role: string, resources: Resources, refuseSeconds?: number): void {
    // Taken in the middle of a cycle run in slices too: resources come back from tasks that end
    // and offers that are answered whenever their writes commit. Between two agents a cycle
    // holds nothing they can invalidate: orders are taken afresh per agent, what an agent
    // remembers keys on its available resources, and the headroom the cycle counted only grows.
    // An agent the cycle has not reached yet offers them in this cycle, the others in the next.
    const agent = this.state.agents.get(agentId);
    const fw = this.state.frameworks.byId.get(frameworkId);
    if (agent && fw) {
      const held = agent.heldBy(frameworkId, role);
      const recovered = held.contains(resources) ? resources : resources.minus(resources.minus(held));
      if (!recovered.isEmpty()) this.state.recover(agent, frameworkId, role, recovered);
    }
    if (!agent || !fw || refuseSeconds === undefined || refuseSeconds === 0 || Number.isNaN(refuseSeconds)) return;
    this.state.filters.install(agent, fw, role, resources, refuseSeconds, this.clock.now());
  }

  // ---------------------------------------------------------------- roles

  setWeight(role: string, weight: number): void {
    this.idle();
    if (!(weight > 0) || !Number.isFinite(weight))
      throw new AllocatorError('INVALID_ARGUMENT', `weight of '${role}' must be a positive number`);
    this.state.epoch++;
    this.state.frameworks.setWeight(role, weight);
  }

  /** Quota of a top-level role; a name missing from `limits` is unlimited. */
  setQuota(role: string, guarantees: Record<string, number>, limits: Record<string, number> = {}): void {
    this.idle();
    if (role.includes('/')) throw new AllocatorError('INVALID_ARGUMENT', `quota applies to top-level roles; '${role}' is nested`);
    this.state.quotas.set(role, quotaFromInput(role, guarantees, limits));
    this.state.epoch++;
  }

  removeQuota(role: string): void {
    this.idle();
    this.state.quotas.remove(role);
    this.state.epoch++;
  }

  // ---------------------------------------------------------------- reads

  /** Everything offered or allocated on the agent, by framework and role. */
  allocationsOn(agentId: string): Array<{ frameworkId: string; role: string; resources: Resources }> {
    const agent = this.requireAgent(agentId);
    return [...agent.allocations()].flatMap(([frameworkId, byRole]) =>
      [...byRole].map(([role, resources]) => ({ frameworkId, role, resources })),
    );
  }

  availableOn(agentId: string): Resources {
    return this.requireAgent(agentId).available;
  }

  /** Weighted dominant shares as the sorters see them: per role and per (role, framework). */
  shares(): { roles: Record<string, number>; frameworks: Record<string, Record<string, number>> } {
    return this.state.frameworks.shares();
  }

  /** Quota consumption of a top-level role, as quantities. */
  quotaConsumed(role: string): Quantities {
    return milliToQuantities(this.state.quotas.consumed(role));
  }

  hasAgent(id: string): boolean {
    return this.state.agents.has(id);
  }

  /** Quota per top-level role: guarantees and limits (quantities). */
  quotaOf(): Record<string, { guarantees: Quantities; limits: Quantities }> {
    return quotasOf(this.state.quotas);
  }

  /** Offer filters held (declines with refuse seconds not yet expired, or not yet looked at since). */
  filterCount(): number {
    return this.state.filters.count();
  }

  /**
   * The allocation state as plain data (agents with what is offered or allocated on them,
   * frameworks, weights, quota, whitelist, config), for what-if questions: `restoreAllocator`
   * builds an allocator in the same state. Offer filters and inverse-offer answers are left out.
   */
  snapshot(): AllocatorSnapshot {
    return snapshotOf(this.state);
  }

  hasFramework(id: string): boolean {
    return this.state.frameworks.byId.has(id);
  }

  // ---------------------------------------------------------------- the cycle

  /** Runs one allocation cycle over `agents` (default: all). */
  allocate(options: { agents?: Iterable<string>; trace?: boolean } = {}): CycleResult {
    const step = this.cycle(options).next();
    if (!step.done) throw new Error('a cycle that never pauses paused');
    return step.value;
  }

  /**
   * A cycle that can be run in slices. `pause` is asked before each agent; when it answers true
   * the run yields, and the caller resumes it with `next()` (a control plane gives its event
   * loop back in between). Until the run is done the allocator refuses every change but
   * `recoverResources` (CYCLE_RUNNING), as Mesos's allocator actor handles no other message
   * while it allocates: the caller queues changes behind the cycle. `allocate` is this run
   * without pauses.
   */
  *cycle(
    options: { agents?: Iterable<string>; trace?: boolean } = {},
    pause: () => boolean = () => false,
  ): Generator<void, CycleResult, void> {
    this.idle();
    this.running = true;
    try {
      const trace = options.trace ? new TraceCollector(this.config.traceLimit) : undefined;
      return yield* runCycle(this.state, this.placement, this.clock.now(), trace, options.agents, pause);
    } finally {
      this.running = false;
    }
  }

  /** Whether a cycle run in slices is under way. */
  get cycleRunning(): boolean {
    return this.running;
  }

  // ---------------------------------------------------------------- internals

  /** Refuses a change while a cycle run in slices is under way. */
  private idle(): void {
    if (this.running) throw new AllocatorError('CYCLE_RUNNING', 'the allocator is in the middle of a cycle; changes wait for its end');
  }

  /** Deletes the framework's offer filters: all, or those under `roles`. */
  private clearFilters(fw: FrameworkState, roles?: ReadonlySet<string>): void {
    this.state.epoch++;
    this.state.filters.clear(fw, roles);
  }

  private requireAgent(id: string): Agent {
    const agent = this.state.agents.get(id);
    if (!agent) throw new AllocatorError('UNKNOWN_AGENT', `unknown agent '${id}'`);
    return agent;
  }

  private requireFramework(id: string): FrameworkState {
    const fw = this.state.frameworks.byId.get(id);
    if (!fw) throw new AllocatorError('UNKNOWN_FRAMEWORK', `unknown framework '${id}'`);
    return fw;
  }
}

export { isReservationUsableBy };
export type { DecisionReason };
