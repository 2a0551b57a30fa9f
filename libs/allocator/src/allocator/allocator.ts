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
 * guarantees), stage 2 (everything else, within limits and headroom), inverse offers.
 */
import { isReservationUsableBy, type ResourceEntry, Resources } from '../resources';
import { ArrayCursor, type SortCursor, SorterPool } from '../sorter';
import { type ClientSorter, createSorter, type SorterFactory } from './sorter-port';
import { type DecisionReason, type DecisionTrace, type Quantities, type ReasonCode, TraceCollector } from './trace';

export type Capability = 'REVOCABLE_RESOURCES' | 'GPU_RESOURCES' | 'SHARED_RESOURCES' | (string & {});

export interface AllocatorConfig {
  /** Period of the batch allocation, in seconds (Mesos default 1). */
  allocationIntervalSeconds: number;
  /** An offer must hold all quantities of at least one set (Mesos default cpus:0.01 or mem:32). */
  minAllocatableResources: Array<Record<string, number>>;
  /** Resource names ignored when computing shares. */
  fairnessExcludeResourceNames: string[];
  /** When true, frameworks without GPU_RESOURCES are never offered agents that have gpus. */
  filterGpuResources: boolean;
  /** Shuffle agents per stage as Mesos does (seeded by `random`); off gives insertion order. */
  shuffleAgents: boolean;
  /**
   * Which agents are offered first. `mesos`: Mesos's order (shuffled when `shuffleAgents`,
   * whole agents). `pack`: the most used agents first (by their largest used fraction of any
   * scalar resource), and among equally used ones the smallest first, so that small tasks fill
   * machines already in use and big free machines stay whole for big tasks (docs/allocator.md).
   */
  placement: 'mesos' | 'pack';
  /** Most trace entries kept per cycle; beyond it only per-reason counts grow. */
  traceLimit: number;
}

export const DEFAULT_CONFIG: AllocatorConfig = {
  allocationIntervalSeconds: 1,
  minAllocatableResources: [{ cpus: 0.01 }, { mem: 32 }],
  fairnessExcludeResourceNames: [],
  filterGpuResources: true,
  shuffleAgents: true,
  placement: 'mesos',
  traceLimit: 1000,
};

/** Seconds since an arbitrary epoch; scenarios start at 0. */
export interface Clock {
  now(): number;
}

export interface AllocatorOptions {
  config?: Partial<AllocatorConfig>;
  clock?: Clock;
  /** Uniform in [0, 1); inject a seeded generator for reproducible agent order. */
  random?: () => number;
  sorterFactory?: SorterFactory;
  /**
   * Runs cycles the reference way, as before the fast paths: sorters' full orders, offer
   * filters checked pair by pair with nothing remembered between cycles, quota cuts through
   * resource entries. Same offers, slower; the allocator bench's `--check` compares the two.
   */
  referencePath?: boolean;
}

export interface Offer {
  frameworkId: string;
  role: string;
  agentId: string;
  resources: Resources;
}

export interface InverseOffer {
  frameworkId: string;
  agentId: string;
  /** Start of the agent's unavailability, in clock seconds. */
  start: number;
}

export interface CycleResult {
  offers: Offer[];
  inverseOffers: InverseOffer[];
  trace?: DecisionTrace;
}

/** An allocator's state as plain data (see HierarchicalAllocator.snapshot). */
export interface AllocatorSnapshot {
  config: AllocatorConfig;
  agents: Array<{
    id: string;
    hostname: string;
    total: ResourceEntry[];
    activated: boolean;
    maintenance: boolean;
    used: Array<{ frameworkId: string; role: string; resources: ResourceEntry[] }>;
  }>;
  frameworks: Array<{
    id: string;
    roles: string[];
    capabilities: string[];
    active: boolean;
    suppressedRoles: string[];
    offerFilters?: Record<string, Array<Record<string, number>>>;
    taskSize?: Record<string, number>;
  }>;
  weights: Record<string, number>;
  quotas: Record<string, { guarantees: Quantities; limits: Quantities }>;
  whitelist: string[] | null;
}

/** A new allocator in the state of `snapshot` (on `options`' clock and randomness). */
export function restoreAllocator(snapshot: AllocatorSnapshot, options: Omit<AllocatorOptions, 'config'> = {}): HierarchicalAllocator {
  const allocator = new HierarchicalAllocator({ ...options, config: snapshot.config });
  for (const f of snapshot.frameworks)
    allocator.addFramework(f.id, f.roles, {
      capabilities: f.capabilities,
      active: f.active,
      suppressedRoles: f.suppressedRoles,
      offerFilters: f.offerFilters,
      taskSize: f.taskSize,
    });
  for (const [role, weight] of Object.entries(snapshot.weights)) allocator.setWeight(role, weight);
  for (const [role, q] of Object.entries(snapshot.quotas)) allocator.setQuota(role, q.guarantees, q.limits);
  allocator.updateWhitelist(snapshot.whitelist);
  for (const a of snapshot.agents) {
    allocator.addAgent(a.id, Resources.of(a.total), {
      hostname: a.hostname,
      activated: a.activated,
      used: a.used.map((u) => ({ frameworkId: u.frameworkId, role: u.role, resources: Resources.of(u.resources) })),
    });
    if (a.maintenance) allocator.deactivateAgent(a.id, { maintenance: true });
  }
  return allocator;
}

export interface UsedResources {
  frameworkId: string;
  role: string;
  resources: Resources;
}

export class AllocatorError extends Error {
  constructor(
    readonly code:
      | 'UNKNOWN_AGENT'
      | 'UNKNOWN_FRAMEWORK'
      | 'DUPLICATE_AGENT'
      | 'DUPLICATE_FRAMEWORK'
      | 'INVALID_ARGUMENT'
      | 'INSUFFICIENT_RESOURCES'
      | 'CYCLE_RUNNING',
    message: string,
  ) {
    super(message);
    this.name = 'AllocatorError';
  }
}

interface AgentState {
  id: string;
  hostname: string;
  total: Resources;
  /** Sum of everything offered or allocated on the agent. */
  allocated: Resources;
  /** total - allocated, kept current by every change (the hot path reads it per framework). */
  available: Resources;
  /** `available` before the last offer or allocation on the agent. */
  availableBefore?: Resources;
  /** `allocated` is within `total` (not over-allocated) and the agent has nothing shared. */
  allocatedFits: boolean;
  /** The cycle `offerIndexes` belong to. */
  offersCycle: number;
  /** Indexes, in that cycle's offers, of the offers made on this agent (the first `offerCount`). */
  offerIndexes: number[];
  offerCount: number;
  /** Total has only unreserved, non-revocable, non-shared pieces: offers need no splitting. */
  plain: boolean;
  hasShared: boolean;
  /** frameworkId -> role -> resources. */
  allocations: Map<string, Map<string, Resources>>;
  activated: boolean;
  deactivatedForMaintenance: boolean;
  unavailabilityStart?: number;
  inverseOffered: Set<string>;
  hasGpus: boolean;
  /** Offer filters on this agent (shared with `filtersByAgent`, which outlives the agent). */
  filters: AgentFilters;
  /**
   * Per role, the frameworks that passed the agent by in stage 2 (filtered, below their
   * minimum, or missing a capability), and whether all did: while nothing that depended on
   * has changed, they would again.
   */
  passedBy: Map<string, PassedBy>;
}

interface Filter {
  resources: Resources;
  installedAt: number;
  refuseSeconds: number;
  duration: number;
  /** The last resources (by identity; they are immutable) found within `resources`. */
  covers?: Resources;
}

/** role -> framework -> that framework's filters for the agent under the role. */
type AgentFilters = Map<string, Map<FrameworkState, Filter[]>>;

interface PassedBy {
  /** The agent's available resources then (by identity). */
  available: Resources;
  /** The allocator's `epoch` then. */
  epoch: number;
  /** Good while the clock is before this: the earliest end of the filters relied on. */
  until: number;
  /** Frameworks (by id) that passed the agent by, and why. */
  blocked: Map<string, ReasonCode>;
  /** Every framework of the role passed it by. */
  all: boolean;
  /** When `all`: how many frameworks passed it by, per reason (for a trace's counts). */
  reasons: Array<[ReasonCode, number]>;
}

interface FrameworkState {
  id: string;
  roles: Set<string>;
  capabilities: Set<string>;
  active: boolean;
  suppressed: Set<string>;
  /** Per role, minimum allocatable resources replacing the configured ones (Mesos's OfferFilters), in milli. */
  minAllocatable: Map<string, Array<Array<[string, number]>>>;
  /** Agents (by id) this framework may hold offer filters on. */
  filteredAgents: Set<string>;
  /** Its typical task (scalars, milli): its offers are cut to a whole number of them (see `cutToFit`). */
  taskSize?: Map<string, number>;
}

interface QuotaState {
  guarantees: Map<string, number>; // milli
  limits: Map<string, number>; // milli; absent = unlimited
}

const YEAR_SECONDS = 365 * 24 * 3600;
const EMPTY_MILLI: ReadonlyMap<string, number> = new Map();
const NONE: readonly string[] = [];
const topLevel = (role: string) => {
  const i = role.indexOf('/');
  return i < 0 ? role : role.slice(0, i);
};
const ancestorsAndSelf = (role: string): string[] => {
  const parts = role.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
};

function milliToQuantities(m: ReadonlyMap<string, number>): Quantities {
  const out: Quantities = {};
  for (const [k, v] of m) if (v !== 0) out[k] = v / 1000;
  return out;
}

function quantitiesToMilli(q: Readonly<Record<string, number>> | ReadonlyMap<string, number>, what: string): Map<string, number> {
  const out = new Map<string, number>();
  const items: Array<[string, unknown]> = q instanceof Map ? [...(q as ReadonlyMap<string, number>)] : Object.entries(q);
  for (const [name, value] of items) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new AllocatorError('INVALID_ARGUMENT', `${what}: '${name}' must be a non-negative number`);
    }
    const m = Math.round(value * 1000);
    if (m > 0) out.set(name, m);
  }
  return out;
}

function addMilli(into: Map<string, number>, q: ReadonlyMap<string, number>, sign = 1): void {
  for (const [k, v] of q) {
    const next = (into.get(k) ?? 0) + sign * v;
    if (next === 0) into.delete(k);
    else into.set(k, next);
  }
}

/**
 * Cuts the unreserved, non-revocable, non-shared scalars of `r` down to `caps` (milli per
 * name). Names absent from `caps` are kept whole when `absentIsUnlimited`, else dropped.
 */
function shrinkScalars(r: Resources, caps: ReadonlyMap<string, number>, absentIsUnlimited: boolean): Resources {
  const entries = r.entries().flatMap((e) => {
    if (e.value === undefined) return [e];
    const cap = caps.get(e.name);
    if (cap === undefined) return absentIsUnlimited ? [e] : [];
    const value = Math.min(Math.round(e.value * 1000), Math.max(0, cap)) / 1000;
    return value > 0 ? [{ ...e, value }] : [];
  });
  return Resources.of(entries);
}

/** Minimum allocatable quantity sets in integer thousandths. */
function minAllocatableToMilli(sets: Array<Record<string, number>>): Array<Array<[string, number]>> {
  return sets.map((set) => Object.entries(set).map(([name, min]): [string, number] => [name, Math.round(min * 1000)]));
}

/** A task size's scalars in milli (amounts under a thousandth drop out); refuses what is not a positive amount. */
function taskSizeToMilli(size: Record<string, number> | undefined): Map<string, number> | undefined {
  if (!size) return undefined;
  for (const [name, v] of Object.entries(size))
    if (!(v > 0)) throw new AllocatorError('INVALID_ARGUMENT', `task size ${name} must be a positive amount (got ${String(v)})`);
  const milli = quantitiesToMilli(size, 'task size');
  return milli.size ? milli : undefined;
}

function offerFiltersToMilli(filters: Record<string, Array<Record<string, number>>> = {}): Map<string, Array<Array<[string, number]>>> {
  return new Map(Object.entries(filters).map(([role, sets]) => [role, minAllocatableToMilli(sets)]));
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seedable uniform generator in [0, 1) for reproducible agent order. */
export function seededRandom(seed: number): () => number {
  return mulberry32(seed);
}

export class HierarchicalAllocator {
  readonly config: AllocatorConfig;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly newSorter: SorterFactory;

  private readonly agents = new Map<string, AgentState>();
  /** Per role, its inactive and its suppressed frameworks, counted for a full trace (this cycle). */
  private readonly inactiveCounts = new Map<string, [number, number]>();
  private readonly frameworks = new Map<string, FrameworkState>();
  /** role -> frameworks subscribed to it. */
  private readonly roleFrameworks = new Map<string, Set<string>>();
  private readonly roleSorter: ClientSorter;
  private readonly frameworkSorters = new Map<string, ClientSorter>();
  private readonly quotas = new Map<string, QuotaState>();
  private readonly weights = new Map<string, number>();
  private whitelist: Set<string> | null = null;
  /** Per quota'd top-level role: unreserved non-revocable scalars allocated (milli). */
  private readonly consumedAllocated = new Map<string, Map<string, number>>();
  /** Per top-level role: scalar reservations on all agents (milli). */
  private readonly consumedReserved = new Map<string, Map<string, number>>();
  /** Cluster totals shared by every sorter. */
  private readonly pool = new SorterPool();
  /** minAllocatableResources in integer thousandths, computed once. */
  private readonly minAllocatable: Array<Array<[string, number]>>;
  private readonly inverseOfferResponses = new Map<string, Map<string, 'ACCEPT' | 'DECLINE'>>();
  /**
   * Offer filters by agent id. They are kept by id, not with the agent's state: as before,
   * a removed agent's filters under roles its frameworks no longer hold stay, and apply if an
   * agent of the same id comes back.
   */
  private readonly filtersByAgent = new Map<string, AgentFilters>();
  /**
   * Bumped by every change that may let a framework take an agent it passed by before (other
   * than a change of the agent's available resources or the clock): frameworks, roles,
   * capabilities, offer filters removed, quota, an agent's total. See `AgentState.passedBy`.
   */
  private epoch = 0;
  /** Cycles run so far. */
  private cycles = 0;
  /** The last isAllocatable question and its answer (resources and minimum by identity). */
  private readonly lastAllocatable: {
    resources?: Resources;
    minAllocatable?: Array<Array<[string, number]>>;
    result: boolean;
  } = { result: false };
  private readonly reference: boolean;
  /** Per role: itself and its ancestors that have quota limits (cleared when quota changes). */
  private readonly limitedAncestorsCache = new Map<string, string[]>();
  /** A cycle run in slices is under way (see `cycle`). */
  private running = false;

  constructor(options: AllocatorOptions = {}) {
    this.config = { ...DEFAULT_CONFIG, ...options.config };
    if (!(this.config.allocationIntervalSeconds > 0)) {
      throw new AllocatorError('INVALID_ARGUMENT', 'allocationIntervalSeconds must be positive');
    }
    this.clock = options.clock ?? { now: () => 0 };
    this.random = options.random ?? mulberry32(1);
    this.newSorter = options.sorterFactory ?? createSorter;
    this.minAllocatable = minAllocatableToMilli(this.config.minAllocatableResources);
    this.roleSorter = this.newSorter(this.config.fairnessExcludeResourceNames, this.pool);
    this.reference = options.referencePath ?? false;
  }

  // ---------------------------------------------------------------- agents

  addAgent(id: string, total: Resources, options: { hostname?: string; used?: UsedResources[]; activated?: boolean } = {}): void {
    this.idle();
    if (this.agents.has(id)) throw new AllocatorError('DUPLICATE_AGENT', `agent '${id}' already exists`);
    const agent: AgentState = {
      id,
      hostname: options.hostname ?? id,
      total,
      allocated: Resources.empty(),
      available: total,
      plain: total.isPlain(),
      hasShared: !total.shared().isEmpty(),
      allocations: new Map(),
      activated: options.activated ?? true,
      deactivatedForMaintenance: false,
      inverseOffered: new Set(),
      hasGpus: total.get('gpus') > 0,
      filters: this.agentFilters(id),
      passedBy: new Map(),
      allocatedFits: total.shared().isEmpty(),
      offersCycle: 0,
      offerIndexes: [],
      offerCount: 0,
    };
    this.agents.set(id, agent);
    this.setPool(id, total);
    this.trackReservations(total, 1);
    for (const used of options.used ?? []) {
      if (!this.frameworks.has(used.frameworkId)) this.addFramework(used.frameworkId, [used.role]);
      this.trackAllocation(agent, used.frameworkId, used.role, used.resources, 1);
    }
  }

  removeAgent(id: string): void {
    this.idle();
    const agent = this.requireAgent(id);
    for (const [fw, byRole] of [...agent.allocations]) {
      for (const [role, res] of [...byRole]) this.trackAllocation(agent, fw, role, res, -1);
    }
    this.trackReservations(agent.total, -1);
    this.agents.delete(id);
    this.setPool(id, undefined);
    // The filters of its frameworks under the roles they hold go with the agent.
    for (const [role, byFw] of agent.filters) {
      for (const fw of [...byFw.keys()]) if (fw.roles.has(role)) byFw.delete(fw);
      if (byFw.size === 0) agent.filters.delete(role);
    }
    if (agent.filters.size === 0) this.filtersByAgent.delete(id);
  }

  /** New total; allocations stay, so an agent may end up over-allocated (available clamps at 0). */
  updateAgent(id: string, total: Resources): boolean {
    this.idle();
    const agent = this.requireAgent(id);
    if (agent.total.equals(total)) return false;
    this.updateAgentTotal(agent, total);
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
    this.whitelist = hostnames === null ? null : new Set(hostnames);
  }

  /** Schedules (or, with `null`, cancels) unavailability; resets outstanding inverse offers. */
  updateUnavailability(id: string, start: number | null): void {
    this.idle();
    const agent = this.requireAgent(id);
    agent.unavailabilityStart = start ?? undefined;
    agent.inverseOffered.clear();
    this.inverseOfferResponses.delete(id);
  }

  /** Records a framework's answer to an inverse offer. */
  respondToInverseOffer(agentId: string, frameworkId: string, accept: boolean): void {
    this.idle();
    this.requireAgent(agentId);
    this.requireFramework(frameworkId);
    let byFw = this.inverseOfferResponses.get(agentId);
    if (!byFw) this.inverseOfferResponses.set(agentId, (byFw = new Map<string, 'ACCEPT' | 'DECLINE'>()));
    byFw.set(frameworkId, accept ? 'ACCEPT' : 'DECLINE');
  }

  inverseOfferStatus(agentId: string): Record<string, 'ACCEPT' | 'DECLINE' | 'OUTSTANDING'> {
    const agent = this.requireAgent(agentId);
    const out: Record<string, 'ACCEPT' | 'DECLINE' | 'OUTSTANDING'> = {};
    for (const fw of agent.inverseOffered) out[fw] = 'OUTSTANDING';
    for (const [fw, answer] of this.inverseOfferResponses.get(agentId) ?? []) out[fw] = answer;
    return out;
  }

  /** Dynamically reserves unallocated, unreserved resources of the agent for `role`. */
  reserve(agentId: string, role: string, resources: Resources): void {
    this.idle();
    const agent = this.requireAgent(agentId);
    const unreserved = resources.unreserved();
    const free = this.available(agent).unreserved();
    if (!free.contains(unreserved)) {
      throw new AllocatorError(
        'INSUFFICIENT_RESOURCES',
        `agent '${agentId}' has no ${unreserved.toString()} free and unreserved (free: ${free.toString() || 'nothing'})`,
      );
    }
    this.updateAgentTotal(agent, agent.total.minus(unreserved).plus(unreserved.withReservation(role)));
  }

  /** Returns reserved, unallocated resources of the agent to the unreserved pool. */
  unreserve(agentId: string, role: string, resources: Resources): void {
    this.idle();
    const agent = this.requireAgent(agentId);
    const reserved = resources.withReservation(role);
    const free = this.available(agent).reserved(role);
    if (!free.contains(reserved)) {
      throw new AllocatorError(
        'INSUFFICIENT_RESOURCES',
        `agent '${agentId}' has no unallocated ${reserved.toString()} reserved for '${role}'`,
      );
    }
    this.updateAgentTotal(agent, agent.total.minus(reserved).plus(reserved.withReservation(undefined)));
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
    if (this.frameworks.has(id)) throw new AllocatorError('DUPLICATE_FRAMEWORK', `framework '${id}' already exists`);
    const fw: FrameworkState = {
      id,
      roles: new Set(),
      capabilities: new Set(options.capabilities ?? []),
      active: options.active ?? true,
      suppressed: new Set(options.suppressedRoles ?? []),
      minAllocatable: offerFiltersToMilli(options.offerFilters),
      filteredAgents: new Set(),
      ...(taskSize ? { taskSize } : {}),
    };
    this.epoch++;
    this.frameworks.set(id, fw);
    for (const role of roles) this.subscribe(fw, role);
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
    this.epoch++;
    if (capabilities) fw.capabilities = new Set(capabilities);
    if (offerFilters) fw.minAllocatable = offerFiltersToMilli(offerFilters);
    if (taskSize !== undefined) fw.taskSize = size;
    for (const role of [...fw.roles]) if (!roles.includes(role)) this.unsubscribe(fw, role);
    for (const role of roles) if (!fw.roles.has(role)) this.subscribe(fw, role);
  }

  /** Removes the framework and recovers everything allocated to it. */
  removeFramework(id: string): void {
    this.idle();
    const fw = this.requireFramework(id);
    for (const agent of this.agents.values()) {
      const byRole = agent.allocations.get(id);
      if (!byRole) continue;
      for (const [role, res] of [...byRole]) this.trackAllocation(agent, id, role, res, -1);
      agent.inverseOffered.delete(id);
    }
    for (const role of [...fw.roles]) this.unsubscribe(fw, role);
    this.clearFilters(fw);
    this.frameworks.delete(id);
  }

  activateFramework(id: string): void {
    this.idle();
    const fw = this.requireFramework(id);
    fw.active = true;
    this.epoch++;
    this.refreshFrameworkActivity(fw);
  }

  /** Stops offers to the framework and clears its offer filters. */
  deactivateFramework(id: string): void {
    this.idle();
    const fw = this.requireFramework(id);
    fw.active = false;
    this.clearFilters(fw);
    this.refreshFrameworkActivity(fw);
  }

  suppressOffers(id: string, roles?: string[]): void {
    this.idle();
    const fw = this.requireFramework(id);
    for (const role of roles ?? fw.roles) fw.suppressed.add(role);
    this.epoch++;
    this.refreshFrameworkActivity(fw);
  }

  /** Resumes offers for the roles and deletes the framework's filters for those roles only. */
  reviveOffers(id: string, roles?: string[]): void {
    this.idle();
    const fw = this.requireFramework(id);
    const revived = new Set(roles ?? fw.roles);
    for (const role of revived) fw.suppressed.delete(role);
    this.clearFilters(fw, revived);
    this.refreshFrameworkActivity(fw);
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
    const agent = this.agents.get(agentId);
    const fw = this.frameworks.get(frameworkId);
    if (agent && fw) {
      const held = agent.allocations.get(frameworkId)?.get(role) ?? Resources.empty();
      const recovered = held.contains(resources) ? resources : resources.minus(resources.minus(held));
      if (!recovered.isEmpty()) this.trackAllocation(agent, frameworkId, role, recovered, -1);
    }
    if (!agent || !fw || refuseSeconds === undefined || refuseSeconds === 0 || Number.isNaN(refuseSeconds)) return;
    let r = refuseSeconds < 0 ? 5 : Math.min(refuseSeconds, YEAR_SECONDS);
    if (!Number.isFinite(r)) r = YEAR_SECONDS;
    const filter: Filter = {
      resources,
      installedAt: this.clock.now(),
      refuseSeconds: r,
      duration: Math.max(r, this.config.allocationIntervalSeconds),
    };
    let byFw = agent.filters.get(role);
    if (!byFw) agent.filters.set(role, (byFw = new Map<FrameworkState, Filter[]>()));
    const list = byFw.get(fw);
    if (list) list.push(filter);
    else byFw.set(fw, [filter]);
    fw.filteredAgents.add(agentId);
  }

  // ---------------------------------------------------------------- roles

  setWeight(role: string, weight: number): void {
    this.idle();
    if (!(weight > 0) || !Number.isFinite(weight))
      throw new AllocatorError('INVALID_ARGUMENT', `weight of '${role}' must be a positive number`);
    this.weights.set(role, weight);
    this.epoch++;
    this.roleSorter.setWeight(role, weight);
  }

  /** Quota of a top-level role; a name missing from `limits` is unlimited. */
  setQuota(role: string, guarantees: Record<string, number>, limits: Record<string, number> = {}): void {
    this.idle();
    if (role.includes('/')) throw new AllocatorError('INVALID_ARGUMENT', `quota applies to top-level roles; '${role}' is nested`);
    const g = quantitiesToMilli(guarantees, `guarantees of '${role}'`);
    const l = quantitiesToMilli(limits, `limits of '${role}'`);
    for (const [name, value] of g) {
      const limit = l.get(name);
      if (limit !== undefined && limit < value) {
        throw new AllocatorError(
          'INVALID_ARGUMENT',
          `guarantee of ${name} (${value / 1000}) exceeds its limit (${limit / 1000}) for '${role}'`,
        );
      }
    }
    // A limit of zero must survive the zero-dropping above.
    for (const [name, value] of Object.entries(limits)) if (value === 0) l.set(name, 0);
    this.quotas.set(role, { guarantees: g, limits: l });
    this.quotaChanged();
  }

  removeQuota(role: string): void {
    this.idle();
    this.quotas.delete(role);
    this.quotaChanged();
  }

  // ---------------------------------------------------------------- reads

  /** Everything offered or allocated on the agent, by framework and role. */
  allocationsOn(agentId: string): Array<{ frameworkId: string; role: string; resources: Resources }> {
    const agent = this.requireAgent(agentId);
    return [...agent.allocations].flatMap(([frameworkId, byRole]) =>
      [...byRole].map(([role, resources]) => ({ frameworkId, role, resources })),
    );
  }

  availableOn(agentId: string): Resources {
    return this.available(this.requireAgent(agentId));
  }

  /** Weighted dominant shares as the sorters see them: per role and per (role, framework). */
  shares(): { roles: Record<string, number>; frameworks: Record<string, Record<string, number>> } {
    const roles: Record<string, number> = {};
    const frameworks: Record<string, Record<string, number>> = {};
    for (const role of this.roleFrameworks.keys()) {
      roles[role] = this.roleSorter.share(role);
      const sorter = this.frameworkSorters.get(role);
      for (const fw of this.roleFrameworks.get(role) ?? []) {
        (frameworks[fw] ??= {})[role] = sorter ? sorter.share(fw) : 0;
      }
    }
    return { roles, frameworks };
  }

  /** Quota consumption of a top-level role, as quantities. */
  quotaConsumed(role: string): Quantities {
    return milliToQuantities(this.consumed(role));
  }

  hasAgent(id: string): boolean {
    return this.agents.has(id);
  }

  /** Quota per top-level role: guarantees and limits (quantities). */
  quotaOf(): Record<string, { guarantees: Quantities; limits: Quantities }> {
    const out: Record<string, { guarantees: Quantities; limits: Quantities }> = {};
    for (const [role, q] of this.quotas) out[role] = { guarantees: milliToQuantities(q.guarantees), limits: milliToQuantities(q.limits) };
    return out;
  }

  /** Offer filters held (declines with refuse seconds not yet expired, or not yet looked at since). */
  filterCount(): number {
    let n = 0;
    for (const byRole of this.filtersByAgent.values())
      for (const byFw of byRole.values()) for (const list of byFw.values()) n += list.length;
    return n;
  }

  /**
   * The allocation state as plain data (agents with what is offered or allocated on them,
   * frameworks, weights, quota, whitelist, config), for what-if questions: `restoreAllocator`
   * builds an allocator in the same state. Offer filters and inverse-offer answers are left out.
   */
  snapshot(): AllocatorSnapshot {
    const agents = [...this.agents.values()].map((a) => ({
      id: a.id,
      hostname: a.hostname,
      total: a.total.toJSON(),
      activated: a.activated,
      maintenance: a.deactivatedForMaintenance,
      used: this.allocationsOn(a.id).map((u) => ({ frameworkId: u.frameworkId, role: u.role, resources: u.resources.toJSON() })),
    }));
    const frameworks = [...this.frameworks.values()].map((f) => ({
      id: f.id,
      roles: [...f.roles],
      capabilities: [...f.capabilities],
      active: f.active,
      suppressedRoles: [...f.suppressed],
      offerFilters: Object.fromEntries(
        [...f.minAllocatable].map(([role, sets]) => [role, sets.map((set) => Object.fromEntries(set.map(([n, m]) => [n, m / 1000])))]),
      ),
      ...(f.taskSize ? { taskSize: milliToQuantities(f.taskSize) } : {}),
    }));
    const quotas = this.quotaOf();
    return {
      config: { ...this.config, minAllocatableResources: this.config.minAllocatableResources.map((m) => ({ ...m })) },
      agents,
      frameworks,
      weights: Object.fromEntries(this.weights),
      quotas,
      whitelist: this.whitelist ? [...this.whitelist] : null,
    };
  }

  hasFramework(id: string): boolean {
    return this.frameworks.has(id);
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
      return yield* this.allocateSteps(options, pause);
    } finally {
      this.running = false;
    }
  }

  /** Whether a cycle run in slices is under way. */
  get cycleRunning(): boolean {
    return this.running;
  }

  private *allocateSteps(
    options: { agents?: Iterable<string>; trace?: boolean },
    pause: () => boolean,
  ): Generator<void, CycleResult, void> {
    const now = this.clock.now();
    const trace = options.trace ? new TraceCollector(this.config.traceLimit) : undefined;
    // Frameworks do not change during a cycle: their counts per role are taken afresh each time.
    this.inactiveCounts.clear();
    const offers: Offer[] = [];
    const cycle = ++this.cycles;

    const candidates: AgentState[] = [];
    for (const id of options.agents ?? this.agents.keys()) {
      if (pause()) yield;
      const agent = this.agents.get(id);
      if (!agent) continue;
      if (this.whitelist && !this.whitelist.has(agent.hostname)) {
        trace?.add({ reason: 'AGENT_NOT_WHITELISTED', agent: id });
        continue;
      }
      if (!agent.activated) {
        trace?.add(
          agent.deactivatedForMaintenance ? { reason: 'AGENT_IN_MAINTENANCE', agent: id } : { reason: 'AGENT_DEACTIVATED', agent: id },
        );
        continue;
      }
      candidates.push(agent);
    }

    const requiredHeadroom = this.requiredHeadroom();
    // Only needed while some guarantee is unmet (it is a pass over every agent).
    const availableHeadroom = requiredHeadroom.size > 0 ? this.availableHeadroom() : new Map<string, number>();

    const offeredShared = new Map<string, Resources>();
    const offer = (agent: AgentState, fw: FrameworkState, role: string, resources: Resources) => {
      this.trackAllocation(agent, fw.id, role, resources, 1);
      // Only an agent with shared resources offers any.
      const shared = agent.hasShared || this.reference ? resources.shared() : Resources.empty();
      if (!shared.isEmpty()) offeredShared.set(agent.id, (offeredShared.get(agent.id) ?? Resources.empty()).plus(shared));
      if (availableHeadroom.size > 0 && requiredHeadroom.size > 0) {
        addMilli(availableHeadroom, agent.plain ? resources.scalarMilli() : resources.unreserved().nonRevocable().scalarMilli(), -1);
      }
      // One offer per (framework, role, agent) in a cycle, in the order first made.
      if (agent.offersCycle !== cycle) {
        agent.offersCycle = cycle;
        agent.offerCount = 0;
      }
      for (let k = 0; k < agent.offerCount; k++) {
        const i = agent.offerIndexes[k];
        const existing = offers[i];
        if (existing.frameworkId === fw.id && existing.role === role) {
          offers[i] = { frameworkId: fw.id, role, agentId: agent.id, resources: existing.resources.plus(resources) };
          return;
        }
      }
      agent.offerIndexes[agent.offerCount++] = offers.length;
      offers.push({ frameworkId: fw.id, role, agentId: agent.id, resources });
    };

    // Stage 1: quota guarantees (nothing to do when every guarantee is met).
    for (const agent of requiredHeadroom.size > 0 ? this.ordered(candidates) : []) {
      if (pause()) yield;
      let roles = this.order(this.roleSorter);
      stage1: for (let role = roles.next(); role !== undefined; role = roles.next()) {
        if (this.exhausted(agent)) break stage1;
        const quota = this.quotas.get(role);
        if (!quota || quota.guarantees.size === 0) continue;
        const sorter = this.frameworkSorters.get(role);
        if (!sorter) continue;
        let fws = this.order(sorter);
        for (let fwId = fws.next(); fwId !== undefined; fwId = fws.next()) {
          const unmet = this.unmetGuarantees(role, quota);
          if (unmet.size === 0) {
            trace?.add({ reason: 'ROLE_QUOTA_MET', agent: agent.id, role, stage: 1 });
            break;
          }
          const fw = this.frameworks.get(fwId);
          if (!fw) continue; // a sorter holds only known frameworks
          const usable = this.usableBy(agent, fw, role, trace, offeredShared);
          if (!usable) continue;
          const unreserved = usable.unreserved().nonRevocable().scalars();
          const guaranteed = this.reference ? shrinkScalars(unreserved, unmet, false) : unreserved.capScalars(unmet, false);
          if (guaranteed.isEmpty()) {
            trace?.add({ reason: 'NO_QUOTA_GUARANTEE_ON_AGENT', agent: agent.id, role, framework: fwId, unmet: milliToQuantities(unmet) });
            continue;
          }
          const rest = this.cutToLimitsAndHeadroom(
            role,
            unreserved.minus(guaranteed),
            guaranteed.scalarMilli(),
            requiredHeadroom,
            availableHeadroom,
          );
          // A plain agent has nothing reserved or revocable: its offer is scalars and the rest.
          let resources =
            agent.plain && !this.reference
              ? guaranteed.plus(usable.nonScalars()).plus(rest)
              : guaranteed
                  .plus(usable.reserved(role))
                  .plus(usable.nonScalars().unreserved())
                  .plus(usable.revocable().unreserved().scalars())
                  .plus(rest);
          if (fw.taskSize) resources = this.cutToFit(resources, fw.taskSize);
          if (this.tryOffer(agent, fw, role, resources, now, trace) === undefined) {
            if (!this.takesAll(agent, resources)) {
              // The loops go on over this agent: keep the orders as they were (Mesos sorts once).
              roles = new ArrayCursor(roles.rest());
              fws = new ArrayCursor(fws.rest());
            }
            offer(agent, fw, role, resources);
            addMilli(requiredHeadroom, guaranteed.scalarMilli(), -1);
            for (const [k, v] of requiredHeadroom) if (v <= 0) requiredHeadroom.delete(k);
            if (this.exhausted(agent)) break stage1;
          }
        }
      }
    }

    // Stage 2: everything else, by DRF, within limits and without eating into headroom.
    // On a plain agent, the frameworks that passed it by are remembered (AgentState.passedBy):
    // while that holds, they are skipped, and a role they all passed by is skipped whole. With
    // a trace, only once the trace keeps no more entries (its counts grow by what is skipped).
    const remember = !this.reference;
    for (const agent of this.ordered(candidates)) {
      if (pause()) yield;
      if (this.exhausted(agent)) {
        trace?.add({ reason: 'NOTHING_AVAILABLE', agent: agent.id });
        continue;
      }
      let roles = this.order(this.roleSorter);
      stage2: for (let role = roles.next(); role !== undefined; role = roles.next()) {
        const sorter = this.frameworkSorters.get(role);
        if (!sorter) continue;
        if (trace) this.traceInactiveFrameworks(agent, role, trace);
        const rememberable = remember && agent.plain && requiredHeadroom.size === 0 && this.limitedAncestors(role).length === 0;
        // What an earlier pass learnt (skipped without a trace, or once the trace is full) and
        // what this pass adds, up to its first offer (after it, the agent holds less).
        let known: ReadonlyMap<string, ReasonCode> | undefined;
        let recording = rememberable;
        let memo: PassedBy | undefined; // made at the first framework that passes the agent by
        const blocked = (fwId: string, reason: ReasonCode, until: number) => {
          memo ??= { available: agent.available, epoch: this.epoch, until: Infinity, blocked: new Map(), all: false, reasons: [] };
          memo.blocked.set(fwId, reason);
          if (until < memo.until) memo.until = until;
        };
        if (rememberable) {
          const passed = agent.passedBy.get(role);
          const quiet = !trace || trace.isFull();
          if (passed?.available === agent.available && passed.epoch === this.epoch && now < passed.until) {
            if (passed.all && quiet) {
              if (trace) for (const [reason, n] of passed.reasons) trace.addCount(reason, n);
              continue;
            }
            memo = passed;
            if (quiet) known = passed.blocked;
          }
        }
        let fws = this.order(sorter);
        for (let fwId = fws.next(); fwId !== undefined; fwId = fws.next()) {
          if (known) {
            const reason = known.get(fwId);
            if (reason !== undefined) {
              trace?.addCount(reason, 1);
              continue;
            }
          }
          const fw = this.frameworks.get(fwId);
          if (!fw) continue; // a sorter holds only known frameworks
          const usable = this.usableBy(agent, fw, role, trace, offeredShared);
          if (!usable) {
            if (recording) blocked(fwId, 'MISSING_CAPABILITY', Infinity);
            continue;
          }
          const limited = requiredHeadroom.size > 0 || this.limitedAncestors(role).length > 0;
          let resources = usable;
          if (limited || !agent.plain) {
            const unreservedScalars = usable.unreserved().nonRevocable().scalars();
            const cut = limited
              ? this.cutToLimitsAndHeadroom(role, unreservedScalars, EMPTY_MILLI, requiredHeadroom, availableHeadroom)
              : unreservedScalars;
            if (trace && cut !== unreservedScalars && !cut.equals(unreservedScalars))
              this.traceCut(agent, fw, role, requiredHeadroom, availableHeadroom, trace);
            resources = agent.plain
              ? usable.nonScalars().plus(cut)
              : usable
                  .filter((k) => k.reservation !== undefined)
                  .plus(usable.nonScalars().unreserved())
                  .plus(usable.revocable().unreserved().scalars())
                  .plus(cut);
          }
          if (fw.taskSize) resources = this.cutToFit(resources, fw.taskSize);
          const blockedUntil = this.tryOffer(agent, fw, role, resources, now, trace);
          if (blockedUntil !== undefined) {
            if (recording) blocked(fwId, blockedUntil === Infinity ? 'BELOW_MIN_ALLOCATABLE' : 'FRAMEWORK_FILTERED', blockedUntil);
            continue;
          }
          if (recording) {
            recording = false;
            if (memo) this.keepPassed(agent, role, memo, now, false);
          }
          if (!this.takesAll(agent, resources)) {
            roles = new ArrayCursor(roles.rest());
            fws = new ArrayCursor(fws.rest());
          }
          offer(agent, fw, role, resources);
          if (this.quotas.has(topLevel(role))) this.refreshRequiredHeadroom(requiredHeadroom);
          if (this.exhausted(agent)) break stage2;
        }
        if (recording) {
          memo ??= { available: agent.available, epoch: this.epoch, until: Infinity, blocked: new Map(), all: false, reasons: [] };
          this.keepPassed(agent, role, memo, now, true);
        }
      }
    }

    // Inverse offers for agents under maintenance.
    const inverseOffers: InverseOffer[] = [];
    for (const agent of candidates) {
      if (agent.unavailabilityStart === undefined) continue;
      for (const [fwId, byRole] of agent.allocations) {
        const fw = this.frameworks.get(fwId);
        if (!fw || !fw.active || agent.inverseOffered.has(fwId) || byRole.size === 0) continue;
        agent.inverseOffered.add(fwId);
        inverseOffers.push({ frameworkId: fwId, agentId: agent.id, start: agent.unavailabilityStart });
      }
    }

    return { offers, inverseOffers, ...(trace ? { trace: trace.result() } : {}) };
  }

  // ---------------------------------------------------------------- internals

  /** Refuses a change while a cycle run in slices is under way. */
  private idle(): void {
    if (this.running) throw new AllocatorError('CYCLE_RUNNING', 'the allocator is in the middle of a cycle; changes wait for its end');
  }

  private ordered(candidates: AgentState[]): AgentState[] {
    if (this.config.placement === 'pack') return this.packed(candidates);
    if (!this.config.shuffleAgents) return candidates;
    const out = candidates.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /**
   * `pack` order: the most used first (largest used fraction of any scalar the agent has), then
   * the smallest (its scalars as fractions of the largest agent's), then by id.
   */
  private packed(candidates: AgentState[]): AgentState[] {
    const largest = new Map<string, number>();
    for (const a of candidates) for (const [name, m] of a.total.scalarMilli()) if (m > (largest.get(name) ?? 0)) largest.set(name, m);
    const keyed = candidates.map((a) => {
      const used = a.allocated.scalarMilli();
      let fullness = 0;
      let size = 0;
      for (const [name, m] of a.total.scalarMilli()) {
        if (m <= 0) continue;
        fullness = Math.max(fullness, (used.get(name) ?? 0) / m);
        size += m / (largest.get(name) ?? m);
      }
      return { a, fullness, size };
    });
    keyed.sort((x, y) => y.fullness - x.fullness || x.size - y.size || (x.a.id < y.a.id ? -1 : x.a.id > y.a.id ? 1 : 0));
    return keyed.map((k) => k.a);
  }

  private available(agent: AgentState): Resources {
    return agent.available;
  }

  /**
   * An offer cut to fit a framework's typical task: the scalars the size names are cut to the
   * most whole tasks the offer holds (k tasks of the size, k at least 1), and what is left on
   * the agent goes on to the next framework in the same cycle instead of being held in an offer
   * the framework hands back. Scalars the size does not name, and ranges and sets, are offered
   * whole. An offer that holds not even one task is left as it is (the size is a hint; the
   * framework's offer filters say what it cannot use at all).
   */
  private cutToFit(resources: Resources, size: ReadonlyMap<string, number>): Resources {
    const have = resources.scalarMilli();
    let k = Infinity;
    for (const [name, m] of size) k = Math.min(k, Math.floor((have.get(name) ?? 0) / m));
    if (k < 1) return resources;
    const caps = new Map<string, number>();
    for (const [name, m] of size) caps.set(name, k * m);
    return resources.capScalars(caps, true);
  }

  /** Whether offering `resources` leaves the agent exhausted (decided before the offer). */
  private takesAll(agent: AgentState, resources: Resources): boolean {
    if (agent.hasShared) return false;
    return resources === agent.available || agent.available.minus(resources).isEmpty();
  }

  /** Nothing left on the agent for anyone this cycle (shared volumes stay offerable). */
  private exhausted(agent: AgentState): boolean {
    return agent.available.isEmpty() && !agent.hasShared;
  }

  /**
   * What `fw` may take on `agent` under `role`: allocatable to the role, minus what the
   * framework's capabilities exclude. `undefined` when the whole agent is excluded.
   */
  private usableBy(
    agent: AgentState,
    fw: FrameworkState,
    role: string,
    trace?: TraceCollector,
    offeredShared?: Map<string, Resources>,
  ): Resources | undefined {
    if (this.config.filterGpuResources && agent.hasGpus && !fw.capabilities.has('GPU_RESOURCES')) {
      trace?.add({ reason: 'MISSING_CAPABILITY', agent: agent.id, role, framework: fw.id, capability: 'GPU_RESOURCES' });
      return undefined;
    }
    if (agent.plain) return agent.available;
    let usable = this.available(agent).nonShared();
    // Shared resources (persistent volumes) stay offerable while allocated: every framework
    // that takes them gets one copy, at most once per agent in a cycle (as in Mesos).
    if (fw.capabilities.has('SHARED_RESOURCES')) {
      usable = usable.plus(agent.total.shared().minus(offeredShared?.get(agent.id) ?? Resources.empty()));
    }
    usable = usable.allocatableTo(role);
    if (!fw.capabilities.has('REVOCABLE_RESOURCES')) usable = usable.nonRevocable();
    return usable;
  }

  /**
   * Whether `fw` may be offered `resources` on the agent under `role`: `undefined` if so;
   * otherwise until when it may not (the end of the filter that holds it back, or Infinity
   * when the resources are below the minimum allocatable).
   */
  private tryOffer(
    agent: AgentState,
    fw: FrameworkState,
    role: string,
    resources: Resources,
    now: number,
    trace?: TraceCollector,
  ): number | undefined {
    if (!this.isAllocatable(resources, fw.minAllocatable.get(role) ?? this.minAllocatable)) {
      trace?.add({
        reason: 'BELOW_MIN_ALLOCATABLE',
        agent: agent.id,
        role,
        framework: fw.id,
        leftover: milliToQuantities(resources.scalarMilli()),
      });
      return Infinity;
    }
    const byFw = agent.filters.get(role);
    const filters = byFw?.get(fw);
    if (byFw && filters) {
      let live = 0;
      for (const f of filters) {
        const expiry = f.installedAt + f.duration;
        const active = now < expiry || (now === expiry && f.refuseSeconds <= this.config.allocationIntervalSeconds);
        if (active && this.covers(f, resources)) {
          trace?.add({ reason: 'FRAMEWORK_FILTERED', agent: agent.id, role, framework: fw.id, until: expiry });
          return expiry;
        }
        if (now <= expiry) live++;
      }
      if (live === 0) byFw.delete(fw);
      else if (live !== filters.length)
        byFw.set(
          fw,
          filters.filter((f) => now <= f.installedAt + f.duration),
        );
    }
    return undefined;
  }

  /** Whether filter `f` holds back `resources` (remembered by identity outside the reference path). */
  private covers(f: Filter, resources: Resources): boolean {
    if (this.reference) return f.resources.contains(resources);
    if (f.covers === resources) return true;
    if (!f.resources.contains(resources)) return false;
    f.covers = resources;
    return true;
  }

  /** Active clients of `sorter` in order, read as needed (the reference path takes the full order). */
  private order(sorter: ClientSorter): SortCursor {
    return !this.reference && sorter.cursor ? sorter.cursor() : new ArrayCursor(sorter.sort());
  }

  private agentFilters(agentId: string): AgentFilters {
    let filters = this.filtersByAgent.get(agentId);
    if (!filters) this.filtersByAgent.set(agentId, (filters = new Map<string, Map<FrameworkState, Filter[]>>()));
    return filters;
  }

  /** Deletes the framework's offer filters: all, or those under `roles`. */
  private clearFilters(fw: FrameworkState, roles?: ReadonlySet<string>): void {
    this.epoch++;
    for (const agentId of fw.filteredAgents) {
      const filters = this.filtersByAgent.get(agentId);
      if (!filters) continue;
      for (const [role, byFw] of filters) if (!roles || roles.has(role)) byFw.delete(fw);
    }
    if (!roles) fw.filteredAgents.clear();
  }

  /** Keeps what a pass learnt about the agent and the role (`all`: every framework passed it by). */
  private keepPassed(agent: AgentState, role: string, memo: PassedBy, now: number, all: boolean): void {
    if (!(memo.until > now) || (!all && memo.blocked.size === 0)) {
      agent.passedBy.delete(role);
      return;
    }
    memo.all = all;
    if (all) {
      // Counted once, for the passes that will be skipped with a full trace.
      const counts = new Map<ReasonCode, number>();
      for (const reason of memo.blocked.values()) counts.set(reason, (counts.get(reason) ?? 0) + 1);
      memo.reasons = [...counts];
    }
    if (agent.passedBy.get(role) !== memo) agent.passedBy.set(role, memo);
  }

  private quotaChanged(): void {
    this.limitedAncestorsCache.clear();
    this.epoch++;
  }

  private isAllocatable(resources: Resources, minAllocatable: Array<Array<[string, number]>>): boolean {
    // The frameworks looked at for one agent mostly ask the same question: remember the last answer.
    const last = this.lastAllocatable;
    if (last.resources === resources && last.minAllocatable === minAllocatable) return last.result;
    const result = this.computeAllocatable(resources, minAllocatable);
    if (!this.reference) {
      last.resources = resources;
      last.minAllocatable = minAllocatable;
      last.result = result;
    }
    return result;
  }

  private computeAllocatable(resources: Resources, minAllocatable: Array<Array<[string, number]>>): boolean {
    if (resources.isEmpty()) return false;
    if (minAllocatable.length === 0) return true;
    const q = resources.scalarMilli();
    for (const set of minAllocatable) {
      let ok = true;
      for (const [name, min] of set) if ((q.get(name) ?? 0) < min) ok = false;
      if (ok) return true;
    }
    return false;
  }

  /** consumed(R) for a top-level role: allocated unreserved non-revocable + all reservations. */
  private consumed(role: string): Map<string, number> {
    const out = new Map(this.consumedAllocated.get(role) ?? []);
    addMilli(out, this.consumedReserved.get(role) ?? new Map());
    return out;
  }

  private unmetGuarantees(role: string, quota: QuotaState): Map<string, number> {
    const consumed = this.consumed(role);
    const unmet = new Map<string, number>();
    for (const [name, g] of quota.guarantees) {
      const left = g - (consumed.get(name) ?? 0);
      if (left > 0) unmet.set(name, left);
    }
    return unmet;
  }

  private requiredHeadroom(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [role, quota] of this.quotas) addMilli(out, this.unmetGuarantees(role, quota));
    return out;
  }

  private refreshRequiredHeadroom(into: Map<string, number>): void {
    into.clear();
    for (const [k, v] of this.requiredHeadroom()) into.set(k, v);
  }

  private availableHeadroom(): Map<string, number> {
    const out = new Map<string, number>();
    for (const agent of this.agents.values()) addMilli(out, this.available(agent).unreserved().nonRevocable().scalarMilli());
    return out;
  }

  /**
   * Cuts unreserved scalars to what the role's quota limits (its own and every ancestor's)
   * still allow after `extra`, and, when headroom is required, to the surplus headroom.
   */
  private cutToLimitsAndHeadroom(
    role: string,
    unreserved: Resources,
    extra: ReadonlyMap<string, number>,
    required: ReadonlyMap<string, number>,
    available: ReadonlyMap<string, number>,
  ): Resources {
    const caps = this.limitCaps(role, extra);
    if (required.size > 0) {
      for (const name of unreserved.scalarMilli().keys()) {
        const surplus = Math.max(0, (available.get(name) ?? 0) - (required.get(name) ?? 0));
        caps.set(name, Math.min(caps.get(name) ?? Infinity, surplus));
      }
    }
    if (caps.size === 0) return unreserved;
    return this.reference ? shrinkScalars(unreserved, caps, true) : unreserved.capScalars(caps, true);
  }

  /** The role and its ancestors that have quota limits. */
  private limitedAncestors(role: string): readonly string[] {
    if (this.quotas.size === 0) return NONE;
    let out = this.limitedAncestorsCache.get(role);
    if (!out) {
      out = ancestorsAndSelf(role).filter((path) => (this.quotas.get(path)?.limits.size ?? 0) > 0);
      this.limitedAncestorsCache.set(role, out);
    }
    return out;
  }

  private limitCaps(role: string, extra: ReadonlyMap<string, number>): Map<string, number> {
    const caps = new Map<string, number>();
    for (const path of this.limitedAncestors(role)) {
      const quota = this.quotas.get(path);
      if (!quota) continue; // limitedAncestors names roles with a quota
      const consumed = this.consumed(path);
      for (const [name, limit] of quota.limits) {
        const left = limit - (consumed.get(name) ?? 0) - (extra.get(name) ?? 0);
        caps.set(name, Math.min(caps.get(name) ?? Infinity, Math.max(0, left)));
      }
    }
    return caps;
  }

  private traceCut(
    agent: AgentState,
    fw: FrameworkState,
    role: string,
    required: ReadonlyMap<string, number>,
    available: ReadonlyMap<string, number>,
    trace: TraceCollector,
  ): void {
    const limited = this.limitCaps(role, new Map());
    const atLimit = [...limited.values()].some((v) => v === 0);
    if (atLimit) {
      const top = topLevel(role);
      const quota = this.quotas.get(top);
      trace.add({
        reason: 'ROLE_AT_QUOTA_LIMIT',
        agent: agent.id,
        role,
        framework: fw.id,
        limit: milliToQuantities(quota?.limits ?? new Map()),
        consumed: milliToQuantities(this.consumed(top)),
      });
    }
    if (required.size > 0) {
      trace.add({
        reason: 'HEADROOM_RESERVED',
        agent: agent.id,
        role,
        framework: fw.id,
        required: milliToQuantities(required),
        available: milliToQuantities(available),
      });
    }
  }

  private traceInactiveFrameworks(agent: AgentState, role: string, trace: TraceCollector): void {
    if (trace.isFull()) {
      // Only counts grow now: the role's inactive and suppressed frameworks, counted once a cycle.
      let counts = this.inactiveCounts.get(role);
      if (!counts) {
        counts = [0, 0];
        for (const fwId of this.roleFrameworks.get(role) ?? []) {
          const fw = this.frameworks.get(fwId);
          if (!fw) continue;
          if (!fw.active) counts[0]++;
          else if (fw.suppressed.has(role)) counts[1]++;
        }
        this.inactiveCounts.set(role, counts);
      }
      trace.addCount('FRAMEWORK_INACTIVE', counts[0]);
      trace.addCount('FRAMEWORK_SUPPRESSED', counts[1]);
      return;
    }
    for (const fwId of this.roleFrameworks.get(role) ?? []) {
      const fw = this.frameworks.get(fwId);
      if (!fw) continue;
      if (!fw.active) trace.add({ reason: 'FRAMEWORK_INACTIVE', agent: agent.id, role, framework: fwId });
      else if (fw.suppressed.has(role)) trace.add({ reason: 'FRAMEWORK_SUPPRESSED', agent: agent.id, role, framework: fwId });
    }
  }

  private subscribe(fw: FrameworkState, role: string): void {
    fw.roles.add(role);
    let fws = this.roleFrameworks.get(role);
    if (!fws) {
      this.roleFrameworks.set(role, (fws = new Set()));
      if (!this.roleSorter.contains(role)) this.roleSorter.add(role);
      this.roleSorter.activate(role);
    }
    fws.add(fw.id);
    let sorter = this.frameworkSorters.get(role);
    if (!sorter) {
      sorter = this.newSorter(this.config.fairnessExcludeResourceNames, this.pool);
      this.frameworkSorters.set(role, sorter);
    }
    if (!sorter.contains(fw.id)) sorter.add(fw.id);
    if (fw.active && !fw.suppressed.has(role)) sorter.activate(fw.id);
    else sorter.deactivate(fw.id);
  }

  private unsubscribe(fw: FrameworkState, role: string): void {
    fw.roles.delete(role);
    fw.suppressed.delete(role);
    const fws = this.roleFrameworks.get(role);
    fws?.delete(fw.id);
    const sorter = this.frameworkSorters.get(role);
    sorter?.deactivate(fw.id);
    if (fws?.size === 0) {
      this.roleFrameworks.delete(role);
      this.roleSorter.deactivate(role);
    }
  }

  private refreshFrameworkActivity(fw: FrameworkState): void {
    for (const role of fw.roles) {
      const sorter = this.frameworkSorters.get(role);
      if (fw.active && !fw.suppressed.has(role)) sorter?.activate(fw.id);
      else sorter?.deactivate(fw.id);
    }
  }

  private trackAllocation(agent: AgentState, fwId: string, role: string, resources: Resources, sign: 1 | -1): void {
    let byRole = agent.allocations.get(fwId);
    if (!byRole) agent.allocations.set(fwId, (byRole = new Map<string, Resources>()));
    const before = byRole.get(role) ?? Resources.empty();
    const after = sign > 0 ? before.plus(resources) : before.minus(resources);
    if (after.isEmpty()) byRole.delete(role);
    else byRole.set(role, after);
    if (byRole.size === 0) agent.allocations.delete(fwId);
    if (sign > 0) {
      // Everything available taken on an agent that fits: allocated is now its total.
      if (resources === agent.available && agent.allocatedFits) agent.allocated = agent.total;
      else {
        agent.allocatedFits &&= agent.available.contains(resources);
        agent.allocated = agent.allocated.plus(resources);
      }
    } else {
      agent.allocated = agent.allocated.minus(resources);
      if (!agent.allocatedFits) agent.allocatedFits = !agent.hasShared && agent.total.contains(agent.allocated);
    }
    // An offer is taken from what is available; a recovery recomputes (the agent may have
    // been over-allocated after a smaller total). When a recovery brings back what was there
    // before the last offer, that value is kept (it is immutable): what was remembered about
    // it (filters that cover it, frameworks that passed it by) still holds.
    if (sign > 0) {
      agent.availableBefore = agent.available;
      agent.available = agent.available.minus(resources);
    } else {
      const available = agent.total.minus(agent.allocated);
      const before = agent.availableBefore;
      agent.available = before !== undefined && available.equals(before) ? before : available;
    }

    const quantities = resources.scalarMilli();
    if (!this.roleSorter.contains(role)) this.roleSorter.add(role);
    let fwSorter = this.frameworkSorters.get(role);
    if (!fwSorter) {
      fwSorter = this.newSorter(this.config.fairnessExcludeResourceNames, this.pool);
      this.frameworkSorters.set(role, fwSorter);
    }
    if (!fwSorter.contains(fwId)) fwSorter.add(fwId);
    if (sign > 0) {
      this.roleSorter.allocated(role, agent.id, quantities);
      fwSorter.allocated(fwId, agent.id, quantities);
    } else {
      this.roleSorter.unallocated(role, agent.id, quantities);
      fwSorter.unallocated(fwId, agent.id, quantities);
    }

    const top = topLevel(role);
    let consumed = this.consumedAllocated.get(top);
    if (!consumed) this.consumedAllocated.set(top, (consumed = new Map<string, number>()));
    addMilli(consumed, agent.plain ? resources.scalarMilli() : resources.unreserved().nonRevocable().scalarMilli(), sign);
  }

  private trackReservations(total: Resources, sign: 1 | -1): void {
    for (const entry of total.reserved().scalars().entries()) {
      // reserved().scalars(): every entry has a reservation and a value.
      if (entry.reservation === undefined || entry.value === undefined) continue;
      const top = topLevel(entry.reservation);
      let consumed = this.consumedReserved.get(top);
      if (!consumed) this.consumedReserved.set(top, (consumed = new Map<string, number>()));
      addMilli(consumed, new Map([[entry.name, Math.round(entry.value * 1000) * sign]]));
    }
  }

  private updateAgentTotal(agent: AgentState, total: Resources): void {
    this.epoch++;
    this.trackReservations(agent.total, -1);
    agent.total = total;
    agent.hasGpus = total.get('gpus') > 0;
    agent.plain = total.isPlain();
    agent.hasShared = !total.shared().isEmpty();
    agent.allocatedFits = !agent.hasShared && total.contains(agent.allocated);
    agent.available = total.minus(agent.allocated);
    this.trackReservations(total, 1);
    this.setPool(agent.id, total);
  }

  private setPool(agentId: string, total: Resources | undefined): void {
    this.pool.set(agentId, total?.scalarMilli());
  }

  private requireAgent(id: string): AgentState {
    const agent = this.agents.get(id);
    if (!agent) throw new AllocatorError('UNKNOWN_AGENT', `unknown agent '${id}'`);
    return agent;
  }

  private requireFramework(id: string): FrameworkState {
    const fw = this.frameworks.get(id);
    if (!fw) throw new AllocatorError('UNKNOWN_FRAMEWORK', `unknown framework '${id}'`);
    return fw;
  }
}

export { isReservationUsableBy };
export type { DecisionReason };
