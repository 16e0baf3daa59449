import type { ChangeFeed, Logger, RefreshScheduler, SnapshotCache } from '../../ports';

/** What a cache backend hands the application. */
export interface CachingAdapters {
  readonly cache: SnapshotCache;
  readonly changeFeed: ChangeFeed;
  readonly scheduler: RefreshScheduler;
  /** Resolves true when the backend is connected and subscribed within `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  /** Closes the feed, then the cache (they may share a connection). */
  close(): Promise<void>;
}

/**
 * A cache backend as it registers itself in ./registry.ts, under the name `caching.backend`
 * takes. `section` is its own configuration section, `caching.<name>`, as loaded (keys as the
 * configuration names them); the backend declares its shape.
 */
export interface CacheBackendAdapter<Section = never> {
  readonly name: string;
  create(section: Section, context: { readonly logger?: Logger }): CachingAdapters;
}
