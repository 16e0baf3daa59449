/** Enum values use Flipt's names; numbers live only at the storage and protobuf edges. */
export const FLAG_TYPES = ['VARIANT_FLAG_TYPE', 'BOOLEAN_FLAG_TYPE'] as const;
export type FlagType = (typeof FLAG_TYPES)[number];

export const MATCH_TYPES = ['ALL_MATCH_TYPE', 'ANY_MATCH_TYPE'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

export const COMPARISON_TYPES = [
  'UNKNOWN_COMPARISON_TYPE',
  'STRING_COMPARISON_TYPE',
  'NUMBER_COMPARISON_TYPE',
  'BOOLEAN_COMPARISON_TYPE',
  'DATETIME_COMPARISON_TYPE',
  'ENTITY_ID_COMPARISON_TYPE',
] as const;
export type ComparisonType = (typeof COMPARISON_TYPES)[number];

export const SEGMENT_OPERATORS = ['OR_SEGMENT_OPERATOR', 'AND_SEGMENT_OPERATOR'] as const;
export type SegmentOperator = (typeof SEGMENT_OPERATORS)[number];

export const ROLLOUT_TYPES = [
  'UNKNOWN_ROLLOUT_TYPE',
  'SEGMENT_ROLLOUT_TYPE',
  'THRESHOLD_ROLLOUT_TYPE',
] as const;
export type RolloutType = (typeof ROLLOUT_TYPES)[number];

export const AUTH_METHODS = [
  'METHOD_NONE',
  'METHOD_TOKEN',
  'METHOD_OIDC',
  'METHOD_KUBERNETES',
  'METHOD_GITHUB',
  'METHOD_JWT',
  'METHOD_CLOUD',
] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** v2 evaluation reasons (flipt.evaluation.EvaluationReason). */
export const EVALUATION_REASONS = [
  'UNKNOWN_EVALUATION_REASON',
  'FLAG_DISABLED_EVALUATION_REASON',
  'MATCH_EVALUATION_REASON',
  'DEFAULT_EVALUATION_REASON',
] as const;
export type EvaluationReason = (typeof EVALUATION_REASONS)[number];

/** Legacy v1 reasons (flipt.EvaluationReason), numbered differently from v2. */
export const LEGACY_EVALUATION_REASONS = [
  'UNKNOWN_EVALUATION_REASON',
  'FLAG_DISABLED_EVALUATION_REASON',
  'FLAG_NOT_FOUND_EVALUATION_REASON',
  'MATCH_EVALUATION_REASON',
  'ERROR_EVALUATION_REASON',
  'DEFAULT_EVALUATION_REASON',
] as const;
export type LegacyEvaluationReason = (typeof LEGACY_EVALUATION_REASONS)[number];

export const ERROR_EVALUATION_REASONS = [
  'UNKNOWN_ERROR_EVALUATION_REASON',
  'NOT_FOUND_ERROR_EVALUATION_REASON',
] as const;
export type ErrorEvaluationReason = (typeof ERROR_EVALUATION_REASONS)[number];

export const EVALUATION_RESPONSE_TYPES = [
  'VARIANT_EVALUATION_RESPONSE_TYPE',
  'BOOLEAN_EVALUATION_RESPONSE_TYPE',
  'ERROR_EVALUATION_RESPONSE_TYPE',
] as const;
export type EvaluationResponseType = (typeof EVALUATION_RESPONSE_TYPES)[number];
