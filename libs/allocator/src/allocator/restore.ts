/** An allocator rebuilt from a snapshot (see `HierarchicalAllocator.snapshot`). */
import { Resources } from '../resources';
import { HierarchicalAllocator } from './allocator';
import type { AllocatorOptions, AllocatorSnapshot } from './types';

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
      refinedReservations: a.refinedReservations,
      used: a.used.map((u) => ({ frameworkId: u.frameworkId, role: u.role, resources: Resources.of(u.resources) })),
    });
    if (a.maintenance) allocator.deactivateAgent(a.id, { maintenance: true });
  }
  return allocator;
}
