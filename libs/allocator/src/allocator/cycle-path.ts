/**
 * The ways a cycle can run. The fast path (the default) remembers between questions and
 * cycles what still holds: a sorter's order read only as far as needed, which resources a
 * filter was found to cover, the last minimum-allocatable answer, the frameworks that passed
 * an agent by, and a plain agent's offer built without splitting. The reference path
 * (reference-path.ts) runs cycles as they ran before the fast paths and makes the same offers;
 * the allocator bench's `--check` and the reference-path tests compare the two.
 */
import { Resources } from '../resources';
import { ArrayCursor, type SortCursor } from '../sorter';
import type { Agent } from './agent';
import type { Filter } from './offer-filters';
import type { ClientSorter } from './sorter-port';

export interface CyclePath {
  /** Whether answers are remembered (minimum allocatable, frameworks that passed an agent by). */
  readonly remembers: boolean;
  /** Active clients of `sorter` in order, read as needed. */
  order(sorter: ClientSorter): SortCursor;
  /** Whether filter `f` holds back `resources`. */
  covers(f: Filter, resources: Resources): boolean;
  /** The unreserved, non-revocable, non-shared scalars of `r` cut to `caps` (see `Resources.capScalars`). */
  capScalars(r: Resources, caps: ReadonlyMap<string, number>, absentIsUnlimited: boolean): Resources;
  /** The shared volumes in an offer of `resources` on the agent. */
  sharedIn(agent: Agent, resources: Resources): Resources;
  /**
   * A quota-stage offer: the guaranteed scalars, the reservations for the role, the
   * unreserved non-scalars and revocable scalars the framework may use, and `rest`.
   */
  quotaOffer(agent: Agent, usable: Resources, role: string, guaranteed: Resources, rest: Resources): Resources;
}

/** A quota-stage offer built piece by piece (any agent). */
export function quotaOfferOf(usable: Resources, role: string, guaranteed: Resources, rest: Resources): Resources {
  return guaranteed
    .plus(usable.reserved(role))
    .plus(usable.nonScalars().unreserved())
    .plus(usable.revocable().unreserved().scalars())
    .plus(rest);
}

export class FastPath implements CyclePath {
  readonly remembers = true;

  order(sorter: ClientSorter): SortCursor {
    return sorter.cursor ? sorter.cursor() : new ArrayCursor(sorter.sort());
  }

  /** Remembers the last resources found covered, by identity (they are immutable). */
  covers(f: Filter, resources: Resources): boolean {
    if (f.covers === resources) return true;
    if (!f.resources.contains(resources)) return false;
    f.covers = resources;
    return true;
  }

  capScalars(r: Resources, caps: ReadonlyMap<string, number>, absentIsUnlimited: boolean): Resources {
    return r.capScalars(caps, absentIsUnlimited);
  }

  /** Only an agent with shared resources offers any. */
  sharedIn(agent: Agent, resources: Resources): Resources {
    return agent.hasShared ? resources.shared() : Resources.empty();
  }

  /** A plain agent has nothing reserved or revocable: its offer is scalars and the rest. */
  quotaOffer(agent: Agent, usable: Resources, role: string, guaranteed: Resources, rest: Resources): Resources {
    return agent.plain ? guaranteed.plus(usable.nonScalars()).plus(rest) : quotaOfferOf(usable, role, guaranteed, rest);
  }
}
