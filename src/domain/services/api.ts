import type {
  CopyFlagRequest,
  Constraint,
  CreateConstraintRequest,
  CreateDistributionRequest,
  CreateFlagRequest,
  CreateNamespaceRequest,
  CreateSegmentRequest,
  CreateVariantRequest,
  DeleteConstraintRequest,
  DeleteDistributionRequest,
  DeleteFlagRequest,
  DeleteNamespaceRequest,
  DeleteRolloutRequest,
  DeleteRuleRequest,
  DeleteSegmentRequest,
  DeleteVariantRequest,
  Distribution,
  Flag,
  GetFlagRequest,
  GetNamespaceRequest,
  GetRolloutRequest,
  GetRuleRequest,
  GetSegmentRequest,
  ListFlagsRequest,
  ListNamespacesRequest,
  ListRolloutsRequest,
  ListRulesRequest,
  ListSegmentsRequest,
  Namespace,
  OrderRolloutsRequest,
  OrderRulesRequest,
  Page,
  Rollout,
  Rule,
  Segment,
  SegmentOperator,
  UpdateConstraintRequest,
  UpdateDistributionRequest,
  UpdateFlagRequest,
  UpdateNamespaceRequest,
  UpdateSegmentRequest,
  UpdateVariantRequest,
  Variant,
} from '../model';

/*
 * What the transports (HTTP and gRPC) call. Requests here are the protobuf request
 * messages as decoded: every field present, zero values for absent ones, namespaceKey
 * possibly "" (meaning "default"), operators in any case, attachments as sent, rules and
 * rollouts with both the deprecated `segmentKey` and `segmentKeys`. The implementation
 * validates (src/domain/validation, Flipt's messages), normalises, calls storage, and
 * announces the change after commit.
 */

export interface RawRuleSegments {
  readonly segmentKey: string;
  readonly segmentKeys: readonly string[];
  readonly segmentOperator: SegmentOperator;
}

export interface RawCreateRuleRequest extends RawRuleSegments {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly rank: number;
}

export interface RawUpdateRuleRequest extends RawRuleSegments {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly id: string;
}

export interface RawRolloutRule {
  readonly segment?: RawRuleSegments & { readonly value: boolean };
  readonly threshold?: { readonly percentage: number; readonly value: boolean };
}

export interface RawCreateRolloutRequest extends RawRolloutRule {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly rank: number;
  readonly description: string;
}

export interface RawUpdateRolloutRequest extends RawRolloutRule {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly id: string;
  readonly description: string;
}

export interface ManagementApi {
  getNamespace(req: GetNamespaceRequest): Promise<Namespace>;
  listNamespaces(req: ListNamespacesRequest): Promise<Page<Namespace>>;
  createNamespace(req: CreateNamespaceRequest): Promise<Namespace>;
  updateNamespace(req: UpdateNamespaceRequest): Promise<Namespace>;
  deleteNamespace(req: DeleteNamespaceRequest): Promise<void>;

  getFlag(req: GetFlagRequest): Promise<Flag>;
  listFlags(req: ListFlagsRequest): Promise<Page<Flag>>;
  createFlag(req: CreateFlagRequest): Promise<Flag>;
  updateFlag(req: UpdateFlagRequest): Promise<Flag>;
  deleteFlag(req: DeleteFlagRequest): Promise<void>;
  /** Vexil's own: the flag with its variants, rules and rollouts, into another namespace. */
  copyFlag(req: CopyFlagRequest): Promise<Flag>;
  createVariant(req: CreateVariantRequest): Promise<Variant>;
  updateVariant(req: UpdateVariantRequest): Promise<Variant>;
  deleteVariant(req: DeleteVariantRequest): Promise<void>;

  getSegment(req: GetSegmentRequest): Promise<Segment>;
  listSegments(req: ListSegmentsRequest): Promise<Page<Segment>>;
  createSegment(req: CreateSegmentRequest): Promise<Segment>;
  updateSegment(req: UpdateSegmentRequest): Promise<Segment>;
  deleteSegment(req: DeleteSegmentRequest): Promise<void>;
  createConstraint(req: CreateConstraintRequest): Promise<Constraint>;
  updateConstraint(req: UpdateConstraintRequest): Promise<Constraint>;
  deleteConstraint(req: DeleteConstraintRequest): Promise<void>;

  getRule(req: GetRuleRequest): Promise<Rule>;
  listRules(req: ListRulesRequest): Promise<Page<Rule>>;
  createRule(req: RawCreateRuleRequest): Promise<Rule>;
  updateRule(req: RawUpdateRuleRequest): Promise<Rule>;
  deleteRule(req: DeleteRuleRequest): Promise<void>;
  orderRules(req: OrderRulesRequest): Promise<void>;
  createDistribution(req: CreateDistributionRequest): Promise<Distribution>;
  updateDistribution(req: UpdateDistributionRequest): Promise<Distribution>;
  deleteDistribution(req: DeleteDistributionRequest): Promise<void>;

  getRollout(req: GetRolloutRequest): Promise<Rollout>;
  listRollouts(req: ListRolloutsRequest): Promise<Page<Rollout>>;
  createRollout(req: RawCreateRolloutRequest): Promise<Rollout>;
  updateRollout(req: RawUpdateRolloutRequest): Promise<Rollout>;
  deleteRollout(req: DeleteRolloutRequest): Promise<void>;
  orderRollouts(req: OrderRolloutsRequest): Promise<void>;
}
