import type { ChangedKeys } from '../../domain/model';
import type { ChangeFeed, ChangeListener, ChangeNotice } from '../../ports';

/**
 * Change notices within one process (the memory backend): other instances have no way to
 * hear them and catch up through the ttl version check.
 */
export class InProcessChangeFeed implements ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();

  publish(namespaceKey: string, version: number, changed?: ChangedKeys): Promise<void> {
    const notice: ChangeNotice =
      changed === undefined ? { namespaceKey, version } : { namespaceKey, version, changed };
    for (const listener of [...this.listeners]) listener(notice);
    return Promise.resolve();
  }

  subscribe(listener: ChangeListener): () => void {
    // Wrapped so that the same function subscribed twice gets two subscriptions.
    const own: ChangeListener = (notice) => listener(notice);
    this.listeners.add(own);
    return () => {
      this.listeners.delete(own);
    };
  }

  close(): Promise<void> {
    this.listeners.clear();
    return Promise.resolve();
  }
}
