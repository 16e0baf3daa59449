import { UnavailableError } from '../../../src/domain/errors';
import type { Flag, NamespaceData } from '../../../src/domain/model';
import {
  NamespaceSnapshots,
  type SnapshotObserver,
} from '../../../src/domain/services/evaluation/namespace-snapshots';
import { InProcessChangeFeed, LruSnapshotCache } from '../../../src/adapters/cache';
import type {
  CacheResult,
  EvaluationSource,
  RefreshScheduler,
  SnapshotCache,
  Stopwatch,
} from '../../../src/ports';

const TS = '2024-05-01T10:00:00.000000Z';

function data(namespaceKey: string, version: number, enabled: boolean): NamespaceData {
  const flag: Flag = {
    namespaceKey,
    key: 'f',
    name: 'f',
    description: '',
    enabled,
    type: 'BOOLEAN_FLAG_TYPE',
    createdAt: TS,
    updatedAt: TS,
    variants: [],
  };
  return {
    namespace: {
      key: namespaceKey,
      name: namespaceKey,
      description: '',
      protected: false,
      createdAt: TS,
      updatedAt: TS,
    },
    version,
    flags: [flag],
    segments: [],
    rules: [],
    rollouts: [],
  };
}

/** A database whose namespace can be written and taken down. */
class FakeSource implements EvaluationSource {
  readonly rows = new Map<string, NamespaceData>();
  down = false;
  versionReads = 0;
  loads = 0;
  /** When set, loads wait for it (to hold a refresh in flight). */
  gate: Promise<void> | undefined;

  write(namespaceKey: string, enabled: boolean): number {
    const version = (this.rows.get(namespaceKey)?.version ?? 0) + 1;
    this.rows.set(namespaceKey, data(namespaceKey, version, enabled));
    return version;
  }

  getNamespaceVersion(namespaceKey: string): Promise<number | undefined> {
    this.versionReads += 1;
    if (this.down) return Promise.reject(new UnavailableError('postgres unreachable'));
    return Promise.resolve(this.rows.get(namespaceKey)?.version);
  }

  async loadNamespace(namespaceKey: string): Promise<NamespaceData | undefined> {
    this.loads += 1;
    if (this.gate !== undefined) await this.gate;
    if (this.down) throw new UnavailableError('postgres unreachable');
    return this.rows.get(namespaceKey);
  }
}

class ManualScheduler implements RefreshScheduler {
  readonly tasks: Array<{ intervalMs: number; task: () => void }> = [];
  every(intervalMs: number, task: () => void): () => void {
    const t = { intervalMs, task };
    this.tasks.push(t);
    return () => this.tasks.splice(this.tasks.indexOf(t), 1);
  }
  tick(): void {
    for (const t of [...this.tasks]) t.task();
  }
}

class BrokenCache implements SnapshotCache {
  readonly backend = 'redis' as const;
  get(): Promise<NamespaceData | undefined> {
    return Promise.reject(new Error('connect ECONNREFUSED'));
  }
  set(): Promise<void> {
    return Promise.reject(new Error('connect ECONNREFUSED'));
  }
  latestVersion(): Promise<number | undefined> {
    return Promise.reject(new Error('connect ECONNREFUSED'));
  }
  delete(): Promise<void> {
    return Promise.reject(new Error('connect ECONNREFUSED'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const stopwatch: Stopwatch = { nowMs: () => Date.now() };
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
async function settleAll(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await settle();
}

function setup(options: { cache?: SnapshotCache; ttlMs?: number; source?: FakeSource } = {}): {
  source: FakeSource;
  scheduler: ManualScheduler;
  feed: InProcessChangeFeed;
  cache: SnapshotCache;
  snapshots: NamespaceSnapshots;
  cacheResults: CacheResult[];
  observer: SnapshotObserver;
  staleChanges: boolean[];
} {
  const source = options.source ?? new FakeSource();
  const scheduler = new ManualScheduler();
  const feed = new InProcessChangeFeed();
  const cache = options.cache ?? new LruSnapshotCache({ maxEntries: 100, maxBytes: 1 << 20 });
  const cacheResults: CacheResult[] = [];
  const staleChanges: boolean[] = [];
  const observer: SnapshotObserver = {
    onCacheResult: (_b, r) => cacheResults.push(r),
    staleChanged: (stale) => staleChanges.push(stale),
  };
  const snapshots = new NamespaceSnapshots(source, {
    mode: 'cached',
    stopwatch,
    observer,
    caching: { ttlMs: options.ttlMs ?? 1000, scheduler, cache, changeFeed: feed },
  });
  return { source, scheduler, feed, cache, snapshots, cacheResults, observer, staleChanges };
}

const enabledOf = async (s: NamespaceSnapshots, ns = 'ns'): Promise<boolean | undefined> =>
  (await s.get(ns))?.data.flags[0]?.enabled;

describe("NamespaceSnapshots in 'cached' mode", () => {
  it('makes no database read on the hot path once a namespace is held', async () => {
    const { source, snapshots } = setup();
    source.write('ns', true);
    expect(await enabledOf(snapshots)).toBe(true);
    const reads = source.versionReads + source.loads;
    for (let i = 0; i < 100; i += 1) await snapshots.get('ns');
    expect(snapshots.peek('ns')?.version).toBe(1);
    expect(source.versionReads + source.loads).toBe(reads);
  });

  it('refreshes on a change notice, from the cache when it holds the version', async () => {
    const { source, snapshots, feed, cache } = setup();
    source.write('ns', true);
    await snapshots.get('ns');
    // Another instance wrote version 2 and stored it in the shared cache.
    const v2 = data('ns', 2, false);
    await cache.set('ns', 2, v2);
    const loads = source.loads;
    await feed.publish('ns', 2);
    await settleAll();
    expect(await enabledOf(snapshots)).toBe(false);
    expect(snapshots.peek('ns')?.version).toBe(2);
    expect(source.loads).toBe(loads);
  });

  it('refreshes on a notice from the database when the cache misses, and fills the cache', async () => {
    const { source, snapshots, feed, cache } = setup();
    source.write('ns', true);
    await snapshots.get('ns');
    source.write('ns', false);
    await feed.publish('ns', 2);
    await settleAll();
    expect(await enabledOf(snapshots)).toBe(false);
    expect(await cache.get('ns', 2)).toBeDefined();
  });

  it('ignores notices of versions it already has or namespaces it does not hold', async () => {
    const { source, snapshots, feed } = setup();
    source.write('ns', true);
    source.write('ns', true);
    await snapshots.get('ns');
    const loads = source.loads;
    await feed.publish('ns', 1);
    await feed.publish('ns', 2);
    await feed.publish('elsewhere', 9);
    await settleAll();
    expect(source.loads).toBe(loads);
  });

  it('refreshes within the ttl without any notice (version check every ttl/2)', async () => {
    const { source, snapshots, scheduler } = setup({ ttlMs: 1000 });
    expect(scheduler.tasks[0]?.intervalMs).toBe(500);
    source.write('ns', true);
    await snapshots.get('ns');
    source.write('ns', false);
    expect(await enabledOf(snapshots)).toBe(true);
    scheduler.tick();
    await settleAll();
    expect(await enabledOf(snapshots)).toBe(false);
  });

  it('keeps serving the current snapshot until the new one is built, then swaps', async () => {
    const { source, snapshots, feed } = setup();
    source.write('ns', true);
    await snapshots.get('ns');
    source.write('ns', false);
    let open = (): void => undefined;
    source.gate = new Promise((resolve) => (open = resolve));
    await feed.publish('ns', 2);
    await settleAll();
    expect(snapshots.peek('ns')?.version).toBe(1);
    expect(await enabledOf(snapshots)).toBe(true);
    source.gate = undefined;
    open();
    await settleAll();
    expect(await enabledOf(snapshots)).toBe(false);
  });

  it('never moves back to an older version', async () => {
    const { source, snapshots, feed, cache, scheduler } = setup();
    source.write('ns', true);
    source.write('ns', true);
    source.write('ns', false);
    await snapshots.get('ns');
    expect(snapshots.peek('ns')?.version).toBe(3);
    // A lagging replica or cache: it answers with version 2.
    await cache.set('ns', 2, data('ns', 2, true));
    source.rows.set('ns', data('ns', 2, true));
    await feed.publish('ns', 4);
    scheduler.tick();
    await settleAll();
    expect(snapshots.peek('ns')?.version).toBe(3);
    expect(await enabledOf(snapshots)).toBe(false);
  });

  it('follows several notices arriving during one refresh to the highest version', async () => {
    const { source, snapshots, feed } = setup();
    source.write('ns', true);
    await snapshots.get('ns');
    let open = (): void => undefined;
    source.gate = new Promise((resolve) => (open = resolve));
    source.write('ns', false);
    await feed.publish('ns', 2);
    source.write('ns', true);
    await feed.publish('ns', 3);
    source.gate = undefined;
    open();
    await settleAll();
    expect(snapshots.peek('ns')?.version).toBe(3);
  });

  it('a local write is read back by the next read and announced with its version', async () => {
    const { source, snapshots, feed, cache } = setup();
    source.write('ns', true);
    await snapshots.get('ns');
    const heard: Array<{ namespaceKey: string; version: number }> = [];
    feed.subscribe((n) => heard.push(n));
    source.write('ns', false);
    // The write answers once the snapshot served includes it: no read has to wait.
    await snapshots.invalidate('ns');
    expect(snapshots.peek('ns')?.version).toBe(2);
    expect(await enabledOf(snapshots)).toBe(false);
    await settleAll();
    expect(heard).toEqual([{ namespaceKey: 'ns', version: 2 }]);
    // Stored before it was announced, so the instances that hear of it find it.
    expect(await cache.get('ns', 2)).toBeDefined();
  });

  it('a new instance loads from the shared cache instead of the whole database read', async () => {
    const shared = new LruSnapshotCache({ maxEntries: 10, maxBytes: 1 << 20 });
    const first = setup({ cache: shared });
    first.source.write('ns', true);
    await first.snapshots.get('ns');
    const second = setup({ cache: shared, source: first.source });
    const loads = first.source.loads;
    expect(await enabledOf(second.snapshots)).toBe(true);
    expect(first.source.loads).toBe(loads);
    expect(second.cacheResults).toEqual(['hit']);
  });

  it('serves the last known good snapshot while the database is down, and says so', async () => {
    const { source, snapshots, scheduler, staleChanges } = setup();
    source.write('ns', true);
    await snapshots.get('ns');
    source.down = true;
    scheduler.tick();
    await settleAll();
    expect(snapshots.freshness()).toMatchObject({ stale: true });
    expect(snapshots.freshness().detail).toMatch(/last known good.*postgres unreachable/);
    for (let i = 0; i < 10; i += 1) expect(await enabledOf(snapshots)).toBe(true);
    source.down = false;
    source.write('ns', false);
    scheduler.tick();
    await settleAll();
    expect(snapshots.freshness()).toEqual({ stale: false });
    expect(staleChanges).toEqual([true, false]);
    expect(await enabledOf(snapshots)).toBe(false);
  });

  it('serves stale when a local write is followed by the database going away', async () => {
    const { source, snapshots } = setup();
    source.write('ns', true);
    await snapshots.get('ns');
    source.down = true;
    await snapshots.invalidate('ns');
    expect(await enabledOf(snapshots)).toBe(true);
    // No waiting on the database afterwards: the ttl check retries in the background.
    const loads = source.loads;
    await snapshots.get('ns');
    expect(source.loads).toBe(loads);
  });

  it('fails a first read of an unknown namespace while the database is down', async () => {
    const { source, snapshots } = setup();
    source.down = true;
    await expect(snapshots.get('ns')).rejects.toBeInstanceOf(UnavailableError);
  });

  it('falls back to the database when the cache fails, counting errors', async () => {
    const { source, snapshots, cacheResults, feed } = setup({ cache: new BrokenCache() });
    source.write('ns', true);
    expect(await enabledOf(snapshots)).toBe(true);
    source.write('ns', false);
    await feed.publish('ns', 2);
    await settleAll();
    expect(await enabledOf(snapshots)).toBe(false);
    expect(cacheResults.filter((r) => r === 'error').length).toBeGreaterThanOrEqual(2);
    expect(cacheResults).not.toContain('hit');
  });

  it('a local write still succeeds and is read back when the cache and feed are down', async () => {
    const source = new FakeSource();
    const scheduler = new ManualScheduler();
    const feedErrors: unknown[] = [];
    const snapshots = new NamespaceSnapshots(source, {
      mode: 'cached',
      stopwatch,
      observer: { changeFeedError: (e) => feedErrors.push(e) },
      caching: {
        ttlMs: 1000,
        scheduler,
        cache: new BrokenCache(),
        changeFeed: {
          publish: () => Promise.reject(new Error('redis down')),
          subscribe: () => () => undefined,
          close: () => Promise.resolve(),
        },
      },
    });
    source.write('ns', true);
    await snapshots.get('ns');
    source.write('ns', false);
    await snapshots.invalidate('ns');
    expect(await enabledOf(snapshots)).toBe(false);
    await settleAll();
    expect(feedErrors).toHaveLength(1);
  });

  it('a start from the cache during a database outage', async () => {
    const shared = new LruSnapshotCache({ maxEntries: 10, maxBytes: 1 << 20 });
    await shared.set('ns', 4, data('ns', 4, true));
    const { source, snapshots } = setup({ cache: shared });
    source.down = true;
    expect((await snapshots.get('ns'))?.version).toBe(4);
  });

  it('a change-feed gap triggers a version check of every held namespace', async () => {
    const source = new FakeSource();
    let gap = (): void => undefined;
    const snapshots = new NamespaceSnapshots(source, {
      mode: 'cached',
      stopwatch,
      caching: {
        ttlMs: 60_000,
        scheduler: new ManualScheduler(),
        changeFeed: {
          publish: () => Promise.resolve(),
          subscribe: (_l, onGap) => {
            gap = onGap ?? gap;
            return () => undefined;
          },
          close: () => Promise.resolve(),
        },
      },
    });
    source.write('a', true);
    source.write('b', true);
    await snapshots.get('a');
    await snapshots.get('b');
    source.write('a', false);
    source.write('b', false);
    gap();
    await settleAll();
    expect(await enabledOf(snapshots, 'a')).toBe(false);
    expect(await enabledOf(snapshots, 'b')).toBe(false);
  });

  it('sees a namespace created after it was asked for, within the ttl', async () => {
    const { source, snapshots, scheduler } = setup();
    expect(await snapshots.get('ns')).toBeUndefined();
    source.write('ns', true);
    scheduler.tick();
    await settleAll();
    expect(await enabledOf(snapshots)).toBe(true);
  });

  it('close stops the schedule and the subscription', async () => {
    const { source, snapshots, scheduler, feed } = setup();
    source.write('ns', true);
    await snapshots.get('ns');
    snapshots.close();
    expect(scheduler.tasks).toHaveLength(0);
    source.write('ns', false);
    await feed.publish('ns', 2);
    await settleAll();
    expect(snapshots.peek('ns')?.version).toBe(1);
  });
});

describe('NamespaceSnapshots modes without caching keep their behaviour', () => {
  it("'notified' serves the last snapshot when a reload after a write finds the database down", async () => {
    const source = new FakeSource();
    const snapshots = new NamespaceSnapshots(source, { mode: 'notified', stopwatch });
    source.write('ns', true);
    await snapshots.get('ns');
    source.write('ns', false);
    await snapshots.invalidate('ns');
    expect(await enabledOf(snapshots)).toBe(false);
    source.down = true;
    await snapshots.invalidate('ns');
    expect(await enabledOf(snapshots)).toBe(false);
  });

  it("'version-check' reads the version on every get and marks stale when it cannot", async () => {
    const source = new FakeSource();
    const snapshots = new NamespaceSnapshots(source, { mode: 'version-check', stopwatch });
    source.write('ns', true);
    await snapshots.get('ns');
    source.write('ns', false);
    expect(await enabledOf(snapshots)).toBe(false);
    source.down = true;
    expect(await enabledOf(snapshots)).toBe(false);
    expect(snapshots.freshness().stale).toBe(true);
    source.down = false;
    await snapshots.get('ns');
    expect(snapshots.freshness().stale).toBe(false);
  });

  it("'cached' mode without caching options is a configuration error", () => {
    expect(() => new NamespaceSnapshots(new FakeSource(), { mode: 'cached', stopwatch })).toThrow(
      /caching options/,
    );
  });
});
