import type { ChangeFeed, Logger, RefreshScheduler, SnapshotCache } from '../../ports';
import { InProcessChangeFeed } from './in-process-change-feed';
import { IntervalScheduler } from './interval-scheduler';
import { LruSnapshotCache } from './lru-snapshot-cache';
import { RedisChangeFeed } from './redis-change-feed';
import { connectRedis, type RedisConnectionOptions } from './redis-connection';
import { DEFAULT_SNAPSHOT_EXPIRY_MS, RedisSnapshotCache } from './redis-snapshot-cache';

/** The `caching` section minus `enabled` and `ttl`, which NamespaceSnapshots takes. */
export interface CachingAdapterOptions {
  readonly backend: 'memory' | 'redis';
  readonly memory: { readonly maxEntries: number; readonly maxBytes: number };
  readonly redis: RedisConnectionOptions & {
    readonly prefix: string;
    /** Expiry of stored snapshots (default one hour). */
    readonly snapshotExpiryMs?: number;
  };
  readonly logger?: Logger;
}

export interface CachingAdapters {
  readonly cache: SnapshotCache;
  readonly changeFeed: ChangeFeed;
  readonly scheduler: RefreshScheduler;
  /** Resolves true when the backend is connected and subscribed within `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  /** Closes the feed, then the cache (they may share a connection). */
  close(): Promise<void>;
}

/** Builds the cache, change feed and scheduler of one backend. */
export function createCaching(options: CachingAdapterOptions): CachingAdapters {
  const scheduler = new IntervalScheduler();
  if (options.backend === 'memory') {
    const cache = new LruSnapshotCache(options.memory);
    const changeFeed = new InProcessChangeFeed();
    return {
      cache,
      changeFeed,
      scheduler,
      ready: () => Promise.resolve(true),
      close: async () => {
        await changeFeed.close();
        await cache.close();
      },
    };
  }
  const client = connectRedis(options.redis, options.logger);
  const cache = new RedisSnapshotCache(client, {
    prefix: options.redis.prefix,
    expiryMs: options.redis.snapshotExpiryMs ?? DEFAULT_SNAPSHOT_EXPIRY_MS,
  });
  const changeFeed = new RedisChangeFeed(client, {
    prefix: options.redis.prefix,
    logger: options.logger,
  });
  return {
    cache,
    changeFeed,
    scheduler,
    ready: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (client.status !== 'ready') {
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return changeFeed.ready(Math.max(0, deadline - Date.now()));
    },
    close: async () => {
      await changeFeed.close();
      await cache.close();
    },
  };
}
