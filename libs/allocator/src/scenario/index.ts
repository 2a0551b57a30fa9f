export * from './runner';
export * from './validate';
export * from './what-if';
