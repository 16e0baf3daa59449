import type { NamespaceRows } from '../model';
import {
  assembleNamespace,
  groupByFlag,
  NamespaceCompiler,
  type CompiledFlag,
  type CompiledNamespace,
  type FlagSource,
} from './compile-namespace';
import { compileSegment, type CompiledSegment } from './segment';

export interface TouchedKeys {
  readonly flags: readonly string[];
  readonly segments: readonly string[];
}

/**
 * `held` with the items whose key was touched replaced by their current rows, compiled. The
 * map keeps creation order, as a whole load has it: an item updated stays where it was; one
 * created since (a new key, or a key deleted and created again) goes last.
 */
function mergeByKey<R extends { readonly key: string; readonly createdAt: string }, C>(
  held: ReadonlyMap<string, C>,
  touched: ReadonlySet<string>,
  current: readonly R[],
  createdAt: (item: C) => string,
  compile: (row: R) => C,
): Map<string, C> {
  const next = new Map(held);
  const found = new Set<string>();
  for (const row of current) {
    found.add(row.key);
    const was = next.get(row.key);
    if (was !== undefined && createdAt(was) !== row.createdAt) next.delete(row.key);
    next.set(row.key, compile(row));
  }
  for (const key of touched) if (!found.has(key)) next.delete(key);
  return next;
}

const usesAny = (keys: readonly string[] | undefined, touched: ReadonlySet<string>): boolean =>
  keys !== undefined && keys.some((k) => touched.has(k));

const usesSegments = (source: FlagSource, touched: ReadonlySet<string>): boolean =>
  source.rules.some((r) => usesAny(r.segmentKeys, touched)) ||
  source.rollouts.some((r) => usesAny(r.segment?.segmentKeys, touched));

/**
 * The flags whose answers a change to `touched` can alter: the flags touched, and those that
 * use a touched segment in `previous` (a flag that starts using one is touched itself).
 */
export function flagsAffected(previous: CompiledNamespace, touched: TouchedKeys): Set<string> {
  const keys = new Set(touched.flags);
  if (touched.segments.length === 0) return keys;
  const segmentKeys = new Set(touched.segments);
  for (const flag of previous.flags.values()) {
    if (usesSegments(flag.source, segmentKeys)) keys.add(flag.key);
  }
  return keys;
}

/**
 * The namespace after a change to the flags and segments in `touched`, given their current
 * rows: only those flags and the flags using those segments are compiled again; the rest is
 * shared with `previous`, and nothing is gone through flag by flag unless a segment changed.
 * Evaluates exactly as compileNamespace of the same data would.
 */
export function patchNamespace(
  previous: CompiledNamespace,
  rows: NamespaceRows,
  touched: TouchedKeys,
): CompiledNamespace {
  const flagKeys = new Set(touched.flags);
  const segmentKeys = new Set(touched.segments);

  let segments = previous.segments;
  // Flags recompiled from the rows they were compiled from, for the segments they use.
  const usingSegments: CompiledFlag[] = [];
  if (segmentKeys.size > 0) {
    segments = mergeByKey<(typeof rows.segments)[number], CompiledSegment>(
      previous.segments,
      segmentKeys,
      rows.segments,
      (s) => s.source.createdAt,
      compileSegment,
    );
    for (const flag of previous.flags.values()) {
      if (!flagKeys.has(flag.key) && usesSegments(flag.source, segmentKeys)) {
        usingSegments.push(flag);
      }
    }
  }

  let flags = previous.flags;
  if (flagKeys.size > 0 || usingSegments.length > 0) {
    const compiler = new NamespaceCompiler(segments);
    const rules = groupByFlag(rows.rules);
    const rollouts = groupByFlag(rows.rollouts);
    const next =
      flagKeys.size === 0
        ? new Map(previous.flags)
        : mergeByKey<(typeof rows.flags)[number], CompiledFlag>(
            previous.flags,
            flagKeys,
            rows.flags,
            (f) => f.source.flag.createdAt,
            (flag) =>
              compiler.compileFlag(flag, rules.get(flag.key) ?? [], rollouts.get(flag.key) ?? []),
          );
    for (const { source } of usingSegments) {
      next.set(source.flag.key, compiler.compileFlag(source.flag, source.rules, source.rollouts));
    }
    flags = next;
  }
  return assembleNamespace(rows.namespace, rows.version, flags, segments);
}
