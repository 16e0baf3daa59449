import { flagsAffected } from '../../evaluation';
import type { ChangeLog } from './change-log';
import type { NamespaceSnapshot } from './snapshot-types';

/** The flags a write may have changed: some, or the whole namespace. */
export type AffectedFlags = ReadonlySet<string> | 'all';

interface Settling {
  readonly flags: AffectedFlags;
  readonly done: Promise<void>;
}

/**
 * Writes of this process that have committed but are not yet in the served snapshot of their
 * namespace. A write is answered as soon as it commits; until the snapshot has caught up,
 * an evaluation of a flag it may have changed waits for that update (read-your-writes), and
 * every other flag is answered from the held snapshot without waiting.
 */
export class SettlingWrites {
  private readonly byNamespace = new Map<string, Settling>();

  /**
   * A write changed `flags`; `done` settles (never rejects) once the snapshot includes it and
   * every earlier write still settling.
   */
  add(namespaceKey: string, flags: AffectedFlags, done: Promise<void>): void {
    const before = this.byNamespace.get(namespaceKey)?.flags;
    const entry: Settling = { flags: merge(before, flags), done };
    this.byNamespace.set(namespaceKey, entry);
    void done.then(() => {
      if (this.byNamespace.get(namespaceKey) === entry) this.byNamespace.delete(namespaceKey);
    });
  }

  /**
   * What an answer for `flagKeys` (the whole namespace when undefined) must wait for first,
   * if anything.
   */
  awaited(namespaceKey: string, flagKeys?: string | readonly string[]): Promise<void> | undefined {
    if (this.byNamespace.size === 0) return undefined;
    const settling = this.byNamespace.get(namespaceKey);
    if (settling === undefined) return undefined;
    const { flags, done } = settling;
    if (flags === 'all' || flagKeys === undefined) return done;
    if (typeof flagKeys === 'string') return flags.has(flagKeys) ? done : undefined;
    return flagKeys.some((k) => flags.has(k)) ? done : undefined;
  }
}

function merge(a: AffectedFlags | undefined, b: AffectedFlags): AffectedFlags {
  if (a === undefined) return b;
  if (a === 'all' || b === 'all') return 'all';
  return new Set([...a, ...b]);
}

/**
 * The flags that the versions recorded in `changes` after `held` may have changed: 'all'
 * when one of them is unknown here, changed the namespace as a whole, or none is recorded.
 */
export function flagsChangedSince(
  changes: ChangeLog,
  held: NamespaceSnapshot | undefined,
): AffectedFlags {
  if (held === undefined) return 'all';
  const latest = changes.latest(held.key);
  if (latest === undefined || latest <= held.version) return 'all';
  const touched = changes.between(held.key, held.version, latest);
  return touched === undefined ? 'all' : flagsAffected(held.compiled, touched);
}
