import Redis from 'ioredis';
import {
  InProcessChangeFeed,
  LruSnapshotCache,
  RedisChangeFeed,
  RedisSnapshotCache,
  connectRedis,
} from '../../src/adapters/cache';
import type { ChangeFeed, ChangeNotice, SnapshotCache } from '../../src/ports';
import { enabledRedisBackend, requireUrl } from '../support/databases';

/*
 * One suite for every SnapshotCache and ChangeFeed. Redis runs when VEXIL_TEST_REDIS_URL is
 * set, and fails (never skips) when VEXIL_TEST_REQUIRE lists redis without a reachable server.
 */

interface CacheFixture {
  readonly cache: SnapshotCache;
  readonly feed: ChangeFeed;
  /** Resolves once published notices are delivered. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

type Factory = () => Promise<CacheFixture>;

const redis = enabledRedisBackend();
let prefixCounter = 0;
const uniquePrefix = (): string =>
  `vexil-test-${process.pid}-${Date.now().toString(36)}-${(prefixCounter += 1)}:`;

const factories: Array<[string, Factory]> = [
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

const nextNotice = (feed: ChangeFeed, count = 1): Promise<ChangeNotice[]> =>
  new Promise((resolve) => {
    const seen: ChangeNotice[] = [];
    const stop = feed.subscribe((n) => {
      seen.push(n);
      if (seen.length === count) {
        stop();
        resolve(seen);
      }
    });
  });

describe.each(factories)('snapshot cache contract (%s)', (_name, create) => {
  let fx: CacheFixture;
  beforeEach(async () => {
    fx = await create();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('returns undefined for a version never stored', async () => {
    expect(await fx.cache.get('ns', 1)).toBeUndefined();
    expect(await fx.cache.latestVersion('ns')).toBeUndefined();
  });

  it('returns what was stored, per namespace and version', async () => {
    await fx.cache.set('ns', 1, '{"v":1}');
    await fx.cache.set('ns', 2, '{"v":2}');
    await fx.cache.set('other', 1, '{"o":1}');
    expect(await fx.cache.get('ns', 1)).toBe('{"v":1}');
    expect(await fx.cache.get('ns', 2)).toBe('{"v":2}');
    expect(await fx.cache.get('other', 1)).toBe('{"o":1}');
    expect(await fx.cache.get('ns', 3)).toBeUndefined();
  });

  it('keeps text byte for byte, including non-ASCII', async () => {
    const text = JSON.stringify({ name: 'Zoë ✓ 旗', n: 0.1 + 0.2 });
    await fx.cache.set('ns', 7, text);
    expect(await fx.cache.get('ns', 7)).toBe(text);
  });

  it('raises the latest version and never lowers it', async () => {
    await fx.cache.set('ns', 5, 'five');
    expect(await fx.cache.latestVersion('ns')).toBe(5);
    await fx.cache.set('ns', 3, 'three');
    expect(await fx.cache.latestVersion('ns')).toBe(5);
    await fx.cache.set('ns', 9, 'nine');
    expect(await fx.cache.latestVersion('ns')).toBe(9);
    expect(await fx.cache.get('ns', 3)).toBe('three');
  });

  it('delete forgets every version of one namespace only', async () => {
    await fx.cache.set('ns', 1, 'a');
    await fx.cache.set('ns', 2, 'b');
    await fx.cache.set('ns2', 1, 'c');
    await fx.cache.delete('ns');
    expect(await fx.cache.get('ns', 1)).toBeUndefined();
    expect(await fx.cache.get('ns', 2)).toBeUndefined();
    expect(await fx.cache.latestVersion('ns')).toBeUndefined();
    expect(await fx.cache.get('ns2', 1)).toBe('c');
  });

  it('delivers published change notices to every subscriber', async () => {
    await fx.ready();
    const first = nextNotice(fx.feed, 2);
    const second = nextNotice(fx.feed, 2);
    await fx.feed.publish('ns', 3);
    await fx.feed.publish('other', 4);
    const expected = [
      { namespaceKey: 'ns', version: 3 },
      { namespaceKey: 'other', version: 4 },
    ];
    expect(await first).toEqual(expected);
    expect(await second).toEqual(expected);
  });

  it('stops delivering after unsubscribe', async () => {
    await fx.ready();
    const got: ChangeNotice[] = [];
    const stop = fx.feed.subscribe((n) => got.push(n));
    stop();
    const after = nextNotice(fx.feed);
    await fx.feed.publish('ns', 1);
    await after;
    expect(got).toEqual([]);
  });
});

describe('LRU snapshot cache bounds', () => {
  it('holds at most max_entries snapshots, evicting the least recently used', async () => {
    const cache = new LruSnapshotCache({ maxEntries: 2, maxBytes: 1024 });
    await cache.set('a', 1, 'A');
    await cache.set('b', 1, 'B');
    await cache.get('a', 1);
    await cache.set('c', 1, 'C');
    expect(await cache.get('b', 1)).toBeUndefined();
    expect(await cache.get('a', 1)).toBe('A');
    expect(await cache.get('c', 1)).toBe('C');
    expect(cache.entryCount).toBe(2);
  });

  it('holds at most max_bytes of serialized snapshots', async () => {
    const cache = new LruSnapshotCache({ maxEntries: 100, maxBytes: 1000 });
    for (let v = 1; v <= 10; v += 1) await cache.set('ns', v, 'x'.repeat(300));
    expect(cache.sizeBytes).toBeLessThanOrEqual(1000);
    expect(cache.entryCount).toBe(3);
    expect(await cache.get('ns', 10)).toBeDefined();
    expect(await cache.get('ns', 1)).toBeUndefined();
  });

  it('does not keep a snapshot larger than the whole byte budget', async () => {
    const cache = new LruSnapshotCache({ maxEntries: 100, maxBytes: 100 });
    await cache.set('ns', 1, 'y'.repeat(101));
    expect(await cache.get('ns', 1)).toBeUndefined();
  });

  it('counts bytes as UTF-8', async () => {
    const cache = new LruSnapshotCache({ maxEntries: 100, maxBytes: 1000 });
    await cache.set('ns', 1, 'é'.repeat(10));
    expect(cache.sizeBytes).toBe(20);
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

  it('uses the documented keys with an expiry', async () => {
    const prefix = uniquePrefix();
    const client = connectRedis({
      url: requireUrl(redis ?? { name: 'redis', url: '' }),
      host: '',
      port: 0,
      db: 0,
    });
    await new Promise((r) => client.once('ready', r));
    const cache = new RedisSnapshotCache(client, { prefix, expiryMs: 30_000 });
    await cache.set('flags', 12, '{"x":1}');
    expect(await admin.get(`${prefix}snapshot:flags:12`)).toBe('{"x":1}');
    expect(await admin.get(`${prefix}version:flags`)).toBe('12');
    const ttl = await admin.pttl(`${prefix}snapshot:flags:12`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
    await cache.close();
  });

  it('fails fast, without queueing, when Redis cannot be reached', async () => {
    // Nothing listens on port 1.
    const client = connectRedis({ host: '127.0.0.1', port: 1, db: 0, connectTimeoutMs: 200 });
    const cache = new RedisSnapshotCache(client, { prefix: uniquePrefix(), expiryMs: 1000 });
    const started = Date.now();
    await expect(cache.get('ns', 1)).rejects.toThrow();
    await expect(cache.set('ns', 1, 'x')).rejects.toThrow();
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
