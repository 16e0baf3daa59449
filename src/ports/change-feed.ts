import type { ChangedKeys } from '../domain/model';

/**
 * "Namespace `namespaceKey` now has version `version`", published after a write commits.
 * `changed` says what that version changed, so that a holder of the version before it can
 * read just that; without it (or 'all') the namespace is read whole.
 */
export interface ChangeNotice {
  readonly namespaceKey: string;
  readonly version: number;
  readonly changed?: ChangedKeys;
}

export type ChangeListener = (notice: ChangeNotice) => void;

/**
 * Change notices between instances (Redis pub/sub) or within one (in-process). Delivery is
 * best effort: `onGap` is called when notices may have been missed (e.g. a reconnect), so the
 * subscriber can re-check what it holds.
 */
export interface ChangeFeed {
  /** Rejects when the notice could not be sent; the write it announces stays committed. */
  publish(namespaceKey: string, version: number, changed?: ChangedKeys): Promise<void>;
  /** Returns a function that unsubscribes. */
  subscribe(listener: ChangeListener, onGap?: () => void): () => void;
  close(): Promise<void>;
}
