import type {
  Constraint,
  Distribution,
  Flag,
  Namespace,
  Page,
  Rollout,
  Rule,
  Segment,
  Variant,
} from '../../domain/model';
import { toStructMessage, toTimestampMessage } from './wire-types';

/*
 * Domain objects -> flipt.* response messages (lowerCamelCase fields, enums by name,
 * timestamps as {seconds, nanos}).
 */

/**
 * Flipt answers with the deprecated single-key field when there is exactly one segment and
 * with the list only when there are several; clients rely on that shape.
 */
function segmentKeyFields(keys: readonly string[]): { segmentKey: string; segmentKeys: string[] } {
  if (keys.length === 1) return { segmentKey: keys[0] ?? '', segmentKeys: [] };
  return { segmentKey: '', segmentKeys: [...keys] };
}

export function presentNamespace(ns: Namespace) {
  return {
    key: ns.key,
    name: ns.name,
    description: ns.description,
    protected: ns.protected,
    createdAt: toTimestampMessage(ns.createdAt),
    updatedAt: toTimestampMessage(ns.updatedAt),
  };
}

export function presentVariant(v: Variant) {
  return {
    id: v.id,
    flagKey: v.flagKey,
    key: v.key,
    name: v.name,
    description: v.description,
    createdAt: toTimestampMessage(v.createdAt),
    updatedAt: toTimestampMessage(v.updatedAt),
    attachment: v.attachment,
    namespaceKey: v.namespaceKey,
  };
}

export function presentFlag(f: Flag) {
  return {
    key: f.key,
    name: f.name,
    description: f.description,
    enabled: f.enabled,
    createdAt: toTimestampMessage(f.createdAt),
    updatedAt: toTimestampMessage(f.updatedAt),
    variants: f.variants.map(presentVariant),
    namespaceKey: f.namespaceKey,
    type: f.type,
    defaultVariant: f.defaultVariant ? presentVariant(f.defaultVariant) : undefined,
    metadata: f.metadata ? toStructMessage(f.metadata) : undefined,
  };
}

export function presentConstraint(c: Constraint) {
  return {
    id: c.id,
    segmentKey: c.segmentKey,
    type: c.type,
    property: c.property,
    operator: c.operator,
    value: c.value,
    createdAt: toTimestampMessage(c.createdAt),
    updatedAt: toTimestampMessage(c.updatedAt),
    namespaceKey: c.namespaceKey,
    description: c.description,
  };
}

export function presentSegment(s: Segment) {
  return {
    key: s.key,
    name: s.name,
    description: s.description,
    createdAt: toTimestampMessage(s.createdAt),
    updatedAt: toTimestampMessage(s.updatedAt),
    constraints: s.constraints.map(presentConstraint),
    matchType: s.matchType,
    namespaceKey: s.namespaceKey,
  };
}

export function presentDistribution(d: Distribution) {
  return {
    id: d.id,
    ruleId: d.ruleId,
    variantId: d.variantId,
    rollout: d.rollout,
    createdAt: toTimestampMessage(d.createdAt),
    updatedAt: toTimestampMessage(d.updatedAt),
  };
}

export function presentRule(r: Rule) {
  return {
    id: r.id,
    flagKey: r.flagKey,
    ...segmentKeyFields(r.segmentKeys),
    distributions: r.distributions.map(presentDistribution),
    rank: r.rank,
    createdAt: toTimestampMessage(r.createdAt),
    updatedAt: toTimestampMessage(r.updatedAt),
    namespaceKey: r.namespaceKey,
    segmentOperator: r.segmentOperator,
  };
}

export function presentRollout(r: Rollout) {
  return {
    id: r.id,
    namespaceKey: r.namespaceKey,
    flagKey: r.flagKey,
    type: r.type,
    rank: r.rank,
    description: r.description,
    createdAt: toTimestampMessage(r.createdAt),
    updatedAt: toTimestampMessage(r.updatedAt),
    segment: r.segment
      ? {
          ...segmentKeyFields(r.segment.segmentKeys),
          value: r.segment.value,
          segmentOperator: r.segment.segmentOperator,
        }
      : undefined,
    threshold: r.threshold
      ? { percentage: r.threshold.percentage, value: r.threshold.value }
      : undefined,
  };
}

function presentPage<T, M>(page: Page<T>, present: (item: T) => M) {
  return {
    items: page.items.map(present),
    nextPageToken: page.nextPageToken,
    totalCount: page.totalCount,
  };
}

export function presentNamespaceList(page: Page<Namespace>) {
  const { items, ...rest } = presentPage(page, presentNamespace);
  return { namespaces: items, ...rest };
}

export function presentFlagList(page: Page<Flag>) {
  const { items, ...rest } = presentPage(page, presentFlag);
  return { flags: items, ...rest };
}

export function presentSegmentList(page: Page<Segment>) {
  const { items, ...rest } = presentPage(page, presentSegment);
  return { segments: items, ...rest };
}

export function presentRuleList(page: Page<Rule>) {
  const { items, ...rest } = presentPage(page, presentRule);
  return { rules: items, ...rest };
}

/** Flipt's RolloutList names its list field `rules`. */
export function presentRolloutList(page: Page<Rollout>) {
  const { items, ...rest } = presentPage(page, presentRollout);
  return { rules: items, ...rest };
}
