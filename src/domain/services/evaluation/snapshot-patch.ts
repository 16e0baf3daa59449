import type { NamespaceRows } from '../../model';
import type { EvaluationSource, Stopwatch } from '../../../ports';
import { patchNamespace, type TouchedKeys } from '../../evaluation';
import { coversKeys, type ChangeLog } from './change-log';
import { snapshotOf, type NamespaceSnapshot, type SnapshotObserver } from './snapshot-types';

export interface PatchDeps {
  readonly source: EvaluationSource;
  readonly changes: ChangeLog;
  readonly stopwatch: Stopwatch;
  /** Runs a database read (tracking whether the database is reachable). */
  readonly read: <T>(fn: () => Promise<T>) => Promise<T>;
  readonly delay: (ms: number) => Promise<void>;
  readonly observer?: SnapshotObserver;
}

/** Reads of rows before giving up on a namespace that keeps moving (then it is read whole). */
const ATTEMPTS = 4;

/**
 * `base` brought to the database's current version by reading only the flags and segments
 * changed since, when every version in between is known to `changes`; undefined when the
 * namespace has to be read whole (a version this instance has not heard of, a change to the
 * namespace as a whole, a namespace deleted, a source that cannot read rows).
 */
export async function patchSnapshot(
  deps: PatchDeps,
  base: NamespaceSnapshot,
): Promise<{ snapshot: NamespaceSnapshot; version: number } | undefined> {
  const { source, changes } = deps;
  const namespaceKey = base.key;
  const loadRows = source.loadRows;
  if (loadRows === undefined) return undefined;
  changes.prune(namespaceKey, base.version);
  const latest = changes.latest(namespaceKey);
  if (latest === undefined) return undefined;
  let keys = changes.between(namespaceKey, base.version, latest);
  for (let attempt = 0; keys !== undefined && attempt < ATTEMPTS; attempt++) {
    const asked: TouchedKeys = keys;
    const rows: NamespaceRows | undefined = await deps.read(() =>
      loadRows.call(source, namespaceKey, asked),
    );
    if (rows === undefined || rows.version < base.version) return undefined;
    if (rows.version === base.version) return { snapshot: base, version: base.version };
    let needed = changes.between(namespaceKey, base.version, rows.version);
    // A write of this process that committed just before the read is recorded a moment after
    // its commit; nothing else is worth waiting for (another process's version may never come).
    for (
      let wait = 0;
      needed === undefined && changes.writingNow(namespaceKey) && wait < 3;
      wait++
    ) {
      await deps.delay(wait * 10);
      needed = changes.between(namespaceKey, base.version, rows.version);
    }
    if (needed === undefined) return undefined;
    if (coversKeys(asked, needed)) {
      const started = deps.stopwatch.nowMs();
      const compiled = patchNamespace(base.compiled, rows, asked);
      const builtAtMs = deps.stopwatch.nowMs();
      deps.observer?.patched?.(
        namespaceKey,
        builtAtMs - started,
        asked.flags.length,
        asked.segments.length,
      );
      const snapshot = snapshotOf(compiled, builtAtMs);
      return { snapshot, version: rows.version };
    }
    keys = needed;
  }
  return undefined;
}
