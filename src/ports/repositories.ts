import type {
  Constraint,
  Distribution,
  Flag,
  JsonObject,
  ListFlagsRequest,
  ListNamespacesRequest,
  ListRolloutsRequest,
  ListRulesRequest,
  ListSegmentsRequest,
  MatchType,
  Namespace,
  Page,
  Rollout,
  RolloutSegment,
  RolloutThreshold,
  Rule,
  Segment,
  SegmentOperator,
  Timestamp,
  Variant,
} from '../domain/model';

/*
 * Repository ports, one per aggregate, used inside a unit of work (./unit-of-work.ts). They
 * store and load rows and decide nothing: existence, uniqueness, "in use", rank rules and
 * every message are the domain's (src/domain/services/config). What an implementation owes:
 *  - reads return copies (a caller may not change stored state through them) or undefined;
 *  - lists are ordered as documented and paged with src/adapters/storage/page-token.ts;
 *  - a write that breaks a unique key throws UniqueViolationError, one whose parent row is
 *    missing or still referenced throws ForeignKeyViolationError (src/domain/errors.ts);
 *  - deletes of absent rows do nothing, and take the rows that belong to them along
 *    (a flag its variants, rules, rollouts; a rule its distributions; a variant its
 *    distributions, and flags defaulting to it lose their default; a segment its constraints);
 *  - an unreachable database is an UnavailableError.
 * Keys and ids are compared exactly (case-sensitive).
 */

/** A rule or rollout id with its rank. */
export interface RankedId {
  readonly id: string;
  readonly rank: number;
}

export interface NamespaceRepository {
  getNamespace(key: string): Promise<Namespace | undefined>;
  /** In creation order (then key). */
  listNamespaces(req: ListNamespacesRequest): Promise<Page<Namespace>>;
  createNamespace(namespace: Namespace): Promise<void>;
  updateNamespace(
    update: Pick<Namespace, 'key' | 'name' | 'description' | 'updatedAt'>,
  ): Promise<void>;
  /** Removes the namespace with everything in it. */
  deleteNamespace(key: string): Promise<void>;
}

/** A flag as written: its variants are written on their own. */
export type NewFlag = Omit<Flag, 'variants' | 'defaultVariant'>;

export interface FlagUpdate {
  readonly namespaceKey: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  /** undefined: no default variant. */
  readonly defaultVariantId: string | undefined;
  /** undefined: unchanged; null: none. */
  readonly metadata: JsonObject | null | undefined;
  readonly updatedAt: Timestamp;
}

export type VariantUpdate = Omit<Variant, 'createdAt'>;

export interface FlagRepository {
  /** With its variants in creation order and its default variant. */
  getFlag(namespaceKey: string, key: string): Promise<Flag | undefined>;
  /** In creation order (then key), each with its variants. */
  listFlags(req: ListFlagsRequest): Promise<Page<Flag>>;
  countFlags(namespaceKey: string): Promise<number>;
  createFlag(flag: NewFlag): Promise<void>;
  updateFlag(update: FlagUpdate): Promise<void>;
  deleteFlag(namespaceKey: string, key: string): Promise<void>;
  /** A variant of any flag of the namespace. */
  getVariant(namespaceKey: string, id: string): Promise<Variant | undefined>;
  /** Unique by (namespace, flag, key). */
  createVariant(variant: Variant): Promise<void>;
  updateVariant(update: VariantUpdate): Promise<void>;
  deleteVariant(namespaceKey: string, flagKey: string, id: string): Promise<void>;
  /** Many flags at once (an import): as createFlag for each, in order, in fewer statements. */
  createFlags(flags: readonly NewFlag[]): Promise<void>;
  /** Many variants at once (an import): as createVariant for each, in order. */
  createVariants(variants: readonly Variant[]): Promise<void>;
  /** Sets the default variant of many flags of a namespace (an import); updatedAt unchanged. */
  setDefaultVariants(
    namespaceKey: string,
    defaults: ReadonlyArray<{ readonly flagKey: string; readonly variantId: string }>,
  ): Promise<void>;
}

export type NewSegment = Omit<Segment, 'constraints'>;

export interface SegmentUpdate {
  readonly namespaceKey: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly matchType: MatchType;
  readonly updatedAt: Timestamp;
}

export type ConstraintUpdate = Omit<Constraint, 'createdAt'>;

export interface SegmentRepository {
  /** With its constraints in creation order. */
  getSegment(namespaceKey: string, key: string): Promise<Segment | undefined>;
  /** In creation order (then key), each with its constraints. */
  listSegments(req: ListSegmentsRequest): Promise<Page<Segment>>;
  /** Those of `keys` that are segments of the namespace, in any order. */
  findSegmentKeys(namespaceKey: string, keys: readonly string[]): Promise<readonly string[]>;
  /** True when a rule or a rollout of the namespace refers to the segment. */
  isSegmentInUse(namespaceKey: string, key: string): Promise<boolean>;
  createSegment(segment: NewSegment): Promise<void>;
  updateSegment(update: SegmentUpdate): Promise<void>;
  deleteSegment(namespaceKey: string, key: string): Promise<void>;
  getConstraint(
    namespaceKey: string,
    segmentKey: string,
    id: string,
  ): Promise<Constraint | undefined>;
  createConstraint(constraint: Constraint): Promise<void>;
  updateConstraint(update: ConstraintUpdate): Promise<void>;
  deleteConstraint(namespaceKey: string, segmentKey: string, id: string): Promise<void>;
  /** Many segments at once (an import): as createSegment for each, in order. */
  createSegments(segments: readonly NewSegment[]): Promise<void>;
  /** Many constraints at once (an import): as createConstraint for each, in order. */
  createConstraints(constraints: readonly Constraint[]): Promise<void>;
}

export type NewRule = Omit<Rule, 'distributions'>;

export interface RuleUpdate {
  readonly namespaceKey: string;
  readonly id: string;
  /** Replaces the rule's segments, kept in this order. */
  readonly segmentKeys: readonly string[];
  readonly segmentOperator: SegmentOperator;
  readonly updatedAt: Timestamp;
}

export type DistributionUpdate = Omit<Distribution, 'createdAt'>;

export interface RuleRepository {
  /** By namespace and id, with its segment keys in order and distributions in creation order. */
  getRule(namespaceKey: string, id: string): Promise<Rule | undefined>;
  /** The flag's rules by rank (then creation). */
  listRules(req: ListRulesRequest): Promise<Page<Rule>>;
  /** The flag's rule ids by rank (then creation). */
  listRuleRanks(namespaceKey: string, flagKey: string): Promise<readonly RankedId[]>;
  createRule(rule: NewRule): Promise<void>;
  updateRule(update: RuleUpdate): Promise<void>;
  deleteRule(namespaceKey: string, flagKey: string, id: string): Promise<void>;
  /** Gives the listed rules of the flag ranks 1..n in list order; other ids are ignored. */
  orderRules(
    namespaceKey: string,
    flagKey: string,
    ids: readonly string[],
    updatedAt: Timestamp,
  ): Promise<void>;
  getDistribution(ruleId: string, id: string): Promise<Distribution | undefined>;
  createDistribution(distribution: Distribution): Promise<void>;
  updateDistribution(update: DistributionUpdate): Promise<void>;
  /** Deletes only when id, rule and variant all match. */
  deleteDistribution(ruleId: string, id: string, variantId: string): Promise<void>;
  /** Many rules at once (an import): as createRule for each, in order. */
  createRules(rules: readonly NewRule[]): Promise<void>;
  /** Many distributions at once (an import): as createDistribution for each, in order. */
  createDistributions(distributions: readonly Distribution[]): Promise<void>;
}

export interface RolloutUpdate {
  readonly namespaceKey: string;
  readonly id: string;
  readonly description: string;
  /** Replaces the rollout's rule: exactly one of the two is set. */
  readonly segment: RolloutSegment | undefined;
  readonly threshold: RolloutThreshold | undefined;
  readonly updatedAt: Timestamp;
}

export interface RolloutRepository {
  getRollout(namespaceKey: string, id: string): Promise<Rollout | undefined>;
  /** The flag's rollouts by rank (then creation). */
  listRollouts(req: ListRolloutsRequest): Promise<Page<Rollout>>;
  /** The flag's rollout ids by rank (then creation). */
  listRolloutRanks(namespaceKey: string, flagKey: string): Promise<readonly RankedId[]>;
  createRollout(rollout: Rollout): Promise<void>;
  updateRollout(update: RolloutUpdate): Promise<void>;
  deleteRollout(namespaceKey: string, flagKey: string, id: string): Promise<void>;
  /** Gives the listed rollouts of the flag ranks 1..n in list order; other ids are ignored. */
  orderRollouts(
    namespaceKey: string,
    flagKey: string,
    ids: readonly string[],
    updatedAt: Timestamp,
  ): Promise<void>;
  /** Many rollouts at once (an import): as createRollout for each, in order. */
  createRollouts(rollouts: readonly Rollout[]): Promise<void>;
}

/** The repositories of one unit of work. */
export interface Repositories {
  readonly namespaces: NamespaceRepository;
  readonly flags: FlagRepository;
  readonly segments: SegmentRepository;
  readonly rules: RuleRepository;
  readonly rollouts: RolloutRepository;
}
