import { addInto, type MilliQuantities } from './node';

/**
 * Pool totals (milli by name) that several sorters can share: the allocator's role sorter and
 * its per-role framework sorters all divide by the same cluster totals.
 */
export class SorterPool {
  readonly totals = new Map<string, number>();
  private readonly byAgent = new Map<string, MilliQuantities>();
  /** Bumped on every change so that sharing sorters know to recompute shares. */
  version = 0;

  set(agent: string, quantities: MilliQuantities | undefined): void {
    const old = this.byAgent.get(agent);
    if (old) addInto(this.totals, old, -1);
    if (quantities) {
      this.byAgent.set(agent, quantities);
      addInto(this.totals, quantities, 1);
    } else this.byAgent.delete(agent);
    this.version++;
  }
}
