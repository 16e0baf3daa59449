import type { AuthMethod, FlagType, MatchType, ComparisonType, SegmentOperator } from './enums';
import type { JsonObject, Timestamp } from './resources';

/**
 * Requests mirror Flipt's protobuf request messages (camelCase names). Transports
 * fill every field (zero values when absent); `namespaceKey` "" means "default" and is
 * resolved by the services before storage sees it.
 */
export interface ListRequest {
  readonly limit: number;
  readonly offset: number;
  readonly pageToken: string;
  readonly reference: string;
}

export interface ListNamespacesRequest extends ListRequest {}
export interface GetNamespaceRequest {
  readonly key: string;
  readonly reference: string;
}
export interface CreateNamespaceRequest {
  readonly key: string;
  readonly name: string;
  readonly description: string;
}
export interface UpdateNamespaceRequest {
  readonly key: string;
  readonly name: string;
  readonly description: string;
}
export interface DeleteNamespaceRequest {
  readonly key: string;
  readonly force: boolean;
}

export interface ListFlagsRequest extends ListRequest {
  readonly namespaceKey: string;
}
export interface GetFlagRequest {
  readonly namespaceKey: string;
  readonly key: string;
  readonly reference: string;
}
export interface CreateFlagRequest {
  readonly namespaceKey: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly type: FlagType;
  /** undefined: not given. */
  readonly metadata?: JsonObject;
}
export interface UpdateFlagRequest {
  readonly namespaceKey: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  /** "" clears the default variant. */
  readonly defaultVariantId: string;
  /** undefined: unchanged; {}: cleared; otherwise replaced. */
  readonly metadata?: JsonObject;
}
export interface DeleteFlagRequest {
  readonly namespaceKey: string;
  readonly key: string;
}

export interface CreateVariantRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  /** Already validated and compacted by the service; "" for none. */
  readonly attachment: string;
}
export interface UpdateVariantRequest extends CreateVariantRequest {
  readonly id: string;
}
export interface DeleteVariantRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly id: string;
}

export interface ListSegmentsRequest extends ListRequest {
  readonly namespaceKey: string;
}
export interface GetSegmentRequest {
  readonly namespaceKey: string;
  readonly key: string;
  readonly reference: string;
}
export interface CreateSegmentRequest {
  readonly namespaceKey: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly matchType: MatchType;
}
export type UpdateSegmentRequest = CreateSegmentRequest;
export interface DeleteSegmentRequest {
  readonly namespaceKey: string;
  readonly key: string;
}

export interface CreateConstraintRequest {
  readonly namespaceKey: string;
  readonly segmentKey: string;
  readonly type: ComparisonType;
  readonly property: string;
  /** Lower-cased by the service. */
  readonly operator: string;
  /** Normalised by the service ("" for no-value operators, UTC for datetimes). */
  readonly value: string;
  readonly description: string;
}
export interface UpdateConstraintRequest extends CreateConstraintRequest {
  readonly id: string;
}
export interface DeleteConstraintRequest {
  readonly namespaceKey: string;
  readonly segmentKey: string;
  readonly id: string;
}

export interface ListRulesRequest extends ListRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
}
export interface GetRuleRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly id: string;
  readonly reference: string;
}
export interface CreateRuleRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  /** Resolved by the service: de-duplicated, never empty. */
  readonly segmentKeys: readonly string[];
  /** Forced to OR by the service when there is one segment. */
  readonly segmentOperator: SegmentOperator;
  readonly rank: number;
  /**
   * The deprecated `segmentKey` exactly as sent ("" when `segmentKeys` was used): Flipt's
   * not-found message quotes this raw value. Absent: the store uses the single key, if any.
   */
  readonly segmentKey?: string;
}
export interface UpdateRuleRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly id: string;
  readonly segmentKeys: readonly string[];
  readonly segmentOperator: SegmentOperator;
}
export interface DeleteRuleRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly id: string;
}
export interface OrderRulesRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly ruleIds: readonly string[];
}

export interface CreateDistributionRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly ruleId: string;
  readonly variantId: string;
  readonly rollout: number;
}
export interface UpdateDistributionRequest extends CreateDistributionRequest {
  readonly id: string;
}
export interface DeleteDistributionRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly ruleId: string;
  readonly id: string;
  readonly variantId: string;
}

export interface ListRolloutsRequest extends ListRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
}
export interface GetRolloutRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly id: string;
  readonly reference: string;
}
export interface RolloutRuleInput {
  readonly segment?: {
    /** Resolved by the service: de-duplicated, never empty. */
    readonly segmentKeys: readonly string[];
    readonly segmentOperator: SegmentOperator;
    readonly value: boolean;
    /** The deprecated `segmentKey` as sent, quoted by the create not-found message. */
    readonly segmentKey?: string;
  };
  readonly threshold?: { readonly percentage: number; readonly value: boolean };
}
export interface CreateRolloutRequest extends RolloutRuleInput {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly rank: number;
  readonly description: string;
}
export interface UpdateRolloutRequest extends RolloutRuleInput {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly id: string;
  readonly description: string;
}
export interface DeleteRolloutRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly id: string;
}
export interface OrderRolloutsRequest {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly rolloutIds: readonly string[];
}

/** Raw transport requests before the service resolves segmentKey / segmentKeys. */
export interface RuleSegmentsInput {
  readonly segmentKey: string;
  readonly segmentKeys: readonly string[];
  readonly segmentOperator: SegmentOperator;
}

export interface CreateTokenRequest {
  readonly name: string;
  readonly description: string;
  readonly expiresAt?: Timestamp;
  readonly namespaceKey: string;
  readonly metadata: { readonly [key: string]: string };
}
export interface ListAuthenticationsRequest {
  readonly method: AuthMethod;
  readonly limit: number;
  readonly pageToken: string;
}

/** Vexil's own: copy a flag with its variants, rules and rollouts to another namespace. */
export interface CopyFlagRequest {
  readonly namespaceKey: string;
  readonly key: string;
  readonly targetNamespaceKey: string;
  /** The key in the target namespace; "" keeps the flag's key. */
  readonly targetKey: string;
}
