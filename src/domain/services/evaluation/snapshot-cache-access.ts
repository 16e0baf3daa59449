import type { NamespaceData } from '../../model';
import type { CacheBackend, CacheResult, Logger, SnapshotCache } from '../../../ports';

/**
 * The snapshot cache as the snapshots use it: every failure is a miss (or a skipped store),
 * counted and logged, so that a cache outage never fails an evaluation.
 */
export class SnapshotCacheAccess {
  constructor(
    private readonly cache: SnapshotCache | undefined,
    private readonly onResult: ((backend: CacheBackend, result: CacheResult) => void) | undefined,
    private readonly logger: Logger | undefined,
  ) {}

  async get(namespaceKey: string, version: number): Promise<NamespaceData | undefined> {
    const cache = this.cache;
    if (cache === undefined) return undefined;
    let data: NamespaceData | undefined;
    try {
      data = await cache.get(namespaceKey, version);
    } catch (err) {
      this.failed(cache.backend, 'get', err);
      return undefined;
    }
    this.onResult?.(cache.backend, data === undefined ? 'miss' : 'hit');
    return data;
  }

  async latest(namespaceKey: string): Promise<NamespaceData | undefined> {
    const cache = this.cache;
    if (cache === undefined) return undefined;
    let version: number | undefined;
    try {
      version = await cache.latestVersion(namespaceKey);
    } catch (err) {
      this.failed(cache.backend, 'latestVersion', err);
      return undefined;
    }
    return version === undefined ? undefined : this.get(namespaceKey, version);
  }

  async set(data: NamespaceData): Promise<void> {
    const cache = this.cache;
    if (cache === undefined) return;
    try {
      await cache.set(data.namespace.key, data.version, data);
    } catch (err) {
      this.failed(cache.backend, 'set', err);
    }
  }

  async delete(namespaceKey: string): Promise<void> {
    const cache = this.cache;
    if (cache === undefined) return;
    try {
      await cache.delete(namespaceKey);
    } catch (err) {
      this.failed(cache.backend, 'delete', err);
    }
  }

  private failed(backend: CacheBackend, operation: string, err: unknown): void {
    this.onResult?.(backend, 'error');
    this.logger?.warn('snapshot cache unavailable; using the database', {
      backend,
      operation,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}
