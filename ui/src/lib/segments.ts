import type { Rollout, Rule, SegmentOperator } from '../api/types';

/** A rule's or rollout's segments, whichever of the API's two fields carries them. */
export function segmentKeysOf(item: { segmentKey: string; segmentKeys: string[] }): string[] {
  return item.segmentKeys.length > 0 ? item.segmentKeys : item.segmentKey ? [item.segmentKey] : [];
}

export function ruleSegments(rule: Rule): string[] {
  return segmentKeysOf(rule);
}

export function rolloutSegments(rollout: Rollout): string[] {
  return rollout.segment ? segmentKeysOf(rollout.segment) : [];
}

export function joinSegments(keys: readonly string[], operator: SegmentOperator): string {
  return keys.join(operator === 'AND_SEGMENT_OPERATOR' ? ' AND ' : ' OR ');
}
