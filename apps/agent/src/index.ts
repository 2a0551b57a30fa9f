export * from './agent';
export * from './detect';
export * from './journal';
export * from './tasks';
export * from './isolation';
