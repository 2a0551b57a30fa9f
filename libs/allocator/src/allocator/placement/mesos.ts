/**
 * `mesos` placement: Mesos's order. Whole agents, shuffled per stage (seeded by the injected
 * randomness) when `shuffleAgents` is on; otherwise in the order given.
 */
import type { Placeable, PlacementStrategy } from './placement';

export class MesosPlacement implements PlacementStrategy {
  constructor(
    private readonly shuffle: boolean,
    private readonly random: () => number,
  ) {}

  order<A extends Placeable>(candidates: readonly A[]): readonly A[] {
    if (!this.shuffle) return candidates;
    const out = candidates.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}
