/**
 * The reference path: cycles run the way they ran before the fast paths. Sorters give their
 * full order, offer filters are checked pair by pair with nothing remembered between cycles,
 * quota cuts go through resource entries. Same offers as the fast path, slower; selected by
 * `referencePath: true` and used by the reference-path tests and the bench's `--check`.
 */
import { Resources } from '../resources';
import { ArrayCursor, type SortCursor } from '../sorter';
import type { Agent } from './agent';
import { type CyclePath, quotaOfferOf } from './cycle-path';
import type { Filter } from './offer-filters';
import type { ClientSorter } from './sorter-port';

/**
 * Cuts the unreserved, non-revocable, non-shared scalars of `r` down to `caps` (milli per
 * name). Names absent from `caps` are kept whole when `absentIsUnlimited`, else dropped.
 */
export function shrinkScalars(r: Resources, caps: ReadonlyMap<string, number>, absentIsUnlimited: boolean): Resources {
  const entries = r.entries().flatMap((e) => {
    if (e.value === undefined) return [e];
    const cap = caps.get(e.name);
    if (cap === undefined) return absentIsUnlimited ? [e] : [];
    const value = Math.min(Math.round(e.value * 1000), Math.max(0, cap)) / 1000;
    return value > 0 ? [{ ...e, value }] : [];
  });
  return Resources.of(entries);
}

export class ReferencePath implements CyclePath {
  readonly remembers = false;

  order(sorter: ClientSorter): SortCursor {
    return new ArrayCursor(sorter.sort());
  }

  covers(f: Filter, resources: Resources): boolean {
    return f.resources.contains(resources);
  }

  capScalars(r: Resources, caps: ReadonlyMap<string, number>, absentIsUnlimited: boolean): Resources {
    return shrinkScalars(r, caps, absentIsUnlimited);
  }

  sharedIn(_agent: Agent, resources: Resources): Resources {
    return resources.shared();
  }

  quotaOffer(_agent: Agent, usable: Resources, role: string, guaranteed: Resources, rest: Resources): Resources {
    return quotaOfferOf(usable, role, guaranteed, rest);
  }
}
