import type { ComparisonType, MatchType, NamespaceData, Segment } from '../../domain/model';
import { toTimestampMessage } from './wire-types';

/*
 * NamespaceData -> flipt.evaluation.EvaluationNamespaceSnapshot, the document client-side
 * SDKs evaluate locally (reference flipt-evaluation.md section 10).
 *
 * Deliberate difference: Flipt v1.61.1 repeats a rule once per segment (and its
 * distributions with it) in this document, which makes client-side results differ from
 * server-side ones for multi-segment rules. Each rule appears once here.
 */

type Version = readonly [number, number, number];

/** What Flipt assumes when the client sends no (or an unreadable) version. */
const ASSUMED_CLIENT_VERSION: Version = [1, 37, 1];
const ENTITY_ID_CONSTRAINTS_SINCE: Version = [1, 38, 0];
const DEFAULT_VARIANT_SINCE: Version = [1, 47, 0];

/** Tolerant semver read of `x-flipt-accept-server-version` ("v1.47.0", "1.47.0-rc1", ...). */
export function parseClientVersion(raw: string): Version {
  const m = /^\s*v?(\d+)\.(\d+)\.(\d+)/.exec(raw);
  if (!m) return ASSUMED_CLIENT_VERSION;
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

function atLeast(v: Version, min: Version): boolean {
  for (let i = 0; i < 3; i++) {
    const a = v[i] ?? 0;
    const b = min[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

const MATCH_TYPE: Record<MatchType, string> = {
  ALL_MATCH_TYPE: 'ALL_SEGMENT_MATCH_TYPE',
  ANY_MATCH_TYPE: 'ANY_SEGMENT_MATCH_TYPE',
};

const COMPARISON_TYPE: Record<ComparisonType, string> = {
  UNKNOWN_COMPARISON_TYPE: 'UNKNOWN_CONSTRAINT_COMPARISON_TYPE',
  STRING_COMPARISON_TYPE: 'STRING_CONSTRAINT_COMPARISON_TYPE',
  NUMBER_COMPARISON_TYPE: 'NUMBER_CONSTRAINT_COMPARISON_TYPE',
  BOOLEAN_COMPARISON_TYPE: 'BOOLEAN_CONSTRAINT_COMPARISON_TYPE',
  DATETIME_COMPARISON_TYPE: 'DATETIME_CONSTRAINT_COMPARISON_TYPE',
  ENTITY_ID_COMPARISON_TYPE: 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE',
};

export function presentClientSnapshot(
  requestedKey: string,
  data: NamespaceData | undefined,
  acceptServerVersion: string,
) {
  const version = parseClientVersion(acceptServerVersion);
  const entityIdKnown = atLeast(version, ENTITY_ID_CONSTRAINTS_SINCE);
  const withDefaultVariant = atLeast(version, DEFAULT_VARIANT_SINCE);
  const segments = new Map<string, Segment>((data?.segments ?? []).map((s) => [s.key, s]));

  const segment = (key: string, withConstraintIds: boolean) => {
    const s = segments.get(key);
    return {
      key,
      name: '',
      description: '',
      matchType: MATCH_TYPE[s?.matchType ?? 'ALL_MATCH_TYPE'],
      constraints: (s?.constraints ?? []).map((c) => ({
        // Flipt fills constraint ids only for segments reached through rules.
        id: withConstraintIds ? c.id : '',
        type:
          c.type === 'ENTITY_ID_COMPARISON_TYPE' && !entityIdKnown
            ? COMPARISON_TYPE.UNKNOWN_COMPARISON_TYPE
            : COMPARISON_TYPE[c.type],
        property: c.property,
        operator: c.operator,
        value: c.value,
      })),
    };
  };

  const flags = (data?.flags ?? []).map((f) => {
    const variants = new Map(f.variants.map((v) => [v.id, v]));
    const isVariant = f.type === 'VARIANT_FLAG_TYPE';
    const rules = isVariant
      ? (data?.rules ?? [])
          .filter((r) => r.flagKey === f.key)
          .map((r) => ({
            id: r.id,
            segments: r.segmentKeys.map((k) => segment(k, true)),
            rank: r.rank,
            segmentOperator: r.segmentOperator,
            distributions: r.distributions.map((d) => ({
              id: '',
              ruleId: '',
              variantId: d.variantId,
              variantKey: variants.get(d.variantId)?.key ?? '',
              variantAttachment: variants.get(d.variantId)?.attachment ?? '',
              rollout: d.rollout,
            })),
          }))
      : [];
    const rollouts = isVariant
      ? []
      : (data?.rollouts ?? [])
          .filter((r) => r.flagKey === f.key)
          .map((r) => ({
            type: r.type,
            rank: r.rank,
            segment: r.segment
              ? {
                  value: r.segment.value,
                  segmentOperator: r.segment.segmentOperator,
                  segments: r.segment.segmentKeys.map((k) => segment(k, false)),
                }
              : undefined,
            threshold: r.threshold
              ? { percentage: r.threshold.percentage, value: r.threshold.value }
              : undefined,
          }));
    const dv = f.defaultVariant;
    return {
      key: f.key,
      name: f.name,
      description: f.description,
      enabled: f.enabled,
      type: f.type,
      createdAt: toTimestampMessage(f.createdAt),
      updatedAt: toTimestampMessage(f.updatedAt),
      rules,
      rollouts,
      defaultVariant:
        withDefaultVariant && isVariant && dv
          ? { id: dv.id, key: dv.key, attachment: dv.attachment }
          : undefined,
    };
  });

  return { namespace: { key: requestedKey }, flags };
}
