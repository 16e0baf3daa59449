import type {
  Constraint,
  Distribution,
  Flag,
  JsonObject,
  Namespace,
  Page,
  Rollout,
  Rule,
  Segment,
  Variant,
} from '../../domain/model';
import { float32ToJsonNumber, formatTimestamp } from '../../domain/evaluation';

/** The wire formats of timestamps and float32 values are shared with the evaluation side. */
export { float32ToJsonNumber, formatTimestamp };

/*
 * Domain -> Flipt JSON (protojson with EmitDefaultValues): lowerCamelCase names in proto
 * field order, zero values emitted, unset message fields omitted, enums by name.
 * JSON.stringify keeps insertion order, so each presenter builds its object in that order.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };
export type JsonOut = { [key: string]: JsonValue };

/** google.protobuf.Struct: protojson writes map entries sorted by key, at every level. */
function structToJson(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(structToJson);
  if (typeof value === 'object' && value !== null) {
    const out: JsonOut = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = structToJson((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  return null;
}

export const presentNamespace = (ns: Namespace): JsonOut => ({
  key: ns.key,
  name: ns.name,
  description: ns.description,
  protected: ns.protected,
  createdAt: formatTimestamp(ns.createdAt),
  updatedAt: formatTimestamp(ns.updatedAt),
});

export const presentVariant = (v: Variant): JsonOut => ({
  id: v.id,
  flagKey: v.flagKey,
  key: v.key,
  name: v.name,
  description: v.description,
  createdAt: formatTimestamp(v.createdAt),
  updatedAt: formatTimestamp(v.updatedAt),
  attachment: v.attachment,
  namespaceKey: v.namespaceKey,
});

export interface FlagPresentation {
  /**
   * ListFlags prints a NULL metadata as `{}` while GetFlag and writes omit it (a Flipt
   * quirk clients can observe).
   */
  readonly inList?: boolean;
}

export function presentFlag(flag: Flag, opts: FlagPresentation = {}): JsonOut {
  const out: JsonOut = {
    key: flag.key,
    name: flag.name,
    description: flag.description,
    enabled: flag.enabled,
    createdAt: formatTimestamp(flag.createdAt),
    updatedAt: formatTimestamp(flag.updatedAt),
    variants: flag.variants.map(presentVariant),
    namespaceKey: flag.namespaceKey,
    type: flag.type,
  };
  if (flag.defaultVariant) out.defaultVariant = presentVariant(flag.defaultVariant);
  if (flag.metadata !== undefined) out.metadata = structToJson(flag.metadata as JsonObject);
  else if (opts.inList) out.metadata = {};
  return out;
}

export const presentConstraint = (c: Constraint): JsonOut => ({
  id: c.id,
  segmentKey: c.segmentKey,
  type: c.type,
  property: c.property,
  operator: c.operator,
  value: c.value,
  createdAt: formatTimestamp(c.createdAt),
  updatedAt: formatTimestamp(c.updatedAt),
  namespaceKey: c.namespaceKey,
  description: c.description,
});

export const presentSegment = (s: Segment): JsonOut => ({
  key: s.key,
  name: s.name,
  description: s.description,
  createdAt: formatTimestamp(s.createdAt),
  updatedAt: formatTimestamp(s.updatedAt),
  constraints: s.constraints.map(presentConstraint),
  matchType: s.matchType,
  namespaceKey: s.namespaceKey,
});

export const presentDistribution = (d: Distribution): JsonOut => ({
  id: d.id,
  ruleId: d.ruleId,
  variantId: d.variantId,
  rollout: float32ToJsonNumber(d.rollout),
  createdAt: formatTimestamp(d.createdAt),
  updatedAt: formatTimestamp(d.updatedAt),
});

/**
 * Flipt's wire form of a segment set: one segment travels in the deprecated `segmentKey`
 * with `segmentKeys` empty; several travel in `segmentKeys` with `segmentKey` empty.
 */
export function segmentKeyFields(keys: readonly string[]): {
  segmentKey: string;
  segmentKeys: string[];
} {
  return keys.length === 1
    ? { segmentKey: keys[0] as string, segmentKeys: [] }
    : { segmentKey: '', segmentKeys: [...keys] };
}

export function presentRule(r: Rule): JsonOut {
  const { segmentKey, segmentKeys } = segmentKeyFields(r.segmentKeys);
  return {
    id: r.id,
    flagKey: r.flagKey,
    segmentKey,
    distributions: r.distributions.map(presentDistribution),
    rank: r.rank,
    createdAt: formatTimestamp(r.createdAt),
    updatedAt: formatTimestamp(r.updatedAt),
    namespaceKey: r.namespaceKey,
    segmentKeys,
    segmentOperator: r.segmentOperator,
  };
}

export function presentRollout(r: Rollout): JsonOut {
  const out: JsonOut = {
    id: r.id,
    namespaceKey: r.namespaceKey,
    flagKey: r.flagKey,
    type: r.type,
    rank: r.rank,
    description: r.description,
    createdAt: formatTimestamp(r.createdAt),
    updatedAt: formatTimestamp(r.updatedAt),
  };
  if (r.segment) {
    const { segmentKey, segmentKeys } = segmentKeyFields(r.segment.segmentKeys);
    out.segment = {
      segmentKey,
      value: r.segment.value,
      segmentKeys,
      segmentOperator: r.segment.segmentOperator,
    };
  } else if (r.threshold) {
    out.threshold = {
      percentage: float32ToJsonNumber(r.threshold.percentage),
      value: r.threshold.value,
    };
  }
  return out;
}

function presentPage<T>(field: string, page: Page<T>, present: (item: T) => JsonOut): JsonOut {
  return {
    [field]: page.items.map(present),
    nextPageToken: page.nextPageToken,
    totalCount: page.totalCount,
  };
}

export const presentNamespaceList = (page: Page<Namespace>): JsonOut =>
  presentPage('namespaces', page, presentNamespace);
export const presentFlagList = (page: Page<Flag>): JsonOut =>
  presentPage('flags', page, (f) => presentFlag(f, { inList: true }));
export const presentSegmentList = (page: Page<Segment>): JsonOut =>
  presentPage('segments', page, presentSegment);
export const presentRuleList = (page: Page<Rule>): JsonOut =>
  presentPage('rules', page, presentRule);
/** RolloutList's repeated field is called `rules` in Flipt's proto. */
export const presentRolloutList = (page: Page<Rollout>): JsonOut =>
  presentPage('rules', page, presentRollout);
