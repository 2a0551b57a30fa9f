export * from './drf-demo';
export * from './batch';
