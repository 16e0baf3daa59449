export * from './store';
export * from './system';
export * from './health';
export * from './token-repository';
export * from './cache';
export * from './change-feed';
