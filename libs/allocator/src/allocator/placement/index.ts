import type { AllocatorConfig } from '../types';
import { MesosPlacement } from './mesos';
import { PackPlacement } from './pack';
import type { PlacementStrategy } from './placement';

export { MesosPlacement } from './mesos';
export { PackPlacement } from './pack';
export type { Placeable, PlacementStrategy } from './placement';

/** The strategy the configuration names. */
export function placementFor(config: Pick<AllocatorConfig, 'placement' | 'shuffleAgents'>, random: () => number): PlacementStrategy {
  return config.placement === 'pack' ? new PackPlacement() : new MesosPlacement(config.shuffleAgents, random);
}
