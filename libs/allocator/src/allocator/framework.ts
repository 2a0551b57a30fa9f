/** A framework as the allocator knows it, and what its task size does to an offer. */
import type { Resources } from '../resources';
import { type MinAllocatable, minAllocatableToMilli, quantitiesToMilli } from './milli';
import { AllocatorError } from './types';

export interface FrameworkState {
  id: string;
  roles: Set<string>;
  capabilities: Set<string>;
  active: boolean;
  suppressed: Set<string>;
  /** Per role, minimum allocatable resources replacing the configured ones (Mesos's OfferFilters), in milli. */
  minAllocatable: Map<string, MinAllocatable>;
  /** Agents (by id) this framework may hold offer filters on. */
  filteredAgents: Set<string>;
  /** Its typical task (scalars, milli): its offers are cut to a whole number of them (see `cutToFit`). */
  taskSize?: Map<string, number>;
}

/** What a framework is added with (see `HierarchicalAllocator.addFramework`). */
export interface FrameworkOptions {
  capabilities?: Iterable<string>;
  active?: boolean;
  suppressedRoles?: string[];
  offerFilters?: Record<string, Array<Record<string, number>>>;
}

/** A new framework, subscribed to no role yet; `taskSize` as `taskSizeToMilli` made it. */
export function newFramework(id: string, options: FrameworkOptions, taskSize: Map<string, number> | undefined): FrameworkState {
  return {
    id,
    roles: new Set(),
    capabilities: new Set(options.capabilities ?? []),
    active: options.active ?? true,
    suppressed: new Set(options.suppressedRoles ?? []),
    minAllocatable: offerFiltersToMilli(options.offerFilters),
    filteredAgents: new Set(),
    ...(taskSize ? { taskSize } : {}),
  };
}

/** A task size's scalars in milli (amounts under a thousandth drop out); refuses what is not a positive amount. */
export function taskSizeToMilli(size: Record<string, number> | undefined): Map<string, number> | undefined {
  if (!size) return undefined;
  for (const [name, v] of Object.entries(size))
    if (!(v > 0)) throw new AllocatorError('INVALID_ARGUMENT', `task size ${name} must be a positive amount (got ${String(v)})`);
  const milli = quantitiesToMilli(size, 'task size');
  return milli.size ? milli : undefined;
}

export function offerFiltersToMilli(filters: Record<string, Array<Record<string, number>>> = {}): Map<string, MinAllocatable> {
  return new Map(Object.entries(filters).map(([role, sets]) => [role, minAllocatableToMilli(sets)]));
}

/**
 * An offer cut to fit a framework's typical task: the scalars the size names are cut to the
 * most whole tasks the offer holds (k tasks of the size, k at least 1), and what is left on
 * the agent goes on to the next framework in the same cycle instead of being held in an offer
 * the framework hands back. Scalars the size does not name, and ranges and sets, are offered
 * whole. An offer that holds not even one task is left as it is (the size is a hint; the
 * framework's offer filters say what it cannot use at all).
 */
export function cutToFit(resources: Resources, size: ReadonlyMap<string, number>): Resources {
  const have = resources.scalarMilli();
  let k = Infinity;
  for (const [name, m] of size) k = Math.min(k, Math.floor((have.get(name) ?? 0) / m));
  if (k < 1) return resources;
  const caps = new Map<string, number>();
  for (const [name, m] of size) caps.set(name, k * m);
  return resources.capScalars(caps, true);
}
