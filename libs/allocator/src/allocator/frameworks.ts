/**
 * Frameworks, the roles they subscribe to, and the sorters that order them: one role sorter
 * and one framework sorter per role (as Mesos composes them), all over the same pool.
 */
import { type MilliQuantities, type SharedCopy, SorterPool } from '../sorter';
import type { FrameworkState } from './framework';
import type { ClientSorter, SorterFactory } from './sorter-port';

export class Frameworks {
  readonly byId = new Map<string, FrameworkState>();
  /** role -> frameworks subscribed to it. */
  readonly byRole = new Map<string, Set<string>>();
  readonly roleSorter: ClientSorter;
  readonly sorters = new Map<string, ClientSorter>();
  readonly weights = new Map<string, number>();
  /** Cluster totals shared by every sorter. */
  readonly pool = new SorterPool();

  constructor(
    private readonly newSorter: SorterFactory,
    private readonly excludedNames: readonly string[],
  ) {
    this.roleSorter = newSorter(excludedNames, this.pool);
  }

  subscribe(fw: FrameworkState, role: string): void {
    fw.roles.add(role);
    let fws = this.byRole.get(role);
    if (!fws) {
      this.byRole.set(role, (fws = new Set()));
      if (!this.roleSorter.contains(role)) this.roleSorter.add(role);
      this.roleSorter.activate(role);
    }
    fws.add(fw.id);
    const sorter = this.sorterOf(role);
    if (!sorter.contains(fw.id)) sorter.add(fw.id);
    if (fw.active && !fw.suppressed.has(role)) sorter.activate(fw.id);
    else sorter.deactivate(fw.id);
  }

  unsubscribe(fw: FrameworkState, role: string): void {
    fw.roles.delete(role);
    fw.suppressed.delete(role);
    const fws = this.byRole.get(role);
    fws?.delete(fw.id);
    this.sorters.get(role)?.deactivate(fw.id);
    if (fws?.size === 0) {
      this.byRole.delete(role);
      this.roleSorter.deactivate(role);
    }
  }

  /** After the framework's activity or suppression changed: (de)activates it in its roles' sorters. */
  refreshActivity(fw: FrameworkState): void {
    for (const role of fw.roles) {
      const sorter = this.sorters.get(role);
      if (fw.active && !fw.suppressed.has(role)) sorter?.activate(fw.id);
      else sorter?.deactivate(fw.id);
    }
  }

  setWeight(role: string, weight: number): void {
    this.weights.set(role, weight);
    this.roleSorter.setWeight(role, weight);
  }

  /** Tells the sorters that the framework was allocated (sign 1) or gave back (sign -1) `quantities` on the agent. */
  track(fwId: string, role: string, agentId: string, quantities: MilliQuantities, sign: 1 | -1, shared?: readonly SharedCopy[]): void {
    if (!this.roleSorter.contains(role)) this.roleSorter.add(role);
    const fwSorter = this.sorterOf(role);
    if (!fwSorter.contains(fwId)) fwSorter.add(fwId);
    if (sign > 0) {
      this.roleSorter.allocated(role, agentId, quantities, shared);
      fwSorter.allocated(fwId, agentId, quantities, shared);
    } else {
      this.roleSorter.unallocated(role, agentId, quantities, shared);
      fwSorter.unallocated(fwId, agentId, quantities, shared);
    }
  }

  /** Weighted dominant shares as the sorters see them: per role and per (role, framework). */
  shares(): { roles: Record<string, number>; frameworks: Record<string, Record<string, number>> } {
    const roles: Record<string, number> = {};
    const frameworks: Record<string, Record<string, number>> = {};
    for (const [role, fws] of this.byRole) {
      roles[role] = this.roleSorter.share(role);
      const sorter = this.sorters.get(role);
      for (const fw of fws) (frameworks[fw] ??= {})[role] = sorter ? sorter.share(fw) : 0;
    }
    return { roles, frameworks };
  }

  private sorterOf(role: string): ClientSorter {
    let sorter = this.sorters.get(role);
    if (!sorter) this.sorters.set(role, (sorter = this.newSorter(this.excludedNames, this.pool, role)));
    return sorter;
  }
}
