import type { CacheBackendAdapter } from './cache-backend';
import { InProcessChangeFeed } from './in-process-change-feed';
import { IntervalScheduler } from './interval-scheduler';
import { LruSnapshotCache } from './lru-snapshot-cache';

/** `caching.memory`. */
export interface MemoryCacheSection {
  readonly max_entries: number;
  readonly max_bytes: number;
}

/** Snapshots in an LRU of this process; change notices stay in the process. */
export const memoryCacheBackend: CacheBackendAdapter<MemoryCacheSection> = {
  name: 'memory',
  create: (section) => {
    const cache = new LruSnapshotCache({
      maxEntries: section.max_entries,
      maxBytes: section.max_bytes,
    });
    const changeFeed = new InProcessChangeFeed();
    return {
      cache,
      changeFeed,
      scheduler: new IntervalScheduler(),
      ready: () => Promise.resolve(true),
      close: async () => {
        await changeFeed.close();
        await cache.close();
      },
    };
  },
};
