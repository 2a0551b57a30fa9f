/**
 * Shared resources in the sorter, as Mesos's DRFSorter counts them: a client holding copies of
 * one shared resource (a shared persistent volume) on an agent counts its size once, from its
 * first copy until its last copy is released, however many copies it holds. Each client counts
 * it for itself: two clients using one volume both count it.
 */
import type { MilliQuantities } from './node';

/** One shared resource in an allocation change: its identity, its size and how many copies. */
export interface SharedCopy {
  /** Identifies the resource (the same volume, reservation and name give the same key). */
  readonly key: string;
  readonly name: string;
  /** Its size in thousandths (one copy). */
  readonly milli: number;
  readonly copies: number;
}

export class SharedHoldings {
  /** Client -> agent -> shared key -> copies held. */
  private readonly held = new Map<string, Map<string, Map<string, number>>>();

  /**
   * The quantities to add (sign 1) or take out (sign -1) for a change of `quantities` (where
   * each shared resource counts once) that holds `shared`: a shared resource already held
   * before an allocation, or still held after a release, is left out.
   */
  adjust(client: string, agent: string, quantities: MilliQuantities, shared: readonly SharedCopy[], sign: 1 | -1): MilliQuantities {
    let byAgent = this.held.get(client);
    if (!byAgent) this.held.set(client, (byAgent = new Map<string, Map<string, number>>()));
    let byKey = byAgent.get(agent);
    if (!byKey) byAgent.set(agent, (byKey = new Map<string, number>()));
    let out: Map<string, number> | undefined;
    for (const s of shared) {
      const before = byKey.get(s.key) ?? 0;
      const after = Math.max(0, before + sign * s.copies);
      if (after > 0) byKey.set(s.key, after);
      else byKey.delete(s.key);
      const counted = sign > 0 ? before === 0 : after === 0;
      if (counted) continue;
      out ??= new Map(quantities);
      const left = (out.get(s.name) ?? 0) - s.milli;
      if (left > 0) out.set(s.name, left);
      else out.delete(s.name);
    }
    if (byKey.size === 0) byAgent.delete(agent);
    if (byAgent.size === 0) this.held.delete(client);
    return out ?? quantities;
  }

  remove(client: string): void {
    this.held.delete(client);
  }
}
