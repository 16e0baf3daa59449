import type { CacheBackendAdapter } from './cache-backend';
import { IntervalScheduler } from './interval-scheduler';
import { RedisChangeFeed } from './redis-change-feed';
import { connectRedis } from './redis-connection';
import { DEFAULT_SNAPSHOT_EXPIRY_MS, RedisSnapshotCache } from './redis-snapshot-cache';

/** `caching.redis`. */
export interface RedisCacheSection {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly password: string;
  readonly db: number;
  readonly prefix: string;
  readonly tls: {
    readonly enabled: boolean;
    readonly ca_file: string;
    readonly insecure_skip_verify: boolean;
  };
  /** Expiry of stored snapshots (default one hour); not a configuration key. */
  readonly snapshot_expiry_ms?: number;
}

/** Snapshots shared in Redis; change notices over Redis pub/sub, one connection for both. */
export const redisCacheBackend: CacheBackendAdapter<RedisCacheSection> = {
  name: 'redis',
  create: (section, { logger }) => {
    const client = connectRedis(
      {
        url: section.url,
        host: section.host,
        port: section.port,
        password: section.password,
        db: section.db,
        tls: {
          enabled: section.tls.enabled,
          caFile: section.tls.ca_file,
          insecureSkipVerify: section.tls.insecure_skip_verify,
        },
      },
      logger,
    );
    const cache = new RedisSnapshotCache(client, {
      prefix: section.prefix,
      expiryMs: section.snapshot_expiry_ms ?? DEFAULT_SNAPSHOT_EXPIRY_MS,
    });
    const changeFeed = new RedisChangeFeed(client, { prefix: section.prefix, logger });
    return {
      cache,
      changeFeed,
      scheduler: new IntervalScheduler(),
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
  },
};
