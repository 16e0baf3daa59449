import type {
  AuthMethod,
  ComparisonType,
  FlagType,
  MatchType,
  RolloutType,
  SegmentOperator,
} from './enums';

/**
 * Timestamps are RFC 3339 UTC strings with exactly six fractional digits
 * ("2024-05-01T10:00:00.123456Z"): exact, sortable, and free of the millisecond
 * limit of Date. Presenters reformat them for the wire.
 */
export type Timestamp = string;

/** Arbitrary JSON object (google.protobuf.Struct). */
export type JsonObject = { readonly [key: string]: unknown };

export interface Namespace {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly protected: boolean;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
}

export interface Variant {
  readonly id: string;
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  /** Compacted JSON text, or "" when none. */
  readonly attachment: string;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
}

export interface Flag {
  readonly namespaceKey: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly type: FlagType;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
  /** In creation order. */
  readonly variants: readonly Variant[];
  readonly defaultVariant?: Variant;
  /** Absent when the column is NULL. */
  readonly metadata?: JsonObject;
}

export interface Constraint {
  readonly id: string;
  readonly namespaceKey: string;
  readonly segmentKey: string;
  readonly type: ComparisonType;
  readonly property: string;
  readonly operator: string;
  readonly value: string;
  readonly description: string;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
}

export interface Segment {
  readonly namespaceKey: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly matchType: MatchType;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
  /** In creation order. */
  readonly constraints: readonly Constraint[];
}

export interface Distribution {
  readonly id: string;
  readonly ruleId: string;
  readonly variantId: string;
  /** Percentage 0..100, a float32 value. */
  readonly rollout: number;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
}

export interface Rule {
  readonly id: string;
  readonly namespaceKey: string;
  readonly flagKey: string;
  /** Every segment of the rule, in the order they were given (never the one-key quirk form). */
  readonly segmentKeys: readonly string[];
  readonly segmentOperator: SegmentOperator;
  readonly rank: number;
  /** In creation order. */
  readonly distributions: readonly Distribution[];
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
}

export interface RolloutSegment {
  /** Every segment of the rollout (never the one-key quirk form). */
  readonly segmentKeys: readonly string[];
  readonly segmentOperator: SegmentOperator;
  readonly value: boolean;
}

export interface RolloutThreshold {
  /** Percentage 0..100, a float32 value. */
  readonly percentage: number;
  readonly value: boolean;
}

export interface Rollout {
  readonly id: string;
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly type: RolloutType;
  readonly rank: number;
  readonly description: string;
  readonly segment?: RolloutSegment;
  readonly threshold?: RolloutThreshold;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
}

export interface Authentication {
  readonly id: string;
  readonly method: AuthMethod;
  readonly expiresAt?: Timestamp;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
  readonly metadata: { readonly [key: string]: string };
}

/** A page of a list: `nextPageToken` is "" on the last page. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextPageToken: string;
  readonly totalCount: number;
}

/**
 * Everything evaluation needs from one namespace, as stored. `version` increases with
 * every committed write to the namespace.
 */
export interface NamespaceData {
  readonly namespace: Namespace;
  readonly version: number;
  /** Creation order; each with its variants and default variant. */
  readonly flags: readonly Flag[];
  readonly segments: readonly Segment[];
  /** Every rule of every flag, in rank order per flag. */
  readonly rules: readonly Rule[];
  /** Every rollout of every flag, in rank order per flag. */
  readonly rollouts: readonly Rollout[];
}
