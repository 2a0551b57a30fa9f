/** The allocator's configuration, options, results and errors: its public types. */
import type { ResourceEntry, Resources } from '../resources';
import type { PlacementStrategy } from './placement/placement';
import type { SorterFactory } from './sorter-port';
import type { DecisionTrace, Quantities } from './trace';

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

/** Makes a placement strategy from the allocator's configuration and its seeded randomness. */
export type PlacementFactory = (config: AllocatorConfig, random: () => number) => PlacementStrategy;

export interface AllocatorOptions {
  config?: Partial<AllocatorConfig>;
  clock?: Clock;
  /** Uniform in [0, 1); inject a seeded generator for reproducible agent order. */
  random?: () => number;
  /** Makes every sorter (the roles' and each role's frameworks'); DRF's when unset. A sorter module's (docs/modules.md). */
  sorterFactory?: SorterFactory;
  /** Makes the placement strategy; the one `config.placement` names when unset. A placement module's (docs/modules.md). */
  placementFactory?: PlacementFactory;
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
    /** Roles whose reservations on the agent are refined (absent: none). */
    refinedReservations?: string[];
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

/** How an agent is added (`HierarchicalAllocator.addAgent`). */
export interface AgentOptions {
  hostname?: string;
  /** Resources already in use on it (its tasks), counted as allocated. */
  used?: UsedResources[];
  activated?: boolean;
  /**
   * The roles whose reservations on it are refined (Mesos's reservation stacks of two layers or
   * more): offered only to frameworks with RESERVATION_REFINEMENT.
   */
  refinedReservations?: Iterable<string>;
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
