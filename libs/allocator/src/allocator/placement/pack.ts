/**
 * `pack` placement: the most used agents first (by their largest used fraction of any scalar
 * they have), and among equally used ones the smallest first (their scalars as fractions of
 * the largest agent's), then by id. Small tasks fill machines already in use and big free
 * machines stay whole for big tasks (docs/allocator.md).
 */
import type { Placeable, PlacementStrategy } from './placement';

export class PackPlacement implements PlacementStrategy {
  order<A extends Placeable>(candidates: readonly A[]): readonly A[] {
    const largest = new Map<string, number>();
    for (const a of candidates) for (const [name, m] of a.total.scalarMilli()) if (m > (largest.get(name) ?? 0)) largest.set(name, m);
    const keyed = candidates.map((a) => {
      const used = a.allocated.scalarMilli();
      let fullness = 0;
      let size = 0;
      for (const [name, m] of a.total.scalarMilli()) {
        if (m <= 0) continue;
        fullness = Math.max(fullness, (used.get(name) ?? 0) / m);
        size += m / (largest.get(name) ?? m);
      }
      return { a, fullness, size };
    });
    keyed.sort((x, y) => y.fullness - x.fullness || x.size - y.size || (x.a.id < y.a.id ? -1 : x.a.id > y.a.id ? 1 : 0));
    return keyed.map((k) => k.a);
  }
}
