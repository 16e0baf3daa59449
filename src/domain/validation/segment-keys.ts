import type { RuleSegmentsInput, SegmentOperator } from '../model';

export interface ResolvedSegments {
  readonly segmentKeys: readonly string[];
  readonly segmentOperator: SegmentOperator;
}

/**
 * The segments a rule or rollout request names, as Flipt resolves them: the deprecated
 * `segmentKey` wins when set, otherwise `segmentKeys` de-duplicated in first-seen order;
 * with a single segment the operator is meaningless and Flipt stores OR.
 */
export function resolveSegments(input: RuleSegmentsInput): ResolvedSegments {
  const segmentKeys =
    input.segmentKey !== '' ? [input.segmentKey] : [...new Set(input.segmentKeys)];
  return {
    segmentKeys,
    segmentOperator: segmentKeys.length === 1 ? 'OR_SEGMENT_OPERATOR' : input.segmentOperator,
  };
}
