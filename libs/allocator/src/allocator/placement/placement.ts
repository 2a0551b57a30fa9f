/**
 * Placement: the order in which a stage offers agents (config `placement`). A strategy only
 * orders; what goes into an offer is the stages' business.
 */

/** What a strategy reads of an agent. */
export interface Placeable {
  readonly id: string;
  readonly total: { scalarMilli(): ReadonlyMap<string, number> };
  readonly allocated: { scalarMilli(): ReadonlyMap<string, number> };
}

export interface PlacementStrategy {
  /** The agents in the order to offer them; `candidates` itself is left as it is. */
  order<A extends Placeable>(candidates: readonly A[]): readonly A[];
}
