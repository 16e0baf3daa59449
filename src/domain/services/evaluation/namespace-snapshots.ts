import { UnavailableError } from '../../errors';
import type { NamespaceData } from '../../model';
import type {
  CacheBackend,
  CacheResult,
  ChangeFeed,
  ChangeNotice,
  EvaluationSource,
  Logger,
  RefreshScheduler,
  SnapshotCache,
  Stopwatch,
} from '../../../ports';
import { compileNamespace, type CompiledNamespace } from '../../evaluation';

/**
 * How a snapshot is known to be fresh:
 *  - 'notified': this process sees every write (the embedded database); a cached snapshot is
 *    used until `invalidate` is called. Zero queries per evaluation.
 *  - 'version-check': other processes write to the same database; every read checks the
 *    namespace version (one primary-key read) and rebuilds when it moved.
 *  - 'cached' (`caching.enabled`): zero queries per evaluation once a namespace is held. A held
 *    snapshot is refreshed in the background on a change notice and by a version check every
 *    ttl/2, so it is never more than `caching.ttl` behind; loads read the shared snapshot cache
 *    before the database; versions only move forward.
 */
export type FreshnessMode = 'notified' | 'version-check' | 'cached';

export interface NamespaceSnapshot {
  readonly key: string;
  readonly version: number;
  readonly data: NamespaceData;
  readonly compiled: CompiledNamespace;
  /** Stopwatch time it was built at. */
  readonly builtAtMs: number;
}

interface Entry {
  /** undefined: the namespace did not exist when last read. */
  readonly snapshot: NamespaceSnapshot | undefined;
  readonly version: number | undefined;
}

const ABSENT: Entry = { snapshot: undefined, version: undefined };

/** Why a snapshot was (re)built in 'cached' mode. */
export type RefreshReason = 'load' | 'write' | 'notice' | 'ttl';

export interface SnapshotObserver {
  rebuilt?(namespaceKey: string, durationMs: number): void;
  /** Served from the last snapshot because the database could not be reached. */
  servedStale?(namespaceKey: string, error: Error): void;
  /** A lookup in (or store to) the snapshot cache; errors fell back to the database. */
  onCacheResult?(backend: CacheBackend, result: CacheResult): void;
  /** A newer snapshot was swapped in ('cached' mode). */
  refreshed?(
    namespaceKey: string,
    version: number | undefined,
    from: 'cache' | 'database',
    reason: RefreshReason,
  ): void;
  /** A background refresh or version check failed; the current snapshot is still served. */
  refreshFailed?(namespaceKey: string, error: unknown): void;
  /** A change notice could not be published; other instances catch up within the ttl. */
  changeFeedError?(error: unknown): void;
  /** The database became unreachable (stale: true) or reachable again. */
  staleChanged?(stale: boolean, detail: string | undefined): void;
}

export interface SnapshotCachingOptions {
  /** caching.ttl: the longest a held snapshot may lag behind the database. */
  readonly ttlMs: number;
  readonly scheduler: RefreshScheduler;
  /** Serialized snapshots shared between instances (Redis) or private (LRU). */
  readonly cache?: SnapshotCache;
  /** Where change notices arrive and where this instance's writes are announced. */
  readonly changeFeed?: ChangeFeed;
}

export interface NamespaceSnapshotsOptions {
  readonly mode: FreshnessMode;
  readonly stopwatch: Stopwatch;
  readonly logger?: Logger;
  readonly observer?: SnapshotObserver;
  /** Required in 'cached' mode, ignored otherwise. */
  readonly caching?: SnapshotCachingOptions;
}

export interface SnapshotFreshness {
  /** The database could not be reached at the last attempt: snapshots may be stale. */
  readonly stale: boolean;
  readonly staleForMs?: number;
  /** A health detail when stale. */
  readonly detail?: string;
}

interface Fetched {
  readonly entry: Entry;
  readonly from: 'cache' | 'database';
}

/**
 * Compiled, in-memory snapshots of namespaces for evaluation. Loads are de-duplicated per
 * namespace; a write announced through `invalidate` is never hidden by a load that started
 * before it; when the database cannot be reached the last known good snapshot is served.
 */
export class NamespaceSnapshots {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry>>();
  private readonly generations = new Map<string, number>();
  /** Namespaces written by this process whose next read must wait for the new version. */
  private readonly pending = new Set<string>();
  private readonly refreshing = new Map<string, Promise<void>>();
  /** Highest version announced while a refresh was running. */
  private readonly wanted = new Map<string, number>();
  private checking = false;
  private staleSinceMs: number | undefined;
  private staleError: string | undefined;
  private stopTicker: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly source: EvaluationSource,
    private readonly options: NamespaceSnapshotsOptions,
  ) {
    if (options.mode === 'cached') {
      const caching = options.caching;
      if (caching === undefined) throw new Error("freshness mode 'cached' needs caching options");
      this.stopTicker = caching.scheduler.every(Math.max(1, caching.ttlMs / 2), () => {
        void this.checkAll('ttl');
      });
      this.unsubscribe = caching.changeFeed?.subscribe(
        (notice) => this.noticed(notice),
        () => void this.checkAll('notice'),
      );
    }
  }

  /** The snapshot of a namespace, or undefined when the namespace does not exist. */
  async get(namespaceKey: string): Promise<NamespaceSnapshot | undefined> {
    const cached = this.entries.get(namespaceKey);
    if (this.options.mode !== 'version-check') {
      if (cached !== undefined && !this.pending.has(namespaceKey)) return cached.snapshot;
      return (await this.load(namespaceKey)).snapshot;
    }
    let version: number | undefined;
    try {
      version = await this.fromDatabase(() => this.source.getNamespaceVersion(namespaceKey));
    } catch (err) {
      return this.fallback(namespaceKey, cached, err);
    }
    if (cached !== undefined && cached.version === version) return cached.snapshot;
    return (await this.load(namespaceKey)).snapshot;
  }

  /** A cached snapshot without any I/O, when one is known to be usable right now. */
  peek(namespaceKey: string): NamespaceSnapshot | undefined {
    if (this.options.mode === 'version-check' || this.pending.has(namespaceKey)) return undefined;
    return this.entries.get(namespaceKey)?.snapshot;
  }

  /**
   * A write to the namespace committed in this process: the next read must see it. In
   * 'cached' mode the new version is also stored in the cache and announced on the change
   * feed, so other instances pick it up without waiting for the ttl.
   */
  invalidate(namespaceKey: string): void {
    this.generations.set(namespaceKey, (this.generations.get(namespaceKey) ?? 0) + 1);
    this.loading.delete(namespaceKey);
    if (this.options.mode === 'version-check') return;
    // The old entry stays as the last known good until the new version is built.
    this.pending.add(namespaceKey);
    if (this.options.mode === 'cached') {
      this.load(namespaceKey).catch((err: unknown) => {
        this.options.observer?.refreshFailed?.(namespaceKey, err);
      });
    }
  }

  /** Age of each cached snapshot, in milliseconds. */
  ages(): Array<{ namespaceKey: string; ageMs: number; version: number | undefined }> {
    const now = this.options.stopwatch.nowMs();
    return [...this.entries].map(([namespaceKey, e]) => ({
      namespaceKey,
      ageMs: e.snapshot ? now - e.snapshot.builtAtMs : 0,
      version: e.version,
    }));
  }

  /** Whether evaluations may currently be answered from stale snapshots. */
  freshness(): SnapshotFreshness {
    if (this.staleSinceMs === undefined) return { stale: false };
    const staleForMs = this.options.stopwatch.nowMs() - this.staleSinceMs;
    return { stale: true, staleForMs, detail: this.staleDetail(staleForMs) };
  }

  /**
   * Runs the ttl version check of every held namespace now (also run on a schedule and when
   * change notices may have been missed). Resolves when done; never rejects.
   */
  async checkAll(reason: RefreshReason = 'ttl'): Promise<void> {
    if (this.options.mode !== 'cached' || this.checking) return;
    this.checking = true;
    try {
      for (const namespaceKey of [...this.entries.keys()]) {
        if (this.refreshing.has(namespaceKey)) continue;
        try {
          await this.refresh(namespaceKey, undefined, reason);
        } catch (err) {
          this.options.observer?.refreshFailed?.(namespaceKey, err);
          // One unreachable database answers for every namespace: stop this round.
          if (err instanceof UnavailableError) break;
        }
      }
    } finally {
      this.checking = false;
    }
  }

  /** Stops the background refresh and the change-feed subscription. */
  close(): void {
    this.stopTicker?.();
    this.unsubscribe?.();
    this.stopTicker = undefined;
    this.unsubscribe = undefined;
  }

  private noticed(notice: ChangeNotice): void {
    const current = this.entries.get(notice.namespaceKey);
    // Namespaces nobody asked for here are loaded on demand, not on notice.
    if (current === undefined) return;
    if (current.version !== undefined && current.version >= notice.version) return;
    const wanted = this.wanted.get(notice.namespaceKey);
    if (wanted === undefined || wanted < notice.version) {
      this.wanted.set(notice.namespaceKey, notice.version);
    }
    if (this.refreshing.has(notice.namespaceKey)) return;
    this.refresh(notice.namespaceKey, notice.version, 'notice').catch((err: unknown) => {
      this.options.observer?.refreshFailed?.(notice.namespaceKey, err);
    });
  }

  /**
   * Brings a held namespace up to `target` (a version announced by a notice) or, when
   * undefined, to the database's current version. The current snapshot keeps being served
   * until the new one is compiled.
   */
  private refresh(
    namespaceKey: string,
    target: number | undefined,
    reason: RefreshReason,
  ): Promise<void> {
    const running = this.refreshing.get(namespaceKey);
    if (running !== undefined) return running;
    const run = async (): Promise<void> => {
      let next = target;
      for (;;) {
        this.wanted.delete(namespaceKey);
        const fetched = await this.fetch(namespaceKey, next);
        this.accept(namespaceKey, fetched, reason);
        next = this.wanted.get(namespaceKey);
        const version = this.entries.get(namespaceKey)?.version;
        if (next === undefined || (version !== undefined && version >= next)) return;
      }
    };
    const promise = run().finally(() => {
      this.wanted.delete(namespaceKey);
      if (this.refreshing.get(namespaceKey) === promise) this.refreshing.delete(namespaceKey);
    });
    this.refreshing.set(namespaceKey, promise);
    return promise;
  }

  private load(namespaceKey: string): Promise<Entry> {
    const inflight = this.loading.get(namespaceKey);
    if (inflight !== undefined) return inflight;
    const generation = this.generations.get(namespaceKey) ?? 0;
    const afterWrite = this.pending.has(namespaceKey);
    const current = (): boolean => (this.generations.get(namespaceKey) ?? 0) === generation;
    const promise = this.build(namespaceKey, afterWrite).then(
      (entry) => {
        if (this.options.mode === 'cached') {
          // Versions only move forward, so a slow load can never replace a newer snapshot.
          this.accept(namespaceKey, { entry, from: 'database' }, afterWrite ? 'write' : 'load');
          if (current()) this.pending.delete(namespaceKey);
        } else if (current()) {
          this.entries.set(namespaceKey, entry);
          this.pending.delete(namespaceKey);
        }
        if (this.loading.get(namespaceKey) === promise) this.loading.delete(namespaceKey);
        // Monotonic in 'cached' mode: the held entry is at least as new as the loaded one.
        return this.options.mode === 'cached' ? (this.entries.get(namespaceKey) ?? entry) : entry;
      },
      (err: unknown) => {
        if (this.loading.get(namespaceKey) === promise) this.loading.delete(namespaceKey);
        // With caching on, the ttl check retries in the background; reads go on from the
        // last known good snapshot instead of each waiting on a database that is down.
        if (this.options.mode === 'cached' && current()) this.pending.delete(namespaceKey);
        const cached = this.entries.get(namespaceKey);
        return { snapshot: this.fallback(namespaceKey, cached, err), version: cached?.version };
      },
    );
    this.loading.set(namespaceKey, promise);
    return promise;
  }

  private async build(namespaceKey: string, afterWrite: boolean): Promise<Entry> {
    if (this.options.mode !== 'cached') {
      const data = await this.fromDatabase(() => this.source.loadNamespace(namespaceKey));
      return data === undefined ? ABSENT : this.compile(data);
    }
    if (!afterWrite) return (await this.fetch(namespaceKey, undefined)).entry;
    // This process just wrote: the database is the only place holding the new version.
    const data = await this.fromDatabase(() => this.source.loadNamespace(namespaceKey));
    if (data === undefined) {
      await this.cacheDelete(namespaceKey);
      return ABSENT;
    }
    // Stored before it is announced, so the instances that hear of it find it in the cache.
    await this.cacheSet(data);
    this.publish(namespaceKey, data.version);
    return this.compile(data);
  }

  /**
   * The namespace at `version` (or at the database's current version when undefined): from
   * the snapshot cache when it holds it, else from the database, filling the cache.
   */
  private async fetch(namespaceKey: string, version: number | undefined): Promise<Fetched> {
    let wanted = version;
    if (wanted === undefined) {
      try {
        wanted = await this.fromDatabase(() => this.source.getNamespaceVersion(namespaceKey));
      } catch (err) {
        // A new instance during a database outage can still start from the shared cache.
        const fromCache =
          err instanceof UnavailableError && !this.entries.has(namespaceKey)
            ? await this.latestFromCache(namespaceKey)
            : undefined;
        if (fromCache === undefined) throw err;
        return { entry: this.compile(fromCache), from: 'cache' };
      }
      if (wanted === undefined) return { entry: ABSENT, from: 'database' };
      const held = this.entries.get(namespaceKey);
      if (held?.version !== undefined && held.version >= wanted) {
        return { entry: held, from: 'cache' };
      }
    }
    const cached = await this.cacheGet(namespaceKey, wanted);
    if (cached !== undefined) return { entry: this.compile(cached), from: 'cache' };
    const data = await this.fromDatabase(() => this.source.loadNamespace(namespaceKey));
    if (data === undefined) return { entry: ABSENT, from: 'database' };
    void this.cacheSet(data);
    return { entry: this.compile(data), from: 'database' };
  }

  /** Swaps in a fetched entry unless it would move the namespace back to an older version. */
  private accept(namespaceKey: string, fetched: Fetched, reason: RefreshReason): void {
    const { entry } = fetched;
    const held = this.entries.get(namespaceKey);
    if (held === entry) return;
    if (
      held !== undefined &&
      held.version !== undefined &&
      entry.version !== undefined &&
      entry.version <= held.version
    ) {
      return;
    }
    // An absent namespace only ever comes from the database: it was deleted.
    this.entries.set(namespaceKey, entry);
    this.options.observer?.refreshed?.(namespaceKey, entry.version, fetched.from, reason);
  }

  private compile(data: NamespaceData): Entry {
    const { stopwatch } = this.options;
    const started = stopwatch.nowMs();
    const compiled = compileNamespace(data);
    const builtAtMs = stopwatch.nowMs();
    this.options.observer?.rebuilt?.(data.namespace.key, builtAtMs - started);
    return {
      snapshot: { key: data.namespace.key, version: data.version, data, compiled, builtAtMs },
      version: data.version,
    };
  }

  /** Runs a database read, tracking whether the database is reachable. */
  private async fromDatabase<T>(read: () => Promise<T>): Promise<T> {
    try {
      const value = await read();
      this.markFresh();
      return value;
    } catch (err) {
      if (err instanceof UnavailableError) this.markStale(err);
      throw err;
    }
  }

  private async cacheGet(
    namespaceKey: string,
    version: number,
  ): Promise<NamespaceData | undefined> {
    const cache = this.options.caching?.cache;
    if (cache === undefined) return undefined;
    let data: NamespaceData | undefined;
    try {
      data = await cache.get(namespaceKey, version);
    } catch (err) {
      this.cacheError(cache.backend, 'get', err);
      return undefined;
    }
    this.options.observer?.onCacheResult?.(cache.backend, data === undefined ? 'miss' : 'hit');
    return data;
  }

  private async latestFromCache(namespaceKey: string): Promise<NamespaceData | undefined> {
    const cache = this.options.caching?.cache;
    if (cache === undefined) return undefined;
    let version: number | undefined;
    try {
      version = await cache.latestVersion(namespaceKey);
    } catch (err) {
      this.cacheError(cache.backend, 'latestVersion', err);
      return undefined;
    }
    return version === undefined ? undefined : this.cacheGet(namespaceKey, version);
  }

  private async cacheSet(data: NamespaceData): Promise<void> {
    const cache = this.options.caching?.cache;
    if (cache === undefined) return;
    try {
      await cache.set(data.namespace.key, data.version, data);
    } catch (err) {
      this.cacheError(cache.backend, 'set', err);
    }
  }

  private async cacheDelete(namespaceKey: string): Promise<void> {
    const cache = this.options.caching?.cache;
    if (cache === undefined) return;
    try {
      await cache.delete(namespaceKey);
    } catch (err) {
      this.cacheError(cache.backend, 'delete', err);
    }
  }

  private cacheError(backend: CacheBackend, operation: string, err: unknown): void {
    this.options.observer?.onCacheResult?.(backend, 'error');
    this.options.logger?.warn('snapshot cache unavailable; using the database', {
      backend,
      operation,
      error: err instanceof Error ? err.message : String(err),
    });
  }

  private publish(namespaceKey: string, version: number): void {
    const feed = this.options.caching?.changeFeed;
    if (feed === undefined) return;
    feed.publish(namespaceKey, version).catch((err: unknown) => {
      this.options.observer?.changeFeedError?.(err);
      this.options.logger?.warn('change notice not published; other instances follow within ttl', {
        namespaceKey,
        version,
        error: err instanceof Error ? err.message : String(err),
      });
    });
  }

  private markStale(err: Error): void {
    this.staleError = err.message;
    if (this.staleSinceMs !== undefined) return;
    this.staleSinceMs = this.options.stopwatch.nowMs();
    this.options.logger?.warn('database unreachable; serving the last known good snapshots', {
      error: err.message,
    });
    this.options.observer?.staleChanged?.(true, this.staleDetail(0));
  }

  private markFresh(): void {
    if (this.staleSinceMs === undefined) return;
    const staleForMs = this.options.stopwatch.nowMs() - this.staleSinceMs;
    this.staleSinceMs = undefined;
    this.staleError = undefined;
    this.options.logger?.info('database reachable again; snapshots are fresh', { staleForMs });
    this.options.observer?.staleChanged?.(false, undefined);
  }

  private staleDetail(staleForMs: number): string {
    return (
      `serving last known good snapshots for ${Math.round(staleForMs / 1000)}s: ` +
      (this.staleError ?? 'database unreachable')
    );
  }

  private fallback(
    namespaceKey: string,
    cached: Entry | undefined,
    err: unknown,
  ): NamespaceSnapshot | undefined {
    if (cached !== undefined && err instanceof UnavailableError) {
      this.options.observer?.servedStale?.(namespaceKey, err);
      return cached.snapshot;
    }
    throw err;
  }
}
