import Redis from 'ioredis';
import {
  CACHE_BACKEND_NAMES,
  createCaching,
  InProcessChangeFeed,
  LruSnapshotCache,
  namespaceBytes,
  RedisChangeFeed,
  RedisSnapshotCache,
  connectRedis,
} from '../../src/adapters/cache';
import {
  decodeNamespaceData,
  namespaceLines,
} from '../../src/domain/services/evaluation/snapshot-codec';
import { enabledRedisBackend, requireUrl } from '../support/databases';
import { describeCacheContract, ns, type CacheFactory } from './cache-contract';

/*
 * One suite for every SnapshotCache and ChangeFeed. Redis runs when VEXIL_TEST_REDIS_URL is
 * set, and fails (never skips) when VEXIL_TEST_REQUIRE lists redis without a reachable server.
 */

const redis = enabledRedisBackend();
let prefixCounter = 0;
const uniquePrefix = (): string =>
  `vexil-test-${process.pid}-${Date.now().toString(36)}-${(prefixCounter += 1)}:`;

const factories: Array<[string, CacheFactory]> = [
  [
    'lru',
    () => {
      const cache = new LruSnapshotCache({ maxEntries: 100, maxBytes: 1024 * 1024 });
      const feed = new InProcessChangeFeed();
      return Promise.resolve({
        cache,
        feed,
        ready: () => Promise.resolve(),
        close: async () => {
          await feed.close();
          await cache.close();
        },
      });
    },
  ],
];
if (redis !== undefined) {
  factories.push([
    'redis',
    async () => {
      const url = requireUrl(redis);
      const client = connectRedis({ url, host: '', port: 0, db: 0, commandTimeoutMs: 2000 });
      const started = Date.now();
      while (client.status !== 'ready') {
        if (Date.now() - started > 5000) {
          client.disconnect();
          throw new Error(`redis test server unreachable at ${url} (VEXIL_TEST_REDIS_URL)`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      const prefix = uniquePrefix();
      const cache = new RedisSnapshotCache(client, { prefix, expiryMs: 60_000 });
      const feed = new RedisChangeFeed(client, { prefix });
      if (!(await feed.ready(5000))) throw new Error('redis subscription not ready');
      return {
        cache,
        feed,
        ready: async () => {
          if (!(await feed.ready(5000))) throw new Error('redis subscription not ready');
        },
        close: async () => {
          await feed.close();
          await cache.close();
        },
      };
    },
  ]);
} else {
  console.log('cache contract: Redis suite not run (VEXIL_TEST_REDIS_URL unset, not required)');
}

for (const [name, create] of factories) describeCacheContract(name, create);

describe('LRU snapshot cache bounds', () => {
  it('holds at most max_entries snapshots, evicting the least recently used', async () => {
    const cache = new LruSnapshotCache({ maxEntries: 2, maxBytes: 1 << 20 });
    await cache.set('a', 1, ns('a', 1));
    await cache.set('b', 1, ns('b', 1));
    await cache.get('a', 1);
    await cache.set('c', 1, ns('c', 1));
    expect(await cache.get('b', 1)).toBeUndefined();
    expect(await cache.get('a', 1)).toEqual(ns('a', 1));
    expect(await cache.get('c', 1)).toEqual(ns('c', 1));
    expect(cache.entryCount).toBe(2);
  });

  it('holds at most max_bytes of snapshots, as estimated', async () => {
    const one = namespaceBytes(ns('ns', 1, 'x'.repeat(300)));
    const cache = new LruSnapshotCache({ maxEntries: 100, maxBytes: 3 * one + 10 });
    for (let v = 1; v <= 10; v += 1) await cache.set('ns', v, ns('ns', v, 'x'.repeat(300)));
    expect(cache.sizeBytes).toBeLessThanOrEqual(3 * one + 10);
    expect(cache.entryCount).toBe(3);
    expect(await cache.get('ns', 10)).toBeDefined();
    expect(await cache.get('ns', 1)).toBeUndefined();
  });

  it('does not keep a snapshot larger than the whole byte budget', async () => {
    const big = ns('ns', 1, 'y'.repeat(1000));
    const cache = new LruSnapshotCache({ maxEntries: 100, maxBytes: namespaceBytes(big) - 1 });
    await cache.set('ns', 1, big);
    expect(await cache.get('ns', 1)).toBeUndefined();
  });

  it('holds the very object it was given: no second copy of a held namespace', async () => {
    const cache = new LruSnapshotCache({ maxEntries: 10, maxBytes: 1 << 20 });
    const data = ns('ns', 1);
    await cache.set('ns', 1, data);
    expect(await cache.get('ns', 1)).toBe(data);
  });

  it('estimates size from the strings and the records of a namespace', () => {
    const small = namespaceBytes(ns('ns', 1));
    const large = namespaceBytes(ns('ns', 1, 'z'.repeat(5000)));
    expect(large - small).toBe(5000);
    expect(small).toBeGreaterThan(0);
  });
});

const describeRedis = redis === undefined ? describe.skip : describe;

describeRedis('Redis snapshot cache specifics', () => {
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(requireUrl(redis ?? { name: 'redis', url: '' }));
  });
  afterAll(async () => {
    await admin.quit();
  });

  /** A snapshot cache on a client of its own, once the client is ready. */
  async function snapshotCache(prefix: string): Promise<RedisSnapshotCache> {
    const client = connectRedis({
      url: requireUrl(redis ?? { name: 'redis', url: '' }),
      host: '',
      port: 0,
      db: 0,
    });
    await new Promise((r) => client.once('ready', r));
    return new RedisSnapshotCache(client, { prefix, expiryMs: 30_000 });
  }

  it('uses the documented keys with an expiry', async () => {
    const prefix = uniquePrefix();
    const cache = await snapshotCache(prefix);
    await cache.set('flags', 12, ns('flags', 12));
    // A list of lines of JSON: a header, then each non-empty list under its section letter.
    const lines = await admin.lrange(`${prefix}snapshot:flags:12`, 0, -1);
    expect(JSON.parse(lines[0] ?? 'null')).toEqual({
      namespace: ns('flags', 12).namespace,
      version: 12,
    });
    expect(lines.slice(1).every((l) => ['f', 's', 'r', 'o'].includes(l[0] ?? ''))).toBe(true);
    expect(decodeNamespaceData(lines.join('\n'), 'flags', 12)).toEqual(ns('flags', 12));
    expect(await admin.get(`${prefix}version:flags`)).toBe('12');
    const ttl = await admin.pttl(`${prefix}snapshot:flags:12`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
    await cache.close();
  });

  it('stores a large snapshot a few lines per command and leaves no other key', async () => {
    const prefix = uniquePrefix();
    const cache = await snapshotCache(prefix);
    const base = ns('big', 3);
    const flag = base.flags[0]!;
    const data = {
      ...base,
      flags: Array.from({ length: 10_000 }, (_, i) => ({ ...flag, key: `f${i}` })),
    };
    const lines = [...namespaceLines(data)];
    // More than one command's worth of lines either way (32 a command).
    expect(lines.length).toBeGreaterThan(32);
    await cache.set('big', 3, data);
    expect(await admin.lrange(`${prefix}snapshot:big:3`, 0, -1)).toEqual(lines);
    expect((await admin.keys(`${prefix}*`)).sort()).toEqual([
      `${prefix}snapshot:big:3`,
      `${prefix}version:big`,
    ]);
    expect(await cache.get('big', 3)).toEqual(data);
    await cache.close();
  });

  it('fails fast, without queueing, when Redis cannot be reached', async () => {
    // Nothing listens on port 1.
    const client = connectRedis({ host: '127.0.0.1', port: 1, db: 0, connectTimeoutMs: 200 });
    const cache = new RedisSnapshotCache(client, { prefix: uniquePrefix(), expiryMs: 1000 });
    const started = Date.now();
    await expect(cache.get('ns', 1)).rejects.toThrow();
    await expect(cache.set('ns', 1, ns('ns', 1))).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
    client.disconnect();
  });

  it('publishes notices as JSON {namespaceKey, version} on <prefix>changes', async () => {
    const prefix = uniquePrefix();
    const sub = admin.duplicate();
    const got = new Promise<string>((resolve) => sub.on('message', (_c, m: string) => resolve(m)));
    await sub.subscribe(`${prefix}changes`);
    const client = connectRedis({
      url: requireUrl(redis ?? { name: 'redis', url: '' }),
      host: '',
      port: 0,
      db: 0,
    });
    await new Promise((r) => client.once('ready', r));
    const feed = new RedisChangeFeed(client, { prefix });
    await feed.publish('flags', 42);
    expect(JSON.parse(await got)).toEqual({ namespaceKey: 'flags', version: 42 });
    await feed.close();
    client.disconnect();
    await sub.quit();
  });
});

describe('cache backend registry', () => {
  it('knows each backend by the name caching.backend takes', () => {
    expect(CACHE_BACKEND_NAMES).toEqual(['memory', 'redis']);
  });

  it('builds the memory backend from its own section', async () => {
    const adapters = createCaching('memory', { max_entries: 1, max_bytes: 1 << 20 });
    await adapters.cache.set('a', 1, ns('a', 1));
    await adapters.cache.set('b', 1, ns('b', 1));
    expect(await adapters.cache.get('a', 1)).toBeUndefined();
    expect(adapters.cache.backend).toBe('memory');
    await adapters.close();
  });

  it('refuses a name no backend registered', () => {
    expect(() => createCaching('memcached', {})).toThrow(
      'unknown cache backend "memcached" (known: memory, redis)',
    );
  });
});
