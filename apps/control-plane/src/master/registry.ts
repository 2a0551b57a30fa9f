/**
 * What the agent and framework registries share: a private map by id, read through a view,
 * changed only in the kernel's order (kernel/order.ts) by the methods each names for what happened.
 */
import { assertOrdered } from '../kernel/order';

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What may read a registry without changing it. */
export interface RegistryView<T> {
  get(id: string): T | undefined;
  has(id: string): boolean;
  values(): Iterable<T>;
  readonly size: number;
}

export abstract class Registry<T extends { readonly id: string }> implements RegistryView<T> {
  private readonly byId = new Map<string, Mutable<T>>();

  /** `noun`: what it holds, as the order checks name it ("an agent"). */
  protected constructor(private readonly noun: string) {}

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  values(): Iterable<T> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }

  /** Known from now on (replacing what was known of it), as the object given. */
  put(item: T): void {
    assertOrdered(`putting ${this.noun} in the registry`);
    this.byId.set(item.id, item);
  }

  /** Forgotten. */
  remove(id: string): void {
    assertOrdered(`removing ${this.noun} from the registry`);
    this.byId.delete(id);
  }

  /** A new term: nothing known until the state is rebuilt. */
  clear(): void {
    this.byId.clear();
  }

  /** Changes the one known by `id` (nothing if none), in the serial order; `what` names the change. */
  protected change(id: string, what: string, apply: (item: Mutable<T>) => void): void {
    assertOrdered(what);
    this.changeUnordered(id, apply);
  }

  /** Changes the one known by `id` wherever it runs: only for changes that commute with the serial order. */
  protected changeUnordered(id: string, apply: (item: Mutable<T>) => void): void {
    const item = this.byId.get(id);
    if (item) apply(item);
  }
}
