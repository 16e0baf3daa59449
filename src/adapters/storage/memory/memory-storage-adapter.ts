import type { StorageAdapter } from '../storage-adapter';
import { InMemoryStore } from './in-memory-store';

/** `db.url: memory:` keeps everything in the process, gone at exit: for trials and tests. */
export const memoryStorageAdapter: StorageAdapter = {
  name: 'memory',
  schemes: ['memory'],
  check: () => undefined,
  open: async (options) => new InMemoryStore({ clock: options.clock }),
};
