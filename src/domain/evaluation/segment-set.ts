import type { Segment, SegmentOperator } from '../model';
import type { EvaluationContext } from './constraint';
import { compileSegment, matchSegment, type CompiledSegment } from './segment';

export const OPERATOR_OR = 0;
export const OPERATOR_AND = 1;
/** Corrupt data: Flipt applies no segment check at all for an unknown operator. */
export const OPERATOR_UNCHECKED = 2;

/** The segments of one rule or rollout with their operator. */
export interface CompiledSegmentSet {
  readonly segments: readonly CompiledSegment[];
  readonly operator: number;
  /** Keys of every segment: the result when all of them match. */
  readonly allKeys: readonly string[];
  /** `[key]` per segment: the result when exactly that one matches. */
  readonly singleKeys: readonly (readonly string[])[];
  readonly hasUnknownType: boolean;
}

export const EMPTY_KEYS: readonly string[] = Object.freeze([]);

/**
 * Segment keys the set refers to, de-duplicated and without unknown keys: Flipt holds
 * them in a map keyed by segment key, filled from a join with the segments table.
 */
export function compileSegmentSet(
  keys: readonly string[],
  operator: SegmentOperator | string,
  segments: ReadonlyMap<string, CompiledSegment>,
): CompiledSegmentSet {
  const list: CompiledSegment[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    const s = segments.get(key);
    if (s !== undefined && !seen.has(key)) {
      seen.add(key);
      list.push(s);
    }
  }
  const allKeys = Object.freeze(list.map((s) => s.key));
  return {
    segments: list,
    operator: operatorCode(operator),
    allKeys,
    singleKeys: list.length === 1 ? [allKeys] : list.map((s) => Object.freeze([s.key])),
    hasUnknownType: list.some((s) => s.hasUnknownType),
  };
}

const operatorCode = (operator: SegmentOperator | string): number =>
  operator === 'OR_SEGMENT_OPERATOR'
    ? OPERATOR_OR
    : operator === 'AND_SEGMENT_OPERATOR'
      ? OPERATOR_AND
      : OPERATOR_UNCHECKED;

/**
 * The segment sets of one namespace, each compiled once: rules and rollouts naming the same
 * segments under the same operator share one set (sets are never written to).
 */
export class SegmentSetTable {
  /** Per operator code: sets of one segment by its key, longer lists by their JSON. */
  private readonly single = [new Map<string, CompiledSegmentSet>(), new Map(), new Map()];
  private readonly multi = [new Map<string, CompiledSegmentSet>(), new Map(), new Map()];

  constructor(private readonly segments: ReadonlyMap<string, CompiledSegment>) {}

  get(keys: readonly string[], operator: SegmentOperator | string): CompiledSegmentSet {
    const code = operatorCode(operator);
    const byKey = (keys.length === 1 ? this.single : this.multi)[code] as Map<
      string,
      CompiledSegmentSet
    >;
    const key = keys.length === 1 ? (keys[0] as string) : JSON.stringify(keys);
    let set = byKey.get(key);
    if (set === undefined) {
      set = compileSegmentSet(keys, operator, this.segments);
      byKey.set(key, set);
    }
    return set;
  }
}

export const compileSegments = (segments: readonly Segment[]): Map<string, CompiledSegment> =>
  new Map(segments.map((s) => [s.key, compileSegment(s)]));

/**
 * The matched segment keys when the set matches under its operator, else undefined.
 * Shared arrays are returned for the common outcomes so matching does not allocate.
 * Callers must have rejected sets with unknown constraint types first.
 */
export function matchSegmentSet(
  set: CompiledSegmentSet,
  context: EvaluationContext,
  entityId: string,
): readonly string[] | undefined {
  const segs = set.segments;
  const n = segs.length;
  if (set.operator === OPERATOR_AND) {
    for (let i = 0; i < n; i++) {
      if (!matchSegment(segs[i] as CompiledSegment, context, entityId)) return undefined;
    }
    return set.allKeys;
  }
  if (n === 1) {
    if (matchSegment(segs[0] as CompiledSegment, context, entityId)) return set.allKeys;
    return set.operator === OPERATOR_OR ? undefined : EMPTY_KEYS;
  }
  let count = 0;
  let first = -1;
  let mask = 0;
  let many: string[] | undefined;
  for (let i = 0; i < n; i++) {
    const seg = segs[i] as CompiledSegment;
    if (!matchSegment(seg, context, entityId)) continue;
    if (count === 0) first = i;
    count++;
    if (i < 31) mask |= 1 << i;
    else (many ??= []).push(seg.key);
  }
  if (count === 0) return set.operator === OPERATOR_OR ? undefined : EMPTY_KEYS;
  if (count === n) return set.allKeys;
  if (count === 1) return set.singleKeys[first];
  const keys: string[] = [];
  for (let i = 0; i < n && i < 31; i++) {
    if (mask & (1 << i)) keys.push((segs[i] as CompiledSegment).key);
  }
  return many === undefined ? keys : keys.concat(many);
}
