export * from './store';
export * from './system';
