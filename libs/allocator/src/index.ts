/** Public API of the allocator library: pure TypeScript, no I/O. */
export * from './resources';
export * from './sorter';
export * from './allocator';
export * from './scenario';
