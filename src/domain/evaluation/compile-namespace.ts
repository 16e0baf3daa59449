import type {
  BooleanResult,
  Flag,
  FlagType,
  NamespaceData,
  Rollout,
  Rule,
  VariantResult,
} from '../model';
import { distributionBounds, flagKeyPrefixState, isValidRollout } from './bucketing';
import { utf8Encode } from './crc32';
import {
  compileSegments,
  compileSegmentSet,
  EMPTY_KEYS,
  type CompiledSegmentSet,
} from './segment-set';

export const ROLLOUT_SKIPPED = 0;
export const ROLLOUT_THRESHOLD = 1;
export const ROLLOUT_SEGMENT = 2;

export interface CompiledRollout {
  readonly rank: number;
  /** Rank below the previous rollout's: fails the request when this rollout is reached. */
  readonly outOfOrder: boolean;
  /** ROLLOUT_THRESHOLD, ROLLOUT_SEGMENT, or ROLLOUT_SKIPPED when it has neither. */
  readonly kind: number;
  /** float32 percentage compared with the integer bucket. */
  readonly percentage: number;
  readonly segments: CompiledSegmentSet | null;
  readonly value: boolean;
  /** The result for a threshold match, or a segment match on all segments. */
  readonly matchResult: BooleanResult;
}

export interface CompiledDistribution {
  readonly variantKey: string;
  readonly variantAttachment: string;
}

export interface CompiledRule {
  readonly rank: number;
  /** Rank below the previous rule's: fails the request when this rule is reached. */
  readonly outOfOrder: boolean;
  readonly segments: CompiledSegmentSet;
  /** Distributions with a positive rollout, in storage order, and their cumulative bounds. */
  readonly distributions: readonly CompiledDistribution[];
  readonly bounds: Int32Array;
  /** Results when every segment of the rule matched. */
  readonly hitResults: readonly VariantResult[];
  readonly missResult: VariantResult;
  readonly noDistributionResult: VariantResult;
}

export interface CompiledFlag {
  readonly key: string;
  readonly type: FlagType;
  readonly enabled: boolean;
  /** UTF-8 of the key, appended to the entity id for threshold hashing. */
  readonly keyBytes: Uint8Array;
  /** CRC register after the key, which distribution hashing continues from. */
  readonly keyState: number;
  readonly rollouts: readonly CompiledRollout[];
  readonly defaultBooleanResult: BooleanResult;
  readonly rules: readonly CompiledRule[];
  readonly defaultVariantKey: string;
  readonly defaultVariantAttachment: string;
  /** Reason when nothing matched: DEFAULT with a default variant, else UNKNOWN. */
  readonly hasDefaultVariant: boolean;
  readonly disabledResult: VariantResult;
  readonly noMatchResult: VariantResult;
}

/** A namespace prepared for evaluation. Results it hands out are shared and frozen. */
export interface CompiledNamespace {
  readonly key: string;
  readonly version: number;
  readonly flags: ReadonlyMap<string, CompiledFlag>;
  readonly data: NamespaceData;
}

const groupByFlag = <T extends { readonly flagKey: string }>(items: readonly T[]) => {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(item.flagKey);
    if (list === undefined) out.set(item.flagKey, [item]);
    else list.push(item);
  }
  return out;
};

const freeze = <T>(o: T): T => Object.freeze(o);

export function compileNamespace(data: NamespaceData): CompiledNamespace {
  const segments = compileSegments(data.segments);
  const rulesByFlag = groupByFlag(data.rules);
  const rolloutsByFlag = groupByFlag(data.rollouts);
  const flags = new Map<string, CompiledFlag>();
  for (const flag of data.flags) {
    flags.set(
      flag.key,
      compileFlag(
        flag,
        rulesByFlag.get(flag.key) ?? [],
        rolloutsByFlag.get(flag.key) ?? [],
        segments,
      ),
    );
  }
  return freeze({ key: data.namespace.key, version: data.version, flags, data });
}

type SegmentTable = Parameters<typeof compileSegmentSet>[2];

function compileFlag(
  flag: Flag,
  rules: readonly Rule[],
  rollouts: readonly Rollout[],
  segments: SegmentTable,
): CompiledFlag {
  const isVariant = flag.type === 'VARIANT_FLAG_TYPE';
  const isBoolean = flag.type === 'BOOLEAN_FLAG_TYPE';
  const def = isVariant ? flag.defaultVariant : undefined;
  const defaultVariantKey = def?.key ?? '';
  const defaultVariantAttachment = def?.attachment ?? '';
  const baseReason = def !== undefined ? 'DEFAULT_EVALUATION_REASON' : 'UNKNOWN_EVALUATION_REASON';
  const variantResult = (
    match: boolean,
    matched: boolean,
    segmentKeys: readonly string[],
    variantKey = defaultVariantKey,
    variantAttachment = defaultVariantAttachment,
  ): VariantResult =>
    freeze({
      match,
      reason: matched ? 'MATCH_EVALUATION_REASON' : baseReason,
      legacyReason: matched ? 'MATCH_EVALUATION_REASON' : baseReason,
      flagKey: flag.key,
      segmentKeys,
      variantKey,
      variantAttachment,
    });

  const variantsById = new Map(flag.variants.map((v) => [v.id, v]));
  let lastRank = 0;
  const compiledRules: CompiledRule[] = isVariant
    ? rules.map((rule) => {
        const outOfOrder = rule.rank < lastRank;
        lastRank = rule.rank;
        const set = compileSegmentSet(rule.segmentKeys, rule.segmentOperator, segments);
        const valid: { d: CompiledDistribution; rollout: number }[] = [];
        for (const d of rule.distributions) {
          const v = variantsById.get(d.variantId);
          if (v === undefined || !isValidRollout(d.rollout)) continue;
          valid.push({
            d: freeze({ variantKey: v.key, variantAttachment: v.attachment }),
            rollout: d.rollout,
          });
        }
        return freeze({
          rank: rule.rank,
          outOfOrder,
          segments: set,
          distributions: valid.map((x) => x.d),
          bounds: distributionBounds(valid.map((x) => x.rollout)),
          hitResults: valid.map((x) =>
            variantResult(true, true, set.allKeys, x.d.variantKey, x.d.variantAttachment),
          ),
          missResult: variantResult(false, false, set.allKeys),
          noDistributionResult: variantResult(true, true, set.allKeys),
        });
      })
    : [];

  lastRank = 0;
  const compiledRollouts: CompiledRollout[] = isBoolean
    ? rollouts.map((r) => {
        const outOfOrder = r.rank < lastRank;
        lastRank = r.rank;
        const matchResult = (value: boolean, segmentKeys: readonly string[]): BooleanResult =>
          freeze({
            enabled: value,
            reason: 'MATCH_EVALUATION_REASON',
            flagKey: flag.key,
            segmentKeys,
          });
        if (r.threshold !== undefined) {
          return freeze({
            rank: r.rank,
            outOfOrder,
            kind: ROLLOUT_THRESHOLD,
            percentage: Math.fround(r.threshold.percentage),
            segments: null,
            value: r.threshold.value,
            matchResult: matchResult(r.threshold.value, EMPTY_KEYS),
          });
        }
        if (r.segment !== undefined) {
          const set = compileSegmentSet(r.segment.segmentKeys, r.segment.segmentOperator, segments);
          return freeze({
            rank: r.rank,
            outOfOrder,
            kind: ROLLOUT_SEGMENT,
            percentage: 0,
            segments: set,
            value: r.segment.value,
            matchResult: matchResult(r.segment.value, set.allKeys),
          });
        }
        return freeze({
          rank: r.rank,
          outOfOrder,
          kind: ROLLOUT_SKIPPED,
          percentage: 0,
          segments: null,
          value: false,
          matchResult: matchResult(false, EMPTY_KEYS),
        });
      })
    : [];

  return freeze({
    key: flag.key,
    type: flag.type,
    enabled: flag.enabled,
    keyBytes: utf8Encode(flag.key),
    keyState: flagKeyPrefixState(flag.key),
    rollouts: compiledRollouts,
    defaultBooleanResult: freeze({
      enabled: flag.enabled,
      reason: 'DEFAULT_EVALUATION_REASON',
      flagKey: flag.key,
      segmentKeys: EMPTY_KEYS,
    }),
    rules: compiledRules,
    defaultVariantKey,
    defaultVariantAttachment,
    hasDefaultVariant: def !== undefined,
    disabledResult: freeze({
      match: false,
      reason: 'FLAG_DISABLED_EVALUATION_REASON',
      legacyReason: 'FLAG_DISABLED_EVALUATION_REASON',
      flagKey: flag.key,
      segmentKeys: EMPTY_KEYS,
      variantKey: defaultVariantKey,
      variantAttachment: defaultVariantAttachment,
    }),
    noMatchResult: variantResult(false, false, EMPTY_KEYS),
  });
}

/** The flag with this key, if the namespace has one. */
export const findFlag = (ns: CompiledNamespace, flagKey: string): CompiledFlag | undefined =>
  ns.flags.get(flagKey);
