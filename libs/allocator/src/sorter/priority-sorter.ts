/**
 * Priority, then fairness: roles with a higher priority number come first; among roles of the
 * same priority, DRF's order (weighted dominant shares, then allocation count, then name). A
 * role without a number of its own takes its nearest ancestor's (`eng/ci` takes `eng`'s), and
 * 0 when none has one. Framework sorters (inside a role) have no priorities: they are DRF's.
 *
 * It is one DRF sorter per priority over the same pool, so every book (allocations, totals,
 * weights, shares) is DRF's own, the order is read as lazily as DRF's, and a cycle's decisions
 * and their reasons are those of the built-in sorter except for the order in which roles are
 * visited. (Hierarchical shares are DRF's among the roles of one priority.)
 */
import type { SortCursor } from './cursors';
import { DRFSorter } from './drf-sorter';
import type { MilliQuantities } from './node';
import { SorterPool } from './pool';

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
  /** One DRF sorter per priority, highest first, all over one pool: DRF orders the roles of one priority among themselves. */
  private levels: Array<{ priority: number; drf: DRFSorter }> = [];
  private readonly levelOf = new Map<string, DRFSorter>();
  private readonly weights = new Map<string, number>();
  private readonly options: { excludedNames?: Iterable<string>; pool: SorterPool };

  constructor(
    private readonly priorities: RolePriorities,
    options: { excludedNames?: Iterable<string>; pool?: SorterPool } = {},
  ) {
    this.options = {
      ...(options.excludedNames ? { excludedNames: [...options.excludedNames] } : {}),
      pool: options.pool ?? new SorterPool(),
    };
  }

  private levelFor(priority: number): DRFSorter {
    const found = this.levels.find((l) => l.priority === priority);
    if (found) return found.drf;
    const drf = new DRFSorter(this.options);
    for (const [path, weight] of this.weights) drf.setWeight(path, weight);
    this.levels = [...this.levels, { priority, drf }].sort((a, b) => b.priority - a.priority);
    return drf;
  }

  private of(client: string): DRFSorter | undefined {
    return this.levelOf.get(client);
  }

  add(client: string): void {
    if (this.levelOf.has(client)) return;
    const drf = this.levelFor(priorityOf(this.priorities, client));
    this.levelOf.set(client, drf);
    drf.add(client);
  }
  activate(client: string): void {
    this.of(client)?.activate(client);
  }
  deactivate(client: string): void {
    this.of(client)?.deactivate(client);
  }
  contains(client: string): boolean {
    return this.levelOf.has(client);
  }
  setWeight(path: string, weight: number): void {
    this.weights.set(path, weight);
    for (const l of this.levels) l.drf.setWeight(path, weight);
  }
  allocated(client: string, agent: string, quantities: MilliQuantities): void {
    this.of(client)?.allocated(client, agent, quantities);
  }
  unallocated(client: string, agent: string, quantities: MilliQuantities): void {
    this.of(client)?.unallocated(client, agent, quantities);
  }
  addTotal(agent: string, quantities: MilliQuantities): void {
    this.options.pool.set(agent, quantities);
  }
  removeTotal(agent: string): void {
    this.options.pool.set(agent, undefined);
  }
  share(client: string): number {
    return this.of(client)?.share(client) ?? 0;
  }

  /** Active clients: by priority, highest first; DRF's order within a priority. */
  sort(): readonly string[] {
    if (this.levels.length === 1) return this.levels[0].drf.sort();
    return this.levels.flatMap((l) => l.drf.sort());
  }

  /** The same order read lazily: each priority's DRF cursor in turn, made when the one before is read out. */
  cursor(): SortCursor {
    if (this.levels.length === 1) return this.levels[0].drf.cursor();
    const levels = this.levels;
    let i = 0;
    let current: SortCursor | undefined;
    return {
      next: () => {
        for (;;) {
          current ??= i < levels.length ? levels[i].drf.cursor() : undefined;
          if (!current) return undefined;
          const c = current.next();
          if (c !== undefined) return c;
          current = undefined;
          i++;
        }
      },
      rest: () => [...(current ? current.rest() : []), ...levels.slice(current ? i + 1 : i).flatMap((l) => [...l.drf.sort()])],
    };
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
