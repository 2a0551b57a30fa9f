export * from './allocator';
export { seededRandom } from './milli';
export { restoreAllocator } from './restore';
export * from './sorter-port';
export * from './trace';
export * from './types';
