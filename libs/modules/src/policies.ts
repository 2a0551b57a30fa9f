/**
 * Allocator policies from modules, guarded. A policy runs inside the allocation cycle, in the
 * cycle's own slices (synchronously: no time limit applies, as none does to the built-in ones).
 * A call that throws is counted and logged once per failure, and the point's rule applies:
 *
 * - allocator:sorter: the sorter is marked failed for the rest of its life, and answers from
 *   then on as the rule says: its clients in the order they were added (active ones), shares 0.
 *   The allocator's own books (agents, quota, offers) are unaffected.
 * - allocator:placement: that cycle's stage offers the agents in the order it was given them.
 */
import type { ClientSorter, PlacementStrategy, SortCursor, SorterFactory, SorterPool } from '@arbiter/allocator';
import type { ModuleCounters } from './counters';
import type { PlacementFactory } from './points';

type Quantities = Parameters<ClientSorter['allocated']>[2];

/** A module's sorter behind the failure rule. */
class GuardedSorter implements ClientSorter {
  /** Clients and whether they are active, in the order they were added (the fallback order). */
  private readonly clients = new Map<string, boolean>();
  private failed: boolean;
  readonly cursor?: () => SortCursor;

  constructor(
    private readonly inner: ClientSorter,
    private readonly onFailure: (err: unknown, call: string) => void,
    broken = false,
  ) {
    this.failed = broken;
    if (inner.cursor) {
      const cursorOf = inner.cursor.bind(inner);
      this.cursor = () => (this.failed ? new FallbackCursor(this.fallback()) : this.guardCursor(cursorOf));
    }
  }

  private run(call: string, work: () => void): void {
    if (this.failed) return;
    try {
      work();
    } catch (err) {
      this.fail(err, call);
    }
  }

  private fail(err: unknown, call: string): void {
    this.failed = true;
    this.onFailure(err, call);
  }

  private fallback(): string[] {
    const out: string[] = [];
    for (const [c, active] of this.clients) if (active) out.push(c);
    return out;
  }

  private guardCursor(cursorOf: () => SortCursor): SortCursor {
    try {
      return new GuardedCursor(cursorOf(), this);
    } catch (err) {
      this.fail(err, 'cursor');
      return new FallbackCursor(this.fallback());
    }
  }

  /** Whether a call has failed (the guarded cursor reads it). */
  get broken(): boolean {
    return this.failed;
  }

  /** A failure of the module's cursor. */
  cursorFailed(err: unknown, call: string): void {
    this.fail(err, call);
  }

  add(client: string): void {
    this.clients.set(client, false);
    this.run('add', () => this.inner.add(client));
  }
  activate(client: string): void {
    if (this.clients.has(client)) this.clients.set(client, true);
    this.run('activate', () => this.inner.activate(client));
  }
  deactivate(client: string): void {
    if (this.clients.has(client)) this.clients.set(client, false);
    this.run('deactivate', () => this.inner.deactivate(client));
  }
  contains(client: string): boolean {
    return this.clients.has(client);
  }
  setWeight(path: string, weight: number): void {
    this.run('setWeight', () => this.inner.setWeight(path, weight));
  }
  allocated(client: string, agent: string, quantities: Quantities): void {
    if (this.failed) return;
    try {
      this.inner.allocated(client, agent, quantities);
    } catch (err) {
      this.fail(err, 'allocated');
    }
  }
  unallocated(client: string, agent: string, quantities: Quantities): void {
    if (this.failed) return;
    try {
      this.inner.unallocated(client, agent, quantities);
    } catch (err) {
      this.fail(err, 'unallocated');
    }
  }
  addTotal(agent: string, quantities: Quantities): void {
    this.run('addTotal', () => this.inner.addTotal(agent, quantities));
  }
  removeTotal(agent: string): void {
    this.run('removeTotal', () => this.inner.removeTotal(agent));
  }
  sort(): readonly string[] {
    if (!this.failed)
      try {
        const order: unknown = this.inner.sort();
        if (Array.isArray(order)) return order as string[];
        throw new Error('sort() did not return an array of client names');
      } catch (err) {
        this.fail(err, 'sort');
      }
    return this.fallback();
  }
  share(client: string): number {
    if (this.failed) return 0;
    try {
      return this.inner.share(client);
    } catch (err) {
      this.fail(err, 'share');
      return 0;
    }
  }
}

/** A module's cursor whose failure marks its sorter failed and ends the order. */
class GuardedCursor implements SortCursor {
  constructor(
    private readonly inner: SortCursor,
    private readonly sorter: GuardedSorter,
  ) {}
  next(): string | undefined {
    if (this.sorter.broken) return undefined;
    try {
      return this.inner.next();
    } catch (err) {
      this.sorter.cursorFailed(err, 'cursor().next');
      return undefined;
    }
  }
  rest(): string[] {
    if (this.sorter.broken) return [];
    try {
      return this.inner.rest();
    } catch (err) {
      this.sorter.cursorFailed(err, 'cursor().rest');
      return [];
    }
  }
}

class FallbackCursor implements SortCursor {
  private i = 0;
  constructor(private readonly items: readonly string[]) {}
  next(): string | undefined {
    return this.items[this.i++];
  }
  rest(): string[] {
    return this.items.slice(this.i);
  }
}

/** A module's sorter factory whose sorters keep to the failure rule; a factory that throws gives a failed sorter. */
export function guardSorter(module: string, factory: SorterFactory, counters: ModuleCounters): SorterFactory {
  const count = counters.of(module, 'allocator:sorter');
  const onFailure = (err: unknown, call: string) => {
    counters.failed(count, err, `${call}: the sorter orders its clients as they were added from now on`);
  };
  return (excludedNames: readonly string[], pool: SorterPool, role?: string) => {
    let inner: ClientSorter;
    try {
      inner = factory(excludedNames, pool, role);
    } catch (err) {
      onFailure(err, 'create');
      return new GuardedSorter(BROKEN, onFailure, true);
    }
    return new GuardedSorter(inner, onFailure);
  };
}

/** What stands for a sorter its factory could not make (never called: its guard starts failed). */
const BROKEN: ClientSorter = {
  add: () => undefined,
  activate: () => undefined,
  deactivate: () => undefined,
  contains: () => false,
  setWeight: () => undefined,
  allocated: () => undefined,
  unallocated: () => undefined,
  addTotal: () => undefined,
  removeTotal: () => undefined,
  sort: () => [],
  share: () => 0,
};

/** A module's placement: a strategy whose failing `order` gives the candidates as they came (that once). */
export function guardPlacement(module: string, factory: PlacementFactory, counters: ModuleCounters): PlacementFactory {
  const count = counters.of(module, 'allocator:placement');
  return (config, random) => {
    let strategy: PlacementStrategy | undefined;
    try {
      strategy = factory(config, random);
    } catch (err) {
      counters.failed(count, err, 'agents are offered in the order the stage has them');
    }
    return {
      order: (candidates) => {
        if (!strategy) return candidates;
        try {
          const ordered = strategy.order(candidates);
          if (ordered.length !== candidates.length) throw new Error(`order() returned ${ordered.length} agents for ${candidates.length}`);
          return ordered;
        } catch (err) {
          counters.failed(count, err, 'agents are offered in the order the stage has them this time');
          return candidates;
        }
      },
    };
  };
}
