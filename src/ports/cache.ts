export type CacheBackend = 'memory' | 'redis';

export type CacheResult = 'hit' | 'miss' | 'error';

/**
 * Serialized namespace snapshots keyed by (namespace, version). A (namespace, version) pair
 * names immutable content, so entries never need updating, only bounding. Implementations
 * throw when their store cannot be reached; callers treat that as a miss and read the
 * database instead, so a cache outage never fails an evaluation.
 */
export interface SnapshotCache {
  readonly backend: CacheBackend;
  /** The serialized NamespaceData of that version, or undefined when not cached. */
  get(namespaceKey: string, version: number): Promise<string | undefined>;
  /** Stores one version and raises the namespace's latest known version (never lowers it). */
  set(namespaceKey: string, version: number, serialized: string): Promise<void>;
  /** The highest version stored for the namespace, or undefined. */
  latestVersion(namespaceKey: string): Promise<number | undefined>;
  /** Forgets every version of the namespace (it was deleted). */
  delete(namespaceKey: string): Promise<void>;
  close(): Promise<void>;
}

/** Runs background work at a fixed interval; returns a function that stops it. */
export interface RefreshScheduler {
  every(intervalMs: number, task: () => void): () => void;
}
