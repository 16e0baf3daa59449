import { LRUCache } from 'lru-cache';
import type { SnapshotCache } from '../../ports';

export interface LruSnapshotCacheOptions {
  /** caching.memory.max_entries: most (namespace, version) snapshots held. */
  readonly maxEntries: number;
  /** caching.memory.max_bytes: most bytes of serialized snapshots held (UTF-8). */
  readonly maxBytes: number;
}

const entryKey = (namespaceKey: string, version: number): string => `${namespaceKey}:${version}`;

/** Serialized snapshots private to this process, bounded by count and by bytes. */
export class LruSnapshotCache implements SnapshotCache {
  readonly backend = 'memory' as const;
  private readonly snapshots: LRUCache<string, string>;
  private readonly latest: LRUCache<string, number>;

  constructor(options: LruSnapshotCacheOptions) {
    const max = Math.max(1, options.maxEntries);
    const maxSize = Math.max(1, options.maxBytes);
    this.snapshots = new LRUCache<string, string>({
      max,
      maxSize,
      // A snapshot larger than the whole budget is simply not kept.
      maxEntrySize: maxSize,
      sizeCalculation: (value) => Math.max(1, Buffer.byteLength(value, 'utf8')),
    });
    this.latest = new LRUCache<string, number>({ max });
  }

  get(namespaceKey: string, version: number): Promise<string | undefined> {
    return Promise.resolve(this.snapshots.get(entryKey(namespaceKey, version)));
  }

  set(namespaceKey: string, version: number, serialized: string): Promise<void> {
    this.snapshots.set(entryKey(namespaceKey, version), serialized);
    const latest = this.latest.get(namespaceKey);
    if (latest === undefined || latest < version) this.latest.set(namespaceKey, version);
    return Promise.resolve();
  }

  latestVersion(namespaceKey: string): Promise<number | undefined> {
    return Promise.resolve(this.latest.get(namespaceKey));
  }

  delete(namespaceKey: string): Promise<void> {
    const prefix = `${namespaceKey}:`;
    for (const key of [...this.snapshots.keys()]) {
      if (key.startsWith(prefix)) this.snapshots.delete(key);
    }
    this.latest.delete(namespaceKey);
    return Promise.resolve();
  }

  /** Bytes currently held, for tests and metrics. */
  get sizeBytes(): number {
    return this.snapshots.calculatedSize;
  }

  get entryCount(): number {
    return this.snapshots.size;
  }

  close(): Promise<void> {
    this.snapshots.clear();
    this.latest.clear();
    return Promise.resolve();
  }
}
