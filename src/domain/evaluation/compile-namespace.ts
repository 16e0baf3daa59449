import type {
  BooleanResult,
  Flag,
  FlagType,
  Namespace,
  NamespaceData,
  Rollout,
  Rule,
  Variant,
  VariantResult,
} from '../model';
import {
  distributionBounds,
  distributionWidth,
  flagKeyPrefixState,
  isValidRollout,
  TOTAL_BUCKETS,
} from './bucketing';
import { utf8Encode } from './crc32';
import type { CompiledSegment } from './segment';
import {
  compileSegments,
  EMPTY_KEYS,
  SegmentSetTable,
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

export interface CompiledRule {
  readonly rank: number;
  /** Rank below the previous rule's: fails the request when this rule is reached. */
  readonly outOfOrder: boolean;
  readonly segments: CompiledSegmentSet;
  /**
   * The result per distribution with a known variant and a positive rollout, in storage order,
   * when every segment of the rule matched; `bounds` are their cumulative upper buckets.
   */
  readonly hitResults: readonly VariantResult[];
  readonly bounds: Int32Array;
  /** For a bucket beyond the last bound; null when the bounds cover every bucket. */
  readonly missResult: VariantResult | null;
  /** For a rule without such distributions; null when it has some. */
  readonly noDistributionResult: VariantResult | null;
}

export interface CompiledFlag {
  readonly key: string;
  readonly type: FlagType;
  readonly enabled: boolean;
  /** UTF-8 of the key, appended to the entity id for threshold hashing (boolean flags). */
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
  /** The rows it was compiled from. */
  readonly source: FlagSource;
}

export interface FlagSource {
  readonly flag: Flag;
  readonly rules: readonly Rule[];
  readonly rollouts: readonly Rollout[];
}

/** A namespace prepared for evaluation. Results it hands out are shared and frozen. */
export interface CompiledNamespace {
  readonly key: string;
  readonly version: number;
  readonly flags: ReadonlyMap<string, CompiledFlag>;
  /** Every segment of the namespace compiled, so that a change recompiles only its own. */
  readonly segments: ReadonlyMap<string, CompiledSegment>;
  /** The rows, as a whole load reads them (derived from the flags and segments if need be). */
  readonly data: NamespaceData;
}

/**
 * A compiled namespace. Without `data`, the rows are put together from the compiled flags and
 * segments the first time they are asked for (the snapshot route, the shared cache), so that
 * a change to one flag costs the size of that flag, not of the namespace.
 */
export function assembleNamespace(
  namespace: Namespace,
  version: number,
  flags: ReadonlyMap<string, CompiledFlag>,
  segments: ReadonlyMap<string, CompiledSegment>,
  data?: NamespaceData,
): CompiledNamespace {
  let rows = data;
  return freeze({
    key: namespace.key,
    version,
    flags,
    segments,
    get data(): NamespaceData {
      rows ??= rowsOf(namespace, version, flags, segments);
      return rows;
    },
  });
}

function rowsOf(
  namespace: Namespace,
  version: number,
  compiledFlags: ReadonlyMap<string, CompiledFlag>,
  compiledSegments: ReadonlyMap<string, CompiledSegment>,
): NamespaceData {
  const flags: Flag[] = [];
  const rules: Rule[] = [];
  const rollouts: Rollout[] = [];
  for (const { source } of compiledFlags.values()) {
    flags.push(source.flag);
    for (const rule of source.rules) rules.push(rule);
    for (const rollout of source.rollouts) rollouts.push(rollout);
  }
  const segments = [...compiledSegments.values()].map((s) => s.source);
  return { namespace, version, flags, segments, rules, rollouts };
}

export const groupByFlag = <T extends { readonly flagKey: string }>(items: readonly T[]) => {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(item.flagKey);
    if (list === undefined) out.set(item.flagKey, [item]);
    else list.push(item);
  }
  return out;
};

const freeze = <T>(o: T): T => Object.freeze(o);

const NO_RULES: readonly CompiledRule[] = Object.freeze([]);
const NO_ROLLOUTS: readonly CompiledRollout[] = Object.freeze([]);
const NO_BYTES = new Uint8Array(0);

/*
 * Compiling is sized for namespaces of tens of thousands of rules: what rules have in common
 * is compiled once per namespace (segment sets, distribution bounds) and a rule holds only its
 * own results, so the compiled form stays small and quick to build.
 */
export class NamespaceCompiler {
  private readonly sets: SegmentSetTable;
  private readonly bounds = new Map<string, Int32Array>();
  private readonly widths: number[] = [];
  private readonly rollouts: number[] = [];
  private readonly variants: Variant[] = [];

  constructor(readonly segments: ReadonlyMap<string, CompiledSegment>) {
    this.sets = new SegmentSetTable(segments);
  }

  /** Shared between rules: no caller writes to the bounds. */
  private boundsOf(rollouts: readonly number[]): Int32Array {
    const widths = this.widths;
    widths.length = 0;
    for (const r of rollouts) widths.push(distributionWidth(r));
    const key = widths.join(',');
    let bounds = this.bounds.get(key);
    if (bounds === undefined) {
      bounds = distributionBounds(rollouts);
      this.bounds.set(key, bounds);
    }
    return bounds;
  }

  compileFlag(flag: Flag, rules: readonly Rule[], rollouts: readonly Rollout[]): CompiledFlag {
    const isVariant = flag.type === 'VARIANT_FLAG_TYPE';
    const isBoolean = flag.type === 'BOOLEAN_FLAG_TYPE';
    const def = isVariant ? flag.defaultVariant : undefined;
    const defaults: FlagDefaults = {
      flagKey: flag.key,
      variantKey: def?.key ?? '',
      variantAttachment: def?.attachment ?? '',
      baseReason: def !== undefined ? 'DEFAULT_EVALUATION_REASON' : 'UNKNOWN_EVALUATION_REASON',
    };
    return freeze({
      key: flag.key,
      type: flag.type,
      enabled: flag.enabled,
      keyBytes: isBoolean ? utf8Encode(flag.key) : NO_BYTES,
      keyState: flagKeyPrefixState(flag.key),
      rollouts:
        isBoolean && rollouts.length > 0 ? this.compileRollouts(flag, rollouts) : NO_ROLLOUTS,
      defaultBooleanResult: freeze({
        enabled: flag.enabled,
        reason: 'DEFAULT_EVALUATION_REASON',
        flagKey: flag.key,
        segmentKeys: EMPTY_KEYS,
      }),
      rules: isVariant && rules.length > 0 ? this.compileRules(flag, rules, defaults) : NO_RULES,
      defaultVariantKey: defaults.variantKey,
      defaultVariantAttachment: defaults.variantAttachment,
      hasDefaultVariant: def !== undefined,
      disabledResult: freeze({
        match: false,
        reason: 'FLAG_DISABLED_EVALUATION_REASON',
        legacyReason: 'FLAG_DISABLED_EVALUATION_REASON',
        flagKey: flag.key,
        segmentKeys: EMPTY_KEYS,
        variantKey: defaults.variantKey,
        variantAttachment: defaults.variantAttachment,
      }),
      noMatchResult: variantResult(defaults, false, false, EMPTY_KEYS),
      source: freeze({ flag, rules, rollouts }),
    });
  }

  private compileRules(
    flag: Flag,
    rules: readonly Rule[],
    defaults: FlagDefaults,
  ): readonly CompiledRule[] {
    const byId = variantsById(flag.variants);
    const rollouts = this.rollouts;
    const variants = this.variants;
    const out: CompiledRule[] = [];
    let lastRank = 0;
    for (const rule of rules) {
      const outOfOrder = rule.rank < lastRank;
      lastRank = rule.rank;
      const set = this.sets.get(rule.segmentKeys, rule.segmentOperator);
      rollouts.length = 0;
      variants.length = 0;
      for (const d of rule.distributions) {
        const v = byId(d.variantId);
        if (v === undefined || !isValidRollout(d.rollout)) continue;
        rollouts.push(d.rollout);
        variants.push(v);
      }
      const bounds = this.boundsOf(rollouts);
      const hitResults = variants.map((v) =>
        variantResult(defaults, true, true, set.allKeys, v.key, v.attachment),
      );
      out.push({
        rank: rule.rank,
        outOfOrder,
        segments: set,
        hitResults,
        bounds,
        missResult: coversEveryBucket(bounds)
          ? null
          : variantResult(defaults, false, false, set.allKeys),
        noDistributionResult:
          variants.length === 0 ? variantResult(defaults, true, true, set.allKeys) : null,
      });
    }
    variants.length = 0;
    return out;
  }

  private compileRollouts(flag: Flag, rollouts: readonly Rollout[]): readonly CompiledRollout[] {
    const matchResult = (value: boolean, segmentKeys: readonly string[]): BooleanResult =>
      freeze({
        enabled: value,
        reason: 'MATCH_EVALUATION_REASON',
        flagKey: flag.key,
        segmentKeys,
      });
    let lastRank = 0;
    return rollouts.map((r) => {
      const outOfOrder = r.rank < lastRank;
      lastRank = r.rank;
      if (r.threshold !== undefined) {
        return {
          rank: r.rank,
          outOfOrder,
          kind: ROLLOUT_THRESHOLD,
          percentage: Math.fround(r.threshold.percentage),
          segments: null,
          value: r.threshold.value,
          matchResult: matchResult(r.threshold.value, EMPTY_KEYS),
        };
      }
      if (r.segment !== undefined) {
        const set = this.sets.get(r.segment.segmentKeys, r.segment.segmentOperator);
        return {
          rank: r.rank,
          outOfOrder,
          kind: ROLLOUT_SEGMENT,
          percentage: 0,
          segments: set,
          value: r.segment.value,
          matchResult: matchResult(r.segment.value, set.allKeys),
        };
      }
      return {
        rank: r.rank,
        outOfOrder,
        kind: ROLLOUT_SKIPPED,
        percentage: 0,
        segments: null,
        value: false,
        matchResult: matchResult(false, EMPTY_KEYS),
      };
    });
  }
}

interface FlagDefaults {
  readonly flagKey: string;
  readonly variantKey: string;
  readonly variantAttachment: string;
  readonly baseReason: 'DEFAULT_EVALUATION_REASON' | 'UNKNOWN_EVALUATION_REASON';
}

function variantResult(
  defaults: FlagDefaults,
  match: boolean,
  matched: boolean,
  segmentKeys: readonly string[],
  variantKey = defaults.variantKey,
  variantAttachment = defaults.variantAttachment,
): VariantResult {
  const reason = matched ? 'MATCH_EVALUATION_REASON' : defaults.baseReason;
  return freeze({
    match,
    reason,
    legacyReason: reason,
    flagKey: defaults.flagKey,
    segmentKeys,
    variantKey,
    variantAttachment,
  });
}

/** Variant lookup by id, the last one winning on a duplicate id; a scan for the usual few. */
function variantsById(variants: readonly Variant[]): (id: string) => Variant | undefined {
  if (variants.length > 8) {
    const map = new Map(variants.map((v) => [v.id, v]));
    return (id) => map.get(id);
  }
  return (id) => {
    for (let i = variants.length - 1; i >= 0; i--) {
      const v = variants[i] as Variant;
      if (v.id === id) return v;
    }
    return undefined;
  };
}

/** Whether every bucket finds a distribution, so that the miss result is unreachable. */
function coversEveryBucket(bounds: Int32Array): boolean {
  for (let i = 0; i < bounds.length; i++) {
    if ((bounds[i] as number) >= TOTAL_BUCKETS) return true;
  }
  return false;
}

/** Compiles a flag of `data` with its rules and rollouts (grouped by flag once, here). */
function flagCompiler(
  data: NamespaceData,
  compiler: NamespaceCompiler,
): (flag: Flag) => CompiledFlag {
  const rulesByFlag = groupByFlag(data.rules);
  const rolloutsByFlag = groupByFlag(data.rollouts);
  return (flag) =>
    compiler.compileFlag(flag, rulesByFlag.get(flag.key) ?? [], rolloutsByFlag.get(flag.key) ?? []);
}

export function compileNamespace(data: NamespaceData): CompiledNamespace {
  const compiler = new NamespaceCompiler(compileSegments(data.segments));
  const compile = flagCompiler(data, compiler);
  const flags = new Map(data.flags.map((flag) => [flag.key, compile(flag)]));
  return assembleNamespace(data.namespace, data.version, flags, compiler.segments, data);
}

/** Flags compiled between two pauses of compileNamespaceInBatches (a few ms of work). */
export const COMPILE_BATCH = 125;

/**
 * compileNamespace in batches of flags with `pause` awaited between them, so that a large
 * namespace never holds the caller's thread for long; the result is the same.
 */
export async function compileNamespaceInBatches(
  data: NamespaceData,
  pause: () => Promise<void>,
  batch = COMPILE_BATCH,
): Promise<CompiledNamespace> {
  if (data.flags.length <= batch) return compileNamespace(data);
  const compiler = new NamespaceCompiler(compileSegments(data.segments));
  const compile = flagCompiler(data, compiler);
  await pause();
  const flags = new Map<string, CompiledFlag>();
  let n = 0;
  for (const flag of data.flags) {
    flags.set(flag.key, compile(flag));
    n += 1;
    if (n % batch === 0) await pause();
  }
  return assembleNamespace(data.namespace, data.version, flags, compiler.segments, data);
}

/** The flag with this key, if the namespace has one. */
export const findFlag = (ns: CompiledNamespace, flagKey: string): CompiledFlag | undefined =>
  ns.flags.get(flagKey);
