/** The DRF sorter's tree nodes, their order among siblings, and milli arithmetic on them. */

export type MilliQuantities = ReadonlyMap<string, number>;

export const VIRTUAL = '.';

export interface Node {
  /** Full path; a virtual leaf's path is `<client>/.`. */
  path: string;
  /** The client a leaf stands for: its path, or for a virtual leaf its parent's path. */
  client: string;
  /** A virtual leaf (weighs 1). */
  virtual: boolean;
  parent: Node | null;
  /** Sorted siblings order; empty for leaves. */
  children: Node[];
  /** True for a leaf that is a client (a plain client or a virtual leaf). */
  isClient: boolean;
  active: boolean;
  /** Subtree allocation, milli by name. */
  allocation: Map<string, number>;
  /** Subtree allocation count. */
  count: number;
  share: number;
}

export function compare(a: Node, b: Node): number {
  if (a.share !== b.share) return a.share < b.share ? -1 : 1;
  if (a.count !== b.count) return a.count - b.count;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

export function addInto(into: Map<string, number>, q: MilliQuantities, sign: number): void {
  for (const [k, v] of q) {
    const next = (into.get(k) ?? 0) + sign * v;
    if (next <= 0) into.delete(k);
    else into.set(k, next);
  }
}
