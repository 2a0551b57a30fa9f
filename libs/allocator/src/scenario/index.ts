export * from './runner';
export * from './validate';
