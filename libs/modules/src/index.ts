/**
 * Public API of Arbiter's modules: the extension points and their interfaces (what a module is
 * written against), the modules file, the loader and the hook runner the processes use.
 * docs/modules.md explains them; examples/modules/ has a template.
 */
export * from './points';
export * from './modules-file';
export * from './counters';
export * from './hooks';
export * from './policies';
export * from './oversubscription';
export * from './isolator-module';
export * from './loader';
// The allocator's types a policy module implements, so that a module imports this package only.
export type {
  AllocatorConfig,
  ClientSorter,
  MilliQuantities,
  Placeable,
  PlacementStrategy,
  SortCursor,
  SorterFactory,
} from '@arbiter/allocator';
export { ArrayCursor, DRFSorter, PriorityDRFSorter, priorityThenFair, SorterPool } from '@arbiter/allocator';
