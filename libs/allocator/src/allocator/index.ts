export * from './allocator';
export * from './sorter-port';
export * from './trace';
