/**
 * Priority, then fairness: roles with a higher priority number come first; among roles of the
 * same priority, DRF's order (weighted dominant shares, then allocation count, then name). A
 * role without a number of its own takes its nearest ancestor's (`eng/ci` takes `eng`'s), and
 * 0 when none has one. Framework sorters (inside a role) have no priorities: they are DRF's.
 *
 * It is a DRF sorter with the order regrouped, so every book (allocations, totals, weights,
 * shares) is DRF's own, and a cycle's decisions and their reasons are those of the built-in
 * sorter except for the order in which roles are visited.
 */
import { ArrayCursor, type SortCursor } from './cursors';
import { DRFSorter } from './drf-sorter';
import type { MilliQuantities } from './node';
import type { SorterPool } from './pool';

/** Role path -> priority (higher first). */
export type RolePriorities = Readonly<Record<string, number>>;

/** The priority of a role: its own, else its nearest ancestor's, else 0. */
export function priorityOf(priorities: RolePriorities, role: string): number {
  for (let path = role; ;) {
    const p = priorities[path];
    if (typeof p === 'number') return p;
    const slash = path.lastIndexOf('/');
    if (slash < 0) return 0;
    path = path.slice(0, slash);
  }
}

export class PriorityDRFSorter {
  private readonly drf: DRFSorter;
  private readonly priorityByClient = new Map<string, number>();
  /** DRF's order this was regrouped from, and the result (DRF's `sort()` keeps its array until it changes). */
  private from: readonly string[] | null = null;
  private order: readonly string[] = [];

  constructor(
    private readonly priorities: RolePriorities,
    options: { excludedNames?: Iterable<string>; pool?: SorterPool } = {},
  ) {
    this.drf = new DRFSorter(options);
  }

  add(client: string): void {
    this.priorityByClient.set(client, priorityOf(this.priorities, client));
    this.drf.add(client);
  }
  activate(client: string): void {
    this.drf.activate(client);
  }
  deactivate(client: string): void {
    this.drf.deactivate(client);
  }
  contains(client: string): boolean {
    return this.drf.contains(client);
  }
  setWeight(path: string, weight: number): void {
    this.drf.setWeight(path, weight);
  }
  allocated(client: string, agent: string, quantities: MilliQuantities): void {
    this.drf.allocated(client, agent, quantities);
  }
  unallocated(client: string, agent: string, quantities: MilliQuantities): void {
    this.drf.unallocated(client, agent, quantities);
  }
  addTotal(agent: string, quantities: MilliQuantities): void {
    this.drf.addTotal(agent, quantities);
  }
  removeTotal(agent: string): void {
    this.drf.removeTotal(agent);
  }
  share(client: string): number {
    return this.drf.share(client);
  }

  /** Active clients: by priority, highest first; DRF's order within a priority (a stable regrouping). */
  sort(): readonly string[] {
    const drf = this.drf.sort();
    if (drf === this.from) return this.order;
    const groups = new Map<number, string[]>();
    for (const client of drf) {
      const p = this.priorityByClient.get(client) ?? 0;
      const g = groups.get(p);
      if (g) g.push(client);
      else groups.set(p, [client]);
    }
    this.from = drf;
    this.order = groups.size <= 1 ? drf : [...groups.keys()].sort((a, b) => b - a).flatMap((p) => groups.get(p) ?? []);
    return this.order;
  }

  cursor(): SortCursor {
    return new ArrayCursor(this.sort());
  }
}

/**
 * The sorter factory of priority-then-fair: the roles' sorter by priority then DRF, each role's
 * frameworks' sorter plain DRF (`role` is set for those).
 */
export function priorityThenFair(priorities: RolePriorities) {
  return (excludedNames: readonly string[], pool: SorterPool, role?: string): PriorityDRFSorter | DRFSorter =>
    role === undefined ? new PriorityDRFSorter(priorities, { excludedNames, pool }) : new DRFSorter({ excludedNames, pool });
}
