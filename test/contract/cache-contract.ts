import type { NamespaceData } from '../../src/domain/model';
import type { ChangeFeed, ChangeNotice, SnapshotCache } from '../../src/ports';

/*
 * The cache contract kit: what every cache backend's SnapshotCache and ChangeFeed must do.
 * A backend's test calls describeCacheContract with a factory of fresh fixtures.
 */

export interface CacheFixture {
  readonly cache: SnapshotCache;
  readonly feed: ChangeFeed;
  /** Resolves once published notices are delivered. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export type CacheFactory = () => Promise<CacheFixture>;

const TS = '2024-05-01T10:00:00.123456Z';

/** A namespace at a version, with one flag whose description carries `text`. */
export function ns(key: string, version: number, text = ''): NamespaceData {
  return {
    namespace: { key, name: key, description: '', protected: false, createdAt: TS, updatedAt: TS },
    version,
    flags: [
      {
        namespaceKey: key,
        key: 'f',
        name: 'F',
        description: text,
        enabled: true,
        type: 'BOOLEAN_FLAG_TYPE',
        createdAt: TS,
        updatedAt: TS,
        variants: [],
      },
    ],
    segments: [],
    rules: [],
    rollouts: [],
  };
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

export function describeCacheContract(name: string, create: CacheFactory): void {
  describe(`snapshot cache contract (${name})`, () => {
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
      await fx.cache.set('ns', 1, ns('ns', 1, 'one'));
      await fx.cache.set('ns', 2, ns('ns', 2, 'two'));
      await fx.cache.set('other', 1, ns('other', 1, 'o'));
      expect(await fx.cache.get('ns', 1)).toEqual(ns('ns', 1, 'one'));
      expect(await fx.cache.get('ns', 2)).toEqual(ns('ns', 2, 'two'));
      expect(await fx.cache.get('other', 1)).toEqual(ns('other', 1, 'o'));
      expect(await fx.cache.get('ns', 3)).toBeUndefined();
    });

    it('keeps text exactly, including non-ASCII', async () => {
      const stored = ns('ns', 7, JSON.stringify({ name: 'Zoë ✓ 旗', n: 0.1 + 0.2 }));
      await fx.cache.set('ns', 7, stored);
      expect(await fx.cache.get('ns', 7)).toEqual(stored);
    });

    it('raises the latest version and never lowers it', async () => {
      await fx.cache.set('ns', 5, ns('ns', 5));
      expect(await fx.cache.latestVersion('ns')).toBe(5);
      await fx.cache.set('ns', 3, ns('ns', 3));
      expect(await fx.cache.latestVersion('ns')).toBe(5);
      await fx.cache.set('ns', 9, ns('ns', 9));
      expect(await fx.cache.latestVersion('ns')).toBe(9);
      expect(await fx.cache.get('ns', 3)).toEqual(ns('ns', 3));
    });

    it('delete forgets every version of one namespace only', async () => {
      await fx.cache.set('ns', 1, ns('ns', 1));
      await fx.cache.set('ns', 2, ns('ns', 2));
      await fx.cache.set('ns2', 1, ns('ns2', 1));
      await fx.cache.delete('ns');
      expect(await fx.cache.get('ns', 1)).toBeUndefined();
      expect(await fx.cache.get('ns', 2)).toBeUndefined();
      expect(await fx.cache.latestVersion('ns')).toBeUndefined();
      expect(await fx.cache.get('ns2', 1)).toEqual(ns('ns2', 1));
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
}
