export * from './registry';
export type { StorageAdapter, StorageOpenOptions } from './storage-adapter';
