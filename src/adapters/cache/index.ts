export * from './cache-keys';
export * from './create-caching';
export * from './in-process-change-feed';
export * from './interval-scheduler';
export * from './lru-snapshot-cache';
export * from './redis-change-feed';
export * from './redis-connection';
export * from './redis-snapshot-cache';
