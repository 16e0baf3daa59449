import type { Stopwatch } from '../../ports';

export interface LookupCacheOptions {
  /** Entries kept at most; the least recently used goes first. */
  readonly maxEntries: number;
  /** Lifetime of an entry in ms, from when it was stored. */
  readonly ttlMs: number;
  readonly stopwatch: Stopwatch;
}

interface Entry<V> {
  readonly value: V;
  readonly storedAtMs: number;
}

/**
 * A small bounded LRU with a fixed time-to-live. A Map keeps insertion order, so re-inserting on
 * a hit makes the first key the least recently used one.
 */
export class LookupCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();

  constructor(private readonly options: LookupCacheOptions) {
    if (options.maxEntries < 1) throw new RangeError('maxEntries must be at least 1');
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.options.stopwatch.nowMs() - entry.storedAtMs >= this.options.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, storedAtMs: this.options.stopwatch.nowMs() });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Removes every entry whose value matches. Linear, for the rare explicit invalidation. */
  deleteWhere(predicate: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (predicate(entry.value)) this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
