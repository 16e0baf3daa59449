import type {
  ComparisonType,
  Constraint,
  Flag,
  MatchType,
  NamespaceData,
  Rollout,
  Rule,
  Segment,
  SegmentOperator,
  Variant,
} from '../../../src/domain/model';

export const TS = '2024-05-01T10:00:00.123456Z';

export type ShortType = 'STRING' | 'NUMBER' | 'BOOLEAN' | 'DATETIME' | 'ENTITY_ID' | 'UNKNOWN';
/** [type, property, operator, value] */
export type ConstraintSpec = readonly [ShortType, string, string, string?];

export interface SegmentSpec {
  readonly key: string;
  readonly match?: 'ALL' | 'ANY';
  readonly constraints?: readonly ConstraintSpec[];
}

export interface RuleSpec {
  readonly segments: readonly string[];
  readonly operator?: 'OR' | 'AND';
  readonly rank?: number;
  /** [variantKey, rollout] */
  readonly distributions?: readonly (readonly [string, number])[];
}

export type RolloutSpec =
  | { readonly threshold: number; readonly value: boolean; readonly rank?: number }
  | {
      readonly segments: readonly string[];
      readonly value: boolean;
      readonly operator?: 'OR' | 'AND';
      readonly rank?: number;
    };

export interface FlagSpec {
  readonly key: string;
  readonly type?: 'variant' | 'boolean';
  readonly enabled?: boolean;
  /** Variant keys, or [key, attachment]. */
  readonly variants?: readonly (string | readonly [string, string])[];
  readonly defaultVariant?: string;
  readonly rules?: readonly RuleSpec[];
  readonly rollouts?: readonly RolloutSpec[];
}

export interface NamespaceSpec {
  readonly key?: string;
  readonly version?: number;
  readonly flags?: readonly FlagSpec[];
  readonly segments?: readonly SegmentSpec[];
}

const op = (o: 'OR' | 'AND' | undefined): SegmentOperator =>
  o === 'AND' ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR';

export function constraintOf(
  ns: string,
  segmentKey: string,
  [type, property, operator, value]: ConstraintSpec,
  i = 0,
): Constraint {
  return {
    id: `${segmentKey}-c${i}`,
    namespaceKey: ns,
    segmentKey,
    type: `${type}_COMPARISON_TYPE` as ComparisonType,
    property,
    operator,
    value: value ?? '',
    description: '',
    createdAt: TS,
    updatedAt: TS,
  };
}

/** NamespaceData as storage would return it, from a compact description. */
export function buildNamespace(spec: NamespaceSpec): NamespaceData {
  const ns = spec.key ?? 'default';
  const segments: Segment[] = (spec.segments ?? []).map((s) => ({
    namespaceKey: ns,
    key: s.key,
    name: s.key,
    description: '',
    matchType: (s.match === 'ANY' ? 'ANY_MATCH_TYPE' : 'ALL_MATCH_TYPE') as MatchType,
    createdAt: TS,
    updatedAt: TS,
    constraints: (s.constraints ?? []).map((c, i) => constraintOf(ns, s.key, c, i)),
  }));
  const flags: Flag[] = [];
  const rules: Rule[] = [];
  const rollouts: Rollout[] = [];
  for (const f of spec.flags ?? []) {
    const variants: Variant[] = (f.variants ?? []).map((v) => {
      const [key, attachment] = typeof v === 'string' ? [v, ''] : v;
      return {
        id: `${f.key}/${key}`,
        namespaceKey: ns,
        flagKey: f.key,
        key,
        name: key,
        description: '',
        attachment,
        createdAt: TS,
        updatedAt: TS,
      };
    });
    const defaultVariant = variants.find((v) => v.key === f.defaultVariant);
    flags.push({
      namespaceKey: ns,
      key: f.key,
      name: f.key,
      description: `flag ${f.key}`,
      enabled: f.enabled ?? true,
      type: f.type === 'boolean' ? 'BOOLEAN_FLAG_TYPE' : 'VARIANT_FLAG_TYPE',
      createdAt: TS,
      updatedAt: TS,
      variants,
      ...(defaultVariant ? { defaultVariant } : {}),
    });
    (f.rules ?? []).forEach((r, i) => {
      const id = `${f.key}-rule${i}`;
      rules.push({
        id,
        namespaceKey: ns,
        flagKey: f.key,
        segmentKeys: r.segments,
        segmentOperator: op(r.operator),
        rank: r.rank ?? i + 1,
        distributions: (r.distributions ?? []).map(([variantKey, rollout], j) => ({
          id: `${id}-d${j}`,
          ruleId: id,
          variantId: `${f.key}/${variantKey}`,
          rollout,
          createdAt: TS,
          updatedAt: TS,
        })),
        createdAt: TS,
        updatedAt: TS,
      });
    });
    (f.rollouts ?? []).forEach((r, i) => {
      const base = {
        id: `${f.key}-rollout${i}`,
        namespaceKey: ns,
        flagKey: f.key,
        rank: r.rank ?? i + 1,
        description: '',
        createdAt: TS,
        updatedAt: TS,
      };
      if ('threshold' in r) {
        rollouts.push({
          ...base,
          type: 'THRESHOLD_ROLLOUT_TYPE',
          threshold: { percentage: r.threshold, value: r.value },
        });
      } else {
        rollouts.push({
          ...base,
          type: 'SEGMENT_ROLLOUT_TYPE',
          segment: { segmentKeys: r.segments, segmentOperator: op(r.operator), value: r.value },
        });
      }
    });
  }
  return {
    namespace: {
      key: ns,
      name: ns,
      description: '',
      protected: false,
      createdAt: TS,
      updatedAt: TS,
    },
    version: spec.version ?? 1,
    flags,
    segments,
    rules,
    rollouts,
  };
}

/** An entity id whose hash of `prefix + id + suffix` lands in `bucket` (mod `mod`). */
export function entityInBucket(
  hash: (s: string) => number,
  prefix: string,
  suffix: string,
  mod: number,
  bucket: number,
): string {
  for (let i = 0; ; i++) {
    const id = `entity-${i}`;
    if (hash(prefix + id + suffix) % mod === bucket) return id;
  }
}
