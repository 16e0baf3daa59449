import { LRUCache } from 'lru-cache';
import type { NamespaceData } from '../../domain/model';
import type { SnapshotCache } from '../../ports';

export interface LruSnapshotCacheOptions {
  /** caching.memory.max_entries: most (namespace, version) snapshots held. */
  readonly maxEntries: number;
  /** caching.memory.max_bytes: most bytes of snapshots held (as estimated by namespaceBytes). */
  readonly maxBytes: number;
}

/**
 * An estimate of the memory a namespace takes, from its strings and the count of its
 * records: cheap (no serialization) and close to the size of its JSON form.
 */
export function namespaceBytes(data: NamespaceData): number {
  let bytes = 200 + data.namespace.key.length + data.namespace.name.length;
  for (const f of data.flags) {
    bytes += 250 + f.key.length + f.name.length + f.description.length;
    for (const v of f.variants) {
      bytes += 250 + v.key.length + v.name.length + v.description.length + v.attachment.length;
    }
    if (f.metadata !== undefined) bytes += 2 * Object.keys(f.metadata).length * 32;
  }
  for (const s of data.segments) {
    bytes += 200 + s.key.length + s.name.length + s.description.length;
    for (const c of s.constraints) bytes += 250 + c.property.length + c.value.length;
  }
  for (const r of data.rules) {
    bytes += 200 + r.segmentKeys.length * 40 + r.distributions.length * 200;
  }
  for (const r of data.rollouts) bytes += 250 + r.description.length;
  return bytes;
}

const entryKey = (namespaceKey: string, version: number): string => `${namespaceKey}:${version}`;

/**
 * Snapshots private to this process, bounded by count and by (estimated) bytes. It holds the
 * same objects as the evaluation snapshots, so a held namespace costs no second copy.
 */
export class LruSnapshotCache implements SnapshotCache {
  readonly backend = 'memory' as const;
  private readonly snapshots: LRUCache<string, NamespaceData>;
  private readonly latest: LRUCache<string, number>;

  constructor(options: LruSnapshotCacheOptions) {
    const max = Math.max(1, options.maxEntries);
    const maxSize = Math.max(1, options.maxBytes);
    this.snapshots = new LRUCache<string, NamespaceData>({
      max,
      maxSize,
      // A snapshot larger than the whole budget is simply not kept.
      maxEntrySize: maxSize,
      sizeCalculation: (value) => Math.max(1, namespaceBytes(value)),
    });
    this.latest = new LRUCache<string, number>({ max });
  }

  get(namespaceKey: string, version: number): Promise<NamespaceData | undefined> {
    return Promise.resolve(this.snapshots.get(entryKey(namespaceKey, version)));
  }

  set(namespaceKey: string, version: number, data: NamespaceData): Promise<void> {
    this.snapshots.set(entryKey(namespaceKey, version), data);
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
