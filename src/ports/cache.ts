import type { NamespaceData } from '../domain/model';

/** The name a cache backend is registered and configured under (`caching.backend`). */
export type CacheBackend = string;

export type CacheResult = 'hit' | 'miss' | 'error';

/**
 * Namespace snapshots keyed by (namespace, version). Redis stores them serialized; the
 * in-process backend keeps the very objects the evaluation snapshots hold, so it costs no
 * second copy. A (namespace, version) pair
 * names immutable content, so entries never need updating, only bounding. Implementations
 * throw when their store cannot be reached; callers treat that as a miss and read the
 * database instead, so a cache outage never fails an evaluation.
 */
export interface SnapshotCache {
  readonly backend: CacheBackend;
  /** The namespace at that version, or undefined when not cached (or unreadable). */
  get(namespaceKey: string, version: number): Promise<NamespaceData | undefined>;
  /** Stores one version and raises the namespace's latest known version (never lowers it). */
  set(namespaceKey: string, version: number, data: NamespaceData): Promise<void>;
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
