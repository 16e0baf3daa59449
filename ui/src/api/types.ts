// The JSON the service answers, as Flipt v1's REST API defines it.

export type FlagType = 'VARIANT_FLAG_TYPE' | 'BOOLEAN_FLAG_TYPE';
export type MatchType = 'ALL_MATCH_TYPE' | 'ANY_MATCH_TYPE';
export type SegmentOperator = 'OR_SEGMENT_OPERATOR' | 'AND_SEGMENT_OPERATOR';
export type ComparisonType =
  | 'STRING_COMPARISON_TYPE'
  | 'NUMBER_COMPARISON_TYPE'
  | 'BOOLEAN_COMPARISON_TYPE'
  | 'DATETIME_COMPARISON_TYPE'
  | 'ENTITY_ID_COMPARISON_TYPE';

export interface Namespace {
  key: string;
  name: string;
  description: string;
  protected: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Variant {
  id: string;
  flagKey: string;
  key: string;
  name: string;
  description: string;
  attachment: string;
  namespaceKey: string;
  createdAt: string;
  updatedAt: string;
}

export interface Flag {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
  namespaceKey: string;
  variants: Variant[];
  defaultVariant?: Variant;
  metadata?: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface Constraint {
  id: string;
  segmentKey: string;
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
  namespaceKey: string;
  createdAt: string;
  updatedAt: string;
}

export interface Segment {
  key: string;
  name: string;
  description: string;
  matchType: MatchType;
  namespaceKey: string;
  constraints: Constraint[];
  createdAt: string;
  updatedAt: string;
}

export interface Distribution {
  id: string;
  ruleId: string;
  variantId: string;
  rollout: number;
  createdAt: string;
  updatedAt: string;
}

export interface Rule {
  id: string;
  flagKey: string;
  segmentKey: string;
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  distributions: Distribution[];
  rank: number;
  namespaceKey: string;
  createdAt: string;
  updatedAt: string;
}

export interface Rollout {
  id: string;
  namespaceKey: string;
  flagKey: string;
  type: 'SEGMENT_ROLLOUT_TYPE' | 'THRESHOLD_ROLLOUT_TYPE';
  rank: number;
  description: string;
  segment?: {
    segmentKey: string;
    segmentKeys: string[];
    segmentOperator: SegmentOperator;
    value: boolean;
  };
  threshold?: { percentage: number; value: boolean };
  createdAt: string;
  updatedAt: string;
}

export interface Authentication {
  id: string;
  method: string;
  expiresAt?: string;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, string>;
}

export interface Page<K extends string, T> {
  nextPageToken: string;
  totalCount?: number;
  items: T[];
  key: K;
}

export interface BooleanEvaluation {
  enabled: boolean;
  reason: string;
  requestId: string;
  requestDurationMillis: number;
  timestamp: string;
  flagKey: string;
  segmentKeys: string[];
}

export interface VariantEvaluation {
  match: boolean;
  segmentKeys: string[];
  reason: string;
  variantKey: string;
  variantAttachment: string;
  requestId: string;
  requestDurationMillis: number;
  timestamp: string;
  flagKey: string;
}

export interface ConstraintTrace {
  id: string;
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  /** The context value the constraint read; absent when the context has no such key. */
  actual?: string;
  passed: boolean;
}

export interface SegmentTrace {
  key: string;
  matchType: MatchType;
  matched: boolean;
  constraints: ConstraintTrace[];
}

export interface DistributionTrace {
  variantKey: string;
  rollout: number;
  /** Bucket range [from, to) in the 0..1000 space the evaluator uses. */
  from: number;
  to: number;
  selected: boolean;
}

export interface StepTrace {
  kind: 'rule' | 'rollout';
  id: string;
  rank: number;
  /** 'matched', 'not-matched', or 'not-reached' (an earlier step decided the result). */
  outcome: 'matched' | 'not-matched' | 'not-reached';
  segmentOperator?: SegmentOperator;
  segments: SegmentTrace[];
  threshold?: { percentage: number; value: boolean; bucket: number };
  segmentValue?: boolean;
  distributions?: DistributionTrace[];
  bucket?: number;
}

export interface Explanation {
  flagType: FlagType;
  flagEnabled: boolean;
  entityId: string;
  steps: StepTrace[];
  /** A sentence saying why the result is what it is. */
  summary: string;
}

export interface ExplainResponse {
  boolean?: BooleanEvaluation;
  variant?: VariantEvaluation;
  explanation: Explanation;
}

export interface MetaInfo {
  version: string;
  authentication: { required: boolean };
  storage: { type: string; readOnly?: boolean };
  ui?: { theme?: string; topbarColor?: string; topbarLabel?: string };
}

export interface SessionInfo {
  authenticationRequired: boolean;
  authenticated: boolean;
  /** Set when the session's token is scoped to one namespace. */
  namespaceKey?: string;
  readOnly: boolean;
  csrfToken?: string;
  authentication?: Authentication;
  version: string;
}
