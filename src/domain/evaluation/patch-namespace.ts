import type { Flag, NamespaceData, NamespaceRows, Rollout, Rule, Segment } from '../model';
import {
  groupByFlag,
  NamespaceCompiler,
  type CompiledFlag,
  type CompiledNamespace,
} from './compile-namespace';
import { compileSegment, type CompiledSegment } from './segment';

export interface TouchedKeys {
  readonly flags: readonly string[];
  readonly segments: readonly string[];
}

/**
 * Replaces the items whose key was touched by their current rows, in place; rows created
 * since (a new key, or a key deleted and created again) go last, as creation order has them.
 */
function mergeByKey<T extends { readonly key: string; readonly createdAt: string }>(
  items: readonly T[],
  touched: ReadonlySet<string>,
  current: readonly T[],
): T[] {
  const fresh = new Map(current.map((item) => [item.key, item]));
  const out: T[] = [];
  for (const item of items) {
    if (!touched.has(item.key)) {
      out.push(item);
      continue;
    }
    const now = fresh.get(item.key);
    if (now !== undefined && now.createdAt === item.createdAt) {
      out.push(now);
      fresh.delete(item.key);
    }
  }
  // Created since: creation order puts them after every row already held.
  for (const item of fresh.values()) out.push(item);
  return out;
}

/** The items of untouched flags, then the current ones of the touched flags. */
function mergeByFlag<T extends { readonly flagKey: string }>(
  items: readonly T[],
  touched: ReadonlySet<string>,
  current: readonly T[],
): T[] {
  const out = items.filter((item) => !touched.has(item.flagKey));
  for (const item of current) out.push(item);
  return out;
}

const usesAny = (keys: readonly string[] | undefined, touched: ReadonlySet<string>): boolean =>
  keys !== undefined && keys.some((k) => touched.has(k));

/**
 * The namespace after a change to the flags and segments in `touched`, given their current
 * rows: only those flags and the flags using those segments are compiled again, the rest is
 * shared with `previous`. Evaluates exactly as compileNamespace of the same data would.
 */
export function patchNamespace(
  previous: CompiledNamespace,
  rows: NamespaceRows,
  touched: TouchedKeys,
): CompiledNamespace {
  const flagKeys = new Set(touched.flags);
  const segmentKeys = new Set(touched.segments);
  const prev = previous.data;
  const data: NamespaceData = {
    namespace: rows.namespace,
    version: rows.version,
    flags: flagKeys.size === 0 ? prev.flags : mergeByKey<Flag>(prev.flags, flagKeys, rows.flags),
    segments:
      segmentKeys.size === 0
        ? prev.segments
        : mergeByKey<Segment>(prev.segments, segmentKeys, rows.segments),
    rules: flagKeys.size === 0 ? prev.rules : mergeByFlag<Rule>(prev.rules, flagKeys, rows.rules),
    rollouts:
      flagKeys.size === 0
        ? prev.rollouts
        : mergeByFlag<Rollout>(prev.rollouts, flagKeys, rows.rollouts),
  };

  let segments = previous.segments;
  const recompile = new Set(flagKeys);
  if (segmentKeys.size > 0) {
    const next = new Map<string, CompiledSegment>(previous.segments);
    for (const key of segmentKeys) next.delete(key);
    for (const s of rows.segments) next.set(s.key, compileSegment(s));
    segments = next;
    for (const r of data.rules) if (usesAny(r.segmentKeys, segmentKeys)) recompile.add(r.flagKey);
    for (const r of data.rollouts) {
      if (usesAny(r.segment?.segmentKeys, segmentKeys)) recompile.add(r.flagKey);
    }
  }

  const flags = new Map<string, CompiledFlag>(previous.flags);
  if (recompile.size > 0) {
    const compiler = new NamespaceCompiler(segments);
    // When only flags were touched, the rows read are exactly what is compiled again: no need
    // to go through the whole namespace's rules (tens of thousands) a second time.
    const onlyFlags = segmentKeys.size === 0;
    const rules = groupByFlag(
      onlyFlags ? rows.rules : data.rules.filter((r) => recompile.has(r.flagKey)),
    );
    const rollouts = groupByFlag(
      onlyFlags ? rows.rollouts : data.rollouts.filter((r) => recompile.has(r.flagKey)),
    );
    const createdAt = new Map<string, string>();
    for (const flag of prev.flags)
      if (flagKeys.has(flag.key)) createdAt.set(flag.key, flag.createdAt);
    const found = new Set<string>();
    // rows.flags holds the touched flags in creation order, as data.flags places them.
    for (const flag of onlyFlags ? rows.flags : data.flags) {
      if (!recompile.has(flag.key)) continue;
      found.add(flag.key);
      // Created again: it moves to the end of the map as it has in creation order.
      if (createdAt.has(flag.key) && createdAt.get(flag.key) !== flag.createdAt) {
        flags.delete(flag.key);
      }
      flags.set(
        flag.key,
        compiler.compileFlag(flag, rules.get(flag.key) ?? [], rollouts.get(flag.key) ?? []),
      );
    }
    for (const key of recompile) if (!found.has(key)) flags.delete(key);
  }
  return Object.freeze({
    key: data.namespace.key,
    version: data.version,
    flags,
    segments,
    data,
  });
}
