/**
 * What the allocator needs from a sorter. The DRF sorter is the one implementation; the port
 * exists so that the allocator's tests and benchmarks can swap in another ordering policy.
 */
import { DRFSorter, type MilliQuantities as Quantities } from '../sorter';

export interface ClientSorter {
  add(client: string): void;
  activate(client: string): void;
  deactivate(client: string): void;
  contains(client: string): boolean;
  setWeight(path: string, weight: number): void;
  allocated(client: string, agent: string, quantities: Quantities): void;
  unallocated(client: string, agent: string, quantities: Quantities): void;
  addTotal(agent: string, quantities: Quantities): void;
  removeTotal(agent: string): void;
  sort(): string[];
  share(client: string): number;
}

export type SorterFactory = (excludedNames: readonly string[]) => ClientSorter;

export const createSorter: SorterFactory = (excludedNames) => new DRFSorter({ excludedNames });
