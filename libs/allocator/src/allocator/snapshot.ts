/** The allocation state as plain data (see `HierarchicalAllocator.snapshot`; `restoreAllocator` goes back). */
import { milliToQuantities } from './milli';
import type { Quotas } from './quotas';
import type { AllocatorState } from './state';
import type { Quantities } from './trace';
import type { AllocatorSnapshot } from './types';

/** Quota per top-level role: guarantees and limits (quantities). */
export function quotasOf(quotas: Quotas): Record<string, { guarantees: Quantities; limits: Quantities }> {
  const out: Record<string, { guarantees: Quantities; limits: Quantities }> = {};
  for (const [role, q] of quotas.byRole) out[role] = { guarantees: milliToQuantities(q.guarantees), limits: milliToQuantities(q.limits) };
  return out;
}

/** Offer filters and inverse-offer answers are left out. */
export function snapshotOf(state: AllocatorState): AllocatorSnapshot {
  const agents = [...state.agents.values()].map((a) => ({
    id: a.id,
    hostname: a.hostname,
    total: a.total.toJSON(),
    activated: a.activated,
    maintenance: a.deactivatedForMaintenance,
    ...(a.refinedReservations.size > 0 ? { refinedReservations: [...a.refinedReservations] } : {}),
    used: [...a.allocations()].flatMap(([frameworkId, byRole]) =>
      [...byRole].map(([role, resources]) => ({ frameworkId, role, resources: resources.toJSON() })),
    ),
  }));
  const frameworks = [...state.frameworks.byId.values()].map((f) => ({
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
  const config = state.config;
  return {
    config: { ...config, minAllocatableResources: config.minAllocatableResources.map((m) => ({ ...m })) },
    agents,
    frameworks,
    weights: Object.fromEntries(state.frameworks.weights),
    quotas: quotasOf(state.quotas),
    whitelist: state.whitelist ? [...state.whitelist] : null,
  };
}
