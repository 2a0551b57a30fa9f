/**
 * Whether a framework may be offered something on an agent under a role: what its
 * capabilities let it use there, and whether an offer clears its minimum allocatable
 * resources and its offer filters. Both stages ask these for every (agent, framework) pair.
 */
import { Resources } from '../resources';
import type { Agent } from './agent';
import type { CyclePath } from './cycle-path';
import type { FrameworkState } from './framework';
import { type MinAllocatable, milliToQuantities } from './milli';
import type { OfferFilters } from './offer-filters';
import type { TraceCollector } from './trace';

export class Eligibility {
  /** The last isAllocatable question and its answer (resources and minimum by identity). */
  private readonly lastAllocatable: { resources?: Resources; minAllocatable?: MinAllocatable; result: boolean } = { result: false };

  constructor(
    private readonly filterGpuResources: boolean,
    /** The configured minimum allocatable resources, in milli. */
    private readonly minAllocatable: MinAllocatable,
    private readonly filters: OfferFilters,
    private readonly path: CyclePath,
  ) {}

  /**
   * What `fw` may take on `agent` under `role`: allocatable to the role, minus what the
   * framework's capabilities exclude. `undefined` when the whole agent is excluded, or when all
   * it could take there is refined reservations and it lacks RESERVATION_REFINEMENT (as Mesos's
   * `stripIncapableResources`, which drops them for such frameworks).
   */
  usableBy(
    agent: Agent,
    fw: FrameworkState,
    role: string,
    trace: TraceCollector | undefined,
    offeredShared: ReadonlyMap<string, Resources>,
  ): Resources | undefined {
    if (this.filterGpuResources && agent.hasGpus && !fw.capabilities.has('GPU_RESOURCES')) {
      trace?.add({ reason: 'MISSING_CAPABILITY', agent: agent.id, role, framework: fw.id, capability: 'GPU_RESOURCES' });
      return undefined;
    }
    if (agent.plain) return agent.available;
    let usable = agent.available.nonShared();
    // Shared resources (persistent volumes) stay offerable while allocated: every framework
    // that takes them gets one copy, at most once per agent in a cycle (as in Mesos).
    if (fw.capabilities.has('SHARED_RESOURCES')) {
      usable = usable.plus(agent.total.shared().minus(offeredShared.get(agent.id) ?? Resources.empty()));
    }
    usable = usable.allocatableTo(role);
    if (!fw.capabilities.has('REVOCABLE_RESOURCES')) usable = usable.nonRevocable();
    const refined = agent.refinedReservations;
    if (refined.size > 0 && !fw.capabilities.has('RESERVATION_REFINEMENT')) {
      const kept = usable.filter((k) => k.reservation === undefined || !refined.has(k.reservation));
      if (kept.isEmpty() && !usable.isEmpty()) {
        trace?.add({ reason: 'MISSING_CAPABILITY', agent: agent.id, role, framework: fw.id, capability: 'RESERVATION_REFINEMENT' });
        return undefined;
      }
      usable = kept;
    }
    return usable;
  }

  /**
   * Whether `fw` may be offered `resources` on the agent under `role`: `undefined` if so;
   * otherwise until when it may not (the end of the filter that holds it back, or Infinity
   * when the resources are below the minimum allocatable).
   */
  blockedUntil(
    agent: Agent,
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
    return this.filters.filteredUntil(agent, fw, role, resources, now, this.path, trace);
  }

  isAllocatable(resources: Resources, minAllocatable: MinAllocatable): boolean {
    // The frameworks looked at for one agent mostly ask the same question: remember the last answer.
    const last = this.lastAllocatable;
    if (last.resources === resources && last.minAllocatable === minAllocatable) return last.result;
    const result = allocatable(resources, minAllocatable);
    if (this.path.remembers) {
      last.resources = resources;
      last.minAllocatable = minAllocatable;
      last.result = result;
    }
    return result;
  }
}

/** Whether `resources` hold every amount of at least one of the sets (none: anything not empty). */
export function allocatable(resources: Resources, minAllocatable: MinAllocatable): boolean {
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
