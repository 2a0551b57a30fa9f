export { ArrayCursor, type SortCursor } from './cursors';
export { DRFSorter } from './drf-sorter';
export type { MilliQuantities } from './node';
export { SorterPool } from './pool';
export { type SharedCopy, SharedHoldings } from './shared-holdings';
export { PriorityDRFSorter, priorityOf, priorityThenFair, type RolePriorities } from './priority-sorter';
