import { UnavailableError } from '../../errors';
import type {
  NamespaceSnapshot,
  NamespaceSnapshotsOptions,
  SnapshotFreshness,
} from './snapshot-types';

/**
 * Whether the database answered the last read of the snapshots: from the first read that found
 * it unreachable until the next that succeeds, evaluations are answered from the last known
 * good snapshots, and the service says so (health, logs, the observer).
 */
export class Staleness {
  private sinceMs: number | undefined;
  private error: string | undefined;

  constructor(
    private readonly options: Pick<NamespaceSnapshotsOptions, 'stopwatch' | 'logger' | 'observer'>,
  ) {}

  freshness(): SnapshotFreshness {
    if (this.sinceMs === undefined) return { stale: false };
    const staleForMs = this.options.stopwatch.nowMs() - this.sinceMs;
    return { stale: true, staleForMs, detail: this.detail(staleForMs) };
  }

  /** Runs a database read, tracking whether the database is reachable. */
  async read<T>(fn: () => Promise<T>): Promise<T> {
    try {
      const value = await fn();
      this.markFresh();
      return value;
    } catch (err) {
      if (err instanceof UnavailableError) this.markStale(err);
      throw err;
    }
  }

  /**
   * What a read that failed with `err` answers: the last known good state of the namespace
   * (its snapshot, or that it did not exist) when the database is unreachable and one is
   * held; otherwise the error.
   */
  fallback(
    namespaceKey: string,
    held: { readonly snapshot: NamespaceSnapshot | undefined } | undefined,
    err: unknown,
  ): NamespaceSnapshot | undefined {
    if (held !== undefined && err instanceof UnavailableError) {
      this.options.observer?.servedStale?.(namespaceKey, err);
      return held.snapshot;
    }
    throw err;
  }

  private markStale(err: Error): void {
    this.error = err.message;
    if (this.sinceMs !== undefined) return;
    this.sinceMs = this.options.stopwatch.nowMs();
    this.options.logger?.warn('database unreachable; serving the last known good snapshots', {
      error: err.message,
    });
    this.options.observer?.staleChanged?.(true, this.detail(0));
  }

  private markFresh(): void {
    if (this.sinceMs === undefined) return;
    const staleForMs = this.options.stopwatch.nowMs() - this.sinceMs;
    this.sinceMs = undefined;
    this.error = undefined;
    this.options.logger?.info('database reachable again; snapshots are fresh', { staleForMs });
    this.options.observer?.staleChanged?.(false, undefined);
  }

  private detail(staleForMs: number): string {
    return (
      `serving last known good snapshots for ${Math.round(staleForMs / 1000)}s: ` +
      (this.error ?? 'database unreachable')
    );
  }
}
