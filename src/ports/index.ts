export * from './store';
export * from './system';
export * from './health';
