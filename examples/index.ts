export * from './drf-demo';
export * from './batch';
export * from './throttle';
export * from './task-group';
export * from './kv';
