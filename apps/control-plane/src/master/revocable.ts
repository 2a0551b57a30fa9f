/**
 * Oversubscription as the leader's allocator has it: an agent's revocable resources (what its
 * resource estimator reported, with what revocable tasks hold), the part that live tasks and
 * executors hold, and the part outstanding offers hold. Read in a turn of the serial order (or
 * a metrics scrape, which only sums): never of a cycle paused between slices.
 */
import { type ResourceEntry, Resources } from '@arbiter/allocator';
import { scalarMap, sumScalars } from '../common/resources.dto';
import type { ClusterState } from './cluster-state';

/** Revocable scalars on one agent, by resource name. */
export interface RevocableUsage {
  /** What the agent offers as revocable in all (its estimator's answer plus what revocable tasks hold). */
  total: Record<string, number>;
  /** Held by live tasks and executors. */
  used: Record<string, number>;
  /** Offered and not yet answered. */
  offered: Record<string, number>;
}

export const NO_REVOCABLE: RevocableUsage = Object.freeze({ total: {}, used: {}, offered: {} });

/** The allocator's revocable resources on an agent; undefined when the allocator does not have it. */
export function revocableOn(state: ClusterState, agentId: string): { total: Resources; used: Resources; offered: Resources } | undefined {
  if (!state.hasAllocator || !state.allocator.hasAgent(agentId)) return undefined;
  const held = state.allocator.allocationsOn(agentId).reduce((sum, a) => sum.plus(a.resources.revocable()), Resources.empty());
  const offered = state.offers.onAgent(agentId).reduce((sum, o) => sum.plus(o.resources.revocable()), Resources.empty());
  return { total: held.plus(state.allocator.availableOn(agentId).revocable()), used: held.minus(offered), offered };
}

/** As the REST API shows it: scalar maps. */
export function revocableUsage(r: ReturnType<typeof revocableOn>): RevocableUsage {
  if (!r) return NO_REVOCABLE;
  return { total: scalarMap(r.total), used: scalarMap(r.used), offered: scalarMap(r.offered) };
}

/** The revocable entries of resource lists, summed (a standby's reading of the database's rows). */
export function sumRevocable(lists: Iterable<ResourceEntry[]>): Record<string, number> {
  return sumScalars([...lists].map((l) => l.filter((e) => e.revocable)));
}

/** Several agents' revocable resources added up. */
export function addRevocable(usages: Iterable<RevocableUsage>): RevocableUsage {
  const list = [...usages];
  const add = (key: keyof RevocableUsage) => sumScalars(list.map((u) => Object.entries(u[key]).map(([name, value]) => ({ name, value }))));
  return { total: add('total'), used: add('used'), offered: add('offered') };
}
