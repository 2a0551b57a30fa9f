export * from './drf-sorter';
