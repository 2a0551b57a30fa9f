export * from './allocator';
export { seededRandom } from './milli';
export { MesosPlacement, PackPlacement, type Placeable, placementFor, type PlacementStrategy } from './placement';
export { restoreAllocator } from './restore';
export * from './sorter-port';
export * from './trace';
export * from './types';
