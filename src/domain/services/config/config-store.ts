import type {
  Constraint,
  CopyFlagRequest,
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
} from '../../model';
import type { ConfigContext } from './context';
import { copyFlag } from './copy-flag';
import * as flags from './flags';
import * as namespaces from './namespaces';
import * as rollouts from './rollouts';
import * as rules from './rules';
import * as segments from './segments';

/**
 * The stored configuration with Flipt's storage rules, over any storage adapter's unit of
 * work: existence and referential checks, uniqueness, "in use", rank rules and their exact
 * messages live in the files beside this one, once. Requests arrive validated and
 * normalised, with the namespace resolved ("" never reaches here); each write is one unit of
 * work, which bumps the namespace's version once.
 */
export class ConfigStore {
  constructor(private readonly c: ConfigContext) {}

  getNamespace(key: string): Promise<Namespace> {
    return namespaces.getNamespace(this.c, key);
  }
  listNamespaces(req: ListNamespacesRequest): Promise<Page<Namespace>> {
    return namespaces.listNamespaces(this.c, req);
  }
  createNamespace(req: CreateNamespaceRequest): Promise<Namespace> {
    return namespaces.createNamespace(this.c, req);
  }
  updateNamespace(req: UpdateNamespaceRequest): Promise<Namespace> {
    return namespaces.updateNamespace(this.c, req);
  }
  deleteNamespace(req: DeleteNamespaceRequest): Promise<void> {
    return namespaces.deleteNamespace(this.c, req);
  }

  getFlag(namespaceKey: string, key: string): Promise<Flag> {
    return flags.getFlag(this.c, namespaceKey, key);
  }
  listFlags(req: ListFlagsRequest): Promise<Page<Flag>> {
    return flags.listFlags(this.c, req);
  }
  createFlag(req: CreateFlagRequest): Promise<Flag> {
    return flags.createFlag(this.c, req);
  }
  updateFlag(req: UpdateFlagRequest): Promise<Flag> {
    return flags.updateFlag(this.c, req);
  }
  deleteFlag(req: DeleteFlagRequest): Promise<void> {
    return flags.deleteFlag(this.c, req);
  }
  copyFlag(req: CopyFlagRequest): Promise<Flag> {
    return copyFlag(this.c, req);
  }
  createVariant(req: CreateVariantRequest): Promise<Variant> {
    return flags.createVariant(this.c, req);
  }
  updateVariant(req: UpdateVariantRequest): Promise<Variant> {
    return flags.updateVariant(this.c, req);
  }
  deleteVariant(req: DeleteVariantRequest): Promise<void> {
    return flags.deleteVariant(this.c, req);
  }

  getSegment(namespaceKey: string, key: string): Promise<Segment> {
    return segments.getSegment(this.c, namespaceKey, key);
  }
  listSegments(req: ListSegmentsRequest): Promise<Page<Segment>> {
    return segments.listSegments(this.c, req);
  }
  createSegment(req: CreateSegmentRequest): Promise<Segment> {
    return segments.createSegment(this.c, req);
  }
  updateSegment(req: UpdateSegmentRequest): Promise<Segment> {
    return segments.updateSegment(this.c, req);
  }
  deleteSegment(req: DeleteSegmentRequest): Promise<void> {
    return segments.deleteSegment(this.c, req);
  }
  createConstraint(req: CreateConstraintRequest): Promise<Constraint> {
    return segments.createConstraint(this.c, req);
  }
  updateConstraint(req: UpdateConstraintRequest): Promise<Constraint> {
    return segments.updateConstraint(this.c, req);
  }
  deleteConstraint(req: DeleteConstraintRequest): Promise<void> {
    return segments.deleteConstraint(this.c, req);
  }

  getRule(namespaceKey: string, id: string): Promise<Rule> {
    return rules.getRule(this.c, namespaceKey, id);
  }
  listRules(req: ListRulesRequest): Promise<Page<Rule>> {
    return rules.listRules(this.c, req);
  }
  createRule(req: CreateRuleRequest): Promise<Rule> {
    return rules.createRule(this.c, req);
  }
  updateRule(req: UpdateRuleRequest): Promise<Rule> {
    return rules.updateRule(this.c, req);
  }
  deleteRule(req: DeleteRuleRequest): Promise<void> {
    return rules.deleteRule(this.c, req);
  }
  orderRules(req: OrderRulesRequest): Promise<void> {
    return rules.orderRules(this.c, req);
  }
  createDistribution(req: CreateDistributionRequest): Promise<Distribution> {
    return rules.createDistribution(this.c, req);
  }
  updateDistribution(req: UpdateDistributionRequest): Promise<Distribution> {
    return rules.updateDistribution(this.c, req);
  }
  deleteDistribution(req: DeleteDistributionRequest): Promise<void> {
    return rules.deleteDistribution(this.c, req);
  }

  getRollout(namespaceKey: string, id: string): Promise<Rollout> {
    return rollouts.getRollout(this.c, namespaceKey, id);
  }
  listRollouts(req: ListRolloutsRequest): Promise<Page<Rollout>> {
    return rollouts.listRollouts(this.c, req);
  }
  createRollout(req: CreateRolloutRequest): Promise<Rollout> {
    return rollouts.createRollout(this.c, req);
  }
  updateRollout(req: UpdateRolloutRequest): Promise<Rollout> {
    return rollouts.updateRollout(this.c, req);
  }
  deleteRollout(req: DeleteRolloutRequest): Promise<void> {
    return rollouts.deleteRollout(this.c, req);
  }
  orderRollouts(req: OrderRolloutsRequest): Promise<void> {
    return rollouts.orderRollouts(this.c, req);
  }
}
