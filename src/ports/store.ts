import type {
  Constraint,
  CreateConstraintRequest,
  CreateDistributionRequest,
  CreateFlagRequest,
  CreateNamespaceRequest,
  CreateRolloutRequest,
  CreateRuleRequest,
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
  ListFlagsRequest,
  ListNamespacesRequest,
  ListRolloutsRequest,
  ListRulesRequest,
  ListSegmentsRequest,
  Namespace,
  NamespaceData,
  OrderRolloutsRequest,
  OrderRulesRequest,
  Page,
  Rollout,
  Rule,
  Segment,
  UpdateConstraintRequest,
  UpdateDistributionRequest,
  UpdateFlagRequest,
  UpdateNamespaceRequest,
  UpdateRolloutRequest,
  UpdateRuleRequest,
  UpdateSegmentRequest,
  UpdateVariantRequest,
  Variant,
} from '../domain/model';

/*
 * Storage ports, one per resource family, named after Flipt's RPCs. Requests arrive
 * validated and normalised by the domain services, with namespaceKey already resolved
 * ("" never reaches storage). Implementations:
 *  - run every write in one transaction that also bumps the namespace version;
 *  - do the referential checks and throw the domain errors with Flipt's exact messages
 *    (see the storage contract suite in test/contract);
 *  - throw UnavailableError when the database cannot be reached.
 */

export interface NamespaceRepository {
  getNamespace(key: string): Promise<Namespace>;
  listNamespaces(req: ListNamespacesRequest): Promise<Page<Namespace>>;
  createNamespace(req: CreateNamespaceRequest): Promise<Namespace>;
  updateNamespace(req: UpdateNamespaceRequest): Promise<Namespace>;
  deleteNamespace(req: DeleteNamespaceRequest): Promise<void>;
}

export interface FlagRepository {
  getFlag(namespaceKey: string, key: string): Promise<Flag>;
  listFlags(req: ListFlagsRequest): Promise<Page<Flag>>;
  createFlag(req: CreateFlagRequest): Promise<Flag>;
  updateFlag(req: UpdateFlagRequest): Promise<Flag>;
  deleteFlag(req: DeleteFlagRequest): Promise<void>;
  createVariant(req: CreateVariantRequest): Promise<Variant>;
  updateVariant(req: UpdateVariantRequest): Promise<Variant>;
  deleteVariant(req: DeleteVariantRequest): Promise<void>;
}

export interface SegmentRepository {
  getSegment(namespaceKey: string, key: string): Promise<Segment>;
  listSegments(req: ListSegmentsRequest): Promise<Page<Segment>>;
  createSegment(req: CreateSegmentRequest): Promise<Segment>;
  updateSegment(req: UpdateSegmentRequest): Promise<Segment>;
  deleteSegment(req: DeleteSegmentRequest): Promise<void>;
  createConstraint(req: CreateConstraintRequest): Promise<Constraint>;
  updateConstraint(req: UpdateConstraintRequest): Promise<Constraint>;
  deleteConstraint(req: DeleteConstraintRequest): Promise<void>;
}

export interface RuleRepository {
  getRule(namespaceKey: string, id: string): Promise<Rule>;
  listRules(req: ListRulesRequest): Promise<Page<Rule>>;
  createRule(req: CreateRuleRequest): Promise<Rule>;
  updateRule(req: UpdateRuleRequest): Promise<Rule>;
  deleteRule(req: DeleteRuleRequest): Promise<void>;
  orderRules(req: OrderRulesRequest): Promise<void>;
  createDistribution(req: CreateDistributionRequest): Promise<Distribution>;
  updateDistribution(req: UpdateDistributionRequest): Promise<Distribution>;
  deleteDistribution(req: DeleteDistributionRequest): Promise<void>;
}

export interface RolloutRepository {
  getRollout(namespaceKey: string, id: string): Promise<Rollout>;
  listRollouts(req: ListRolloutsRequest): Promise<Page<Rollout>>;
  createRollout(req: CreateRolloutRequest): Promise<Rollout>;
  updateRollout(req: UpdateRolloutRequest): Promise<Rollout>;
  deleteRollout(req: DeleteRolloutRequest): Promise<void>;
  orderRollouts(req: OrderRolloutsRequest): Promise<void>;
}

/** What the evaluation side reads: the version (cheap) and the whole namespace (rare). */
export interface EvaluationSource {
  /** The namespace's current version, or undefined when the namespace does not exist. */
  getNamespaceVersion(namespaceKey: string): Promise<number | undefined>;
  /** Everything of one namespace, read consistently; undefined when it does not exist. */
  loadNamespace(namespaceKey: string): Promise<NamespaceData | undefined>;
}

export interface Store
  extends
    NamespaceRepository,
    FlagRepository,
    SegmentRepository,
    RuleRepository,
    RolloutRepository,
    EvaluationSource {
  /** Reachability probe for health and start-up. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
