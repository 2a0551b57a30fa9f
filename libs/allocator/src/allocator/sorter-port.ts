/**
 * What the allocator needs from a sorter: the DRF sorter by default; another ordering policy
 * (priority-then-fair, a sorter module's: docs/modules.md) plugs in through `sorterFactory`.
 */
import { DRFSorter, type MilliQuantities as Quantities, type SharedCopy, type SortCursor, SorterPool } from '../sorter';

export interface ClientSorter {
  add(client: string): void;
  activate(client: string): void;
  deactivate(client: string): void;
  contains(client: string): boolean;
  setWeight(path: string, weight: number): void;
  /** `shared`: the shared resources in the change, each counted once per client and agent. */
  allocated(client: string, agent: string, quantities: Quantities, shared?: readonly SharedCopy[]): void;
  unallocated(client: string, agent: string, quantities: Quantities, shared?: readonly SharedCopy[]): void;
  addTotal(agent: string, quantities: Quantities): void;
  removeTotal(agent: string): void;
  sort(): readonly string[];
  /** The order of `sort()` read one client at a time (optional; `sort()` is used without it). */
  cursor?(): SortCursor;
  share(client: string): number;
}

/**
 * Makes a sorter; sorters made with the same pool share its totals. `role` is unset for the
 * sorter of roles, and names the role for the sorter of that role's frameworks.
 */
export type SorterFactory = (excludedNames: readonly string[], pool: SorterPool, role?: string) => ClientSorter;

export const createSorter: SorterFactory = (excludedNames, pool) => new DRFSorter({ excludedNames, pool });
