import type { NamespaceData } from '../../model';
import type {
  CacheBackend,
  CacheResult,
  ChangeFeed,
  Logger,
  RefreshScheduler,
  SnapshotCache,
  Stopwatch,
} from '../../../ports';
import type { CompiledNamespace } from '../../evaluation';

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

/**
 * The snapshot of `compiled`. Every snapshot is made here, so that all have one shape: the
 * evaluation path reads them, and two shapes would cost it its optimized code. The rows are
 * put together only when asked for (the snapshot route, the shared cache).
 */
export function snapshotOf(compiled: CompiledNamespace, builtAtMs: number): NamespaceSnapshot {
  return {
    key: compiled.key,
    version: compiled.version,
    get data() {
      return compiled.data;
    },
    compiled,
    builtAtMs,
  };
}

/** Why a snapshot was (re)built in 'cached' mode. */
export type RefreshReason = 'load' | 'write' | 'notice' | 'ttl';

export interface SnapshotObserver {
  rebuilt?(namespaceKey: string, durationMs: number): void;
  /** A held snapshot was brought forward by reading only what changed. */
  patched?(namespaceKey: string, durationMs: number, flags: number, segments: number): void;
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
  /**
   * Gives other work a turn (e.g. setImmediate); a large namespace is compiled in batches
   * with a pause between them. Without it, a namespace is compiled in one go.
   */
  readonly pause?: () => Promise<void>;
  /** Waits that many milliseconds (e.g. setTimeout). */
  readonly delay?: (ms: number) => Promise<void>;
}

export interface SnapshotFreshness {
  /** The database could not be reached at the last attempt: snapshots may be stale. */
  readonly stale: boolean;
  readonly staleForMs?: number;
  /** A health detail when stale. */
  readonly detail?: string;
}
