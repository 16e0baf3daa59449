import type {
  Constraint,
  CopyFlagRequest,
  CreateConstraintRequest,
  CreateDistributionRequest,
  CreateFlagRequest,
  CreateNamespaceRequest,
  CreateRolloutRequest,
  CreateSegmentRequest,
  CreateVariantRequest,
  ChangedKeys,
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
  RolloutRuleInput,
  Rule,
  Segment,
  UpdateConstraintRequest,
  UpdateDistributionRequest,
  UpdateFlagRequest,
  UpdateNamespaceRequest,
  UpdateSegmentRequest,
  UpdateVariantRequest,
  Variant,
} from '../model';
import type { ChangeNotifier, Logger } from '../../ports';
import type { ConfigStore } from './config';
import * as v from '../validation';
import type {
  ManagementApi,
  RawCreateRolloutRequest,
  RawCreateRuleRequest,
  RawRolloutRule,
  RawUpdateRolloutRequest,
  RawUpdateRuleRequest,
} from './api';

export interface ManagementServiceDeps {
  /** The stored configuration, with the storage rules, over a storage adapter. */
  readonly config: ConfigStore;
  readonly notifier: ChangeNotifier;
  /** Told when a change notice fails after a committed write. */
  readonly logger?: Logger;
}

/** The legacy routes and an omitted namespace mean the default namespace. */
export const resolveNamespace = (key: string): string => (key === '' ? 'default' : key);

/** A rollout's rule as the store takes it: segments resolved, one kind only. */
function rolloutRule(raw: RawRolloutRule): RolloutRuleInput {
  if (raw.segment !== undefined) {
    return {
      segment: {
        ...v.resolveSegments(raw.segment),
        value: raw.segment.value,
        segmentKey: raw.segment.segmentKey,
      },
    };
  }
  if (raw.threshold !== undefined) {
    return { threshold: { percentage: raw.threshold.percentage, value: raw.threshold.value } };
  }
  return {};
}

/**
 * The management use cases, as Flipt's server runs them: validate the request (first
 * failure wins, before anything else happens), resolve the namespace, normalise, call the
 * configuration store (the storage rules), and announce the change once the write has committed. Reads take `reference` and
 * ignore it: there is only one version of the configuration. Every method is async so a
 * validation failure arrives as a rejected promise, never as a synchronous throw.
 */
export class ManagementService implements ManagementApi {
  private readonly store: ConfigStore;
  private readonly notifier: ChangeNotifier;
  private readonly logger: Logger | undefined;

  constructor(deps: ManagementServiceDeps) {
    this.store = deps.config;
    this.notifier = deps.notifier;
    this.logger = deps.logger;
  }

  // ---- namespaces ----------------------------------------------------------------------

  async getNamespace(req: GetNamespaceRequest): Promise<Namespace> {
    return this.store.getNamespace(req.key);
  }

  async listNamespaces(req: ListNamespacesRequest): Promise<Page<Namespace>> {
    return this.store.listNamespaces(req);
  }

  async createNamespace(req: CreateNamespaceRequest): Promise<Namespace> {
    v.validateCreateNamespace(req);
    return this.write(req.key, 'all', () => this.store.createNamespace(req));
  }

  async updateNamespace(req: UpdateNamespaceRequest): Promise<Namespace> {
    v.validateUpdateNamespace(req);
    return this.write(req.key, 'all', () => this.store.updateNamespace(req));
  }

  async deleteNamespace(req: DeleteNamespaceRequest): Promise<void> {
    v.validateDeleteNamespace(req);
    return this.write(req.key, 'all', () => this.store.deleteNamespace(req));
  }

  // ---- flags and variants --------------------------------------------------------------

  async getFlag(req: GetFlagRequest): Promise<Flag> {
    v.validateGetFlag(req);
    return this.store.getFlag(resolveNamespace(req.namespaceKey), req.key);
  }

  async listFlags(req: ListFlagsRequest): Promise<Page<Flag>> {
    v.validateListFlags(req);
    return this.store.listFlags({ ...req, namespaceKey: resolveNamespace(req.namespaceKey) });
  }

  async createFlag(req: CreateFlagRequest): Promise<Flag> {
    v.validateCreateFlag(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.key), () =>
      this.store.createFlag({ ...req, namespaceKey }),
    );
  }

  async updateFlag(req: UpdateFlagRequest): Promise<Flag> {
    v.validateUpdateFlag(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.key), () =>
      this.store.updateFlag({ ...req, namespaceKey }),
    );
  }

  async deleteFlag(req: DeleteFlagRequest): Promise<void> {
    v.validateDeleteFlag(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.key), () =>
      this.store.deleteFlag({ ...req, namespaceKey }),
    );
  }

  async copyFlag(req: CopyFlagRequest): Promise<Flag> {
    v.requireField(req.key, 'key');
    v.requireField(req.targetNamespaceKey, 'targetNamespaceKey');
    if (req.targetKey !== '') v.requireKeyFormat(req.targetKey);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(
      req.targetNamespaceKey,
      flags(req.targetKey === '' ? req.key : req.targetKey),
      () => this.store.copyFlag({ ...req, namespaceKey }),
    );
  }

  async createVariant(req: CreateVariantRequest): Promise<Variant> {
    const valid = v.validateCreateVariant(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.createVariant({ ...valid, namespaceKey }),
    );
  }

  async updateVariant(req: UpdateVariantRequest): Promise<Variant> {
    const valid = v.validateUpdateVariant(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.updateVariant({ ...valid, namespaceKey }),
    );
  }

  async deleteVariant(req: DeleteVariantRequest): Promise<void> {
    v.validateDeleteVariant(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.deleteVariant({ ...req, namespaceKey }),
    );
  }

  // ---- segments and constraints --------------------------------------------------------

  async getSegment(req: GetSegmentRequest): Promise<Segment> {
    v.validateGetSegment(req);
    return this.store.getSegment(resolveNamespace(req.namespaceKey), req.key);
  }

  async listSegments(req: ListSegmentsRequest): Promise<Page<Segment>> {
    v.validateListSegments(req);
    return this.store.listSegments({ ...req, namespaceKey: resolveNamespace(req.namespaceKey) });
  }

  async createSegment(req: CreateSegmentRequest): Promise<Segment> {
    v.validateCreateSegment(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, segments(req.key), () =>
      this.store.createSegment({ ...req, namespaceKey }),
    );
  }

  async updateSegment(req: UpdateSegmentRequest): Promise<Segment> {
    v.validateUpdateSegment(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, segments(req.key), () =>
      this.store.updateSegment({ ...req, namespaceKey }),
    );
  }

  async deleteSegment(req: DeleteSegmentRequest): Promise<void> {
    v.validateDeleteSegment(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, segments(req.key), () =>
      this.store.deleteSegment({ ...req, namespaceKey }),
    );
  }

  async createConstraint(req: CreateConstraintRequest): Promise<Constraint> {
    const valid = v.validateCreateConstraint(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, segments(req.segmentKey), () =>
      this.store.createConstraint({ ...valid, namespaceKey }),
    );
  }

  async updateConstraint(req: UpdateConstraintRequest): Promise<Constraint> {
    const valid = v.validateUpdateConstraint(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, segments(req.segmentKey), () =>
      this.store.updateConstraint({ ...valid, namespaceKey }),
    );
  }

  async deleteConstraint(req: DeleteConstraintRequest): Promise<void> {
    v.validateDeleteConstraint(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, segments(req.segmentKey), () =>
      this.store.deleteConstraint({ ...req, namespaceKey }),
    );
  }

  // ---- rules and distributions ---------------------------------------------------------

  async getRule(req: GetRuleRequest): Promise<Rule> {
    v.validateGetRule(req);
    return this.store.getRule(resolveNamespace(req.namespaceKey), req.id);
  }

  async listRules(req: ListRulesRequest): Promise<Page<Rule>> {
    v.validateListRules(req);
    return this.store.listRules({ ...req, namespaceKey: resolveNamespace(req.namespaceKey) });
  }

  async createRule(req: RawCreateRuleRequest): Promise<Rule> {
    v.validateCreateRule(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.createRule({
        namespaceKey,
        flagKey: req.flagKey,
        rank: req.rank,
        ...v.resolveSegments(req),
        segmentKey: req.segmentKey,
      }),
    );
  }

  async updateRule(req: RawUpdateRuleRequest): Promise<Rule> {
    v.validateUpdateRule(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.updateRule({
        namespaceKey,
        flagKey: req.flagKey,
        id: req.id,
        ...v.resolveSegments(req),
      }),
    );
  }

  async deleteRule(req: DeleteRuleRequest): Promise<void> {
    v.validateDeleteRule(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.deleteRule({ ...req, namespaceKey }),
    );
  }

  async orderRules(req: OrderRulesRequest): Promise<void> {
    v.validateOrderRules(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.orderRules({ ...req, namespaceKey }),
    );
  }

  async createDistribution(req: CreateDistributionRequest): Promise<Distribution> {
    v.validateCreateDistribution(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(
      namespaceKey,
      () => this.ruleFlags(namespaceKey, req.flagKey, req.ruleId),
      () => this.store.createDistribution({ ...req, namespaceKey }),
    );
  }

  async updateDistribution(req: UpdateDistributionRequest): Promise<Distribution> {
    v.validateUpdateDistribution(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(
      namespaceKey,
      () => this.ruleFlags(namespaceKey, req.flagKey, req.ruleId),
      () => this.store.updateDistribution({ ...req, namespaceKey }),
    );
  }

  async deleteDistribution(req: DeleteDistributionRequest): Promise<void> {
    v.validateDeleteDistribution(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(
      namespaceKey,
      () => this.ruleFlags(namespaceKey, req.flagKey, req.ruleId),
      () => this.store.deleteDistribution({ ...req, namespaceKey }),
    );
  }

  // ---- rollouts ------------------------------------------------------------------------

  async getRollout(req: GetRolloutRequest): Promise<Rollout> {
    return this.store.getRollout(resolveNamespace(req.namespaceKey), req.id);
  }

  async listRollouts(req: ListRolloutsRequest): Promise<Page<Rollout>> {
    return this.store.listRollouts({ ...req, namespaceKey: resolveNamespace(req.namespaceKey) });
  }

  async createRollout(req: RawCreateRolloutRequest): Promise<Rollout> {
    v.validateCreateRollout(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    const normalized: CreateRolloutRequest = {
      namespaceKey,
      flagKey: req.flagKey,
      rank: req.rank,
      description: req.description,
      ...rolloutRule(req),
    };
    return this.write(namespaceKey, flags(req.flagKey), () => this.store.createRollout(normalized));
  }

  async updateRollout(req: RawUpdateRolloutRequest): Promise<Rollout> {
    v.validateUpdateRollout(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.updateRollout({
        namespaceKey,
        flagKey: req.flagKey,
        id: req.id,
        description: req.description,
        ...rolloutRule(req),
      }),
    );
  }

  async deleteRollout(req: DeleteRolloutRequest): Promise<void> {
    v.validateDeleteRollout(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.deleteRollout({ ...req, namespaceKey }),
    );
  }

  async orderRollouts(req: OrderRolloutsRequest): Promise<void> {
    v.validateOrderRollouts(req);
    const namespaceKey = resolveNamespace(req.namespaceKey);
    return this.write(namespaceKey, flags(req.flagKey), () =>
      this.store.orderRollouts({ ...req, namespaceKey }),
    );
  }

  // ---- internals -----------------------------------------------------------------------

  /**
   * A distribution write changes the rule's flag, which Flipt does not require to be the
   * flag named in the request (rules are looked up by namespace only).
   */
  private async ruleFlags(
    namespaceKey: string,
    flagKey: string,
    ruleId: string,
  ): Promise<ChangedKeys> {
    const owner = await this.store.getRule(namespaceKey, ruleId).then(
      (rule) => rule.flagKey,
      () => flagKey,
    );
    return { flags: owner === flagKey ? [flagKey] : [flagKey, owner], segments: [] };
  }

  /**
   * Runs a store write and, once it has committed, tells the namespace's listeners. They
   * are told beforehand what the write may touch, so that they can update what they hold
   * from just that.
   */
  private async write<T>(
    namespaceKey: string,
    touched: ChangedKeys | (() => Promise<ChangedKeys>),
    op: () => Promise<T>,
  ): Promise<T> {
    const writing = this.notifier.writing;
    let result: T;
    if (writing === undefined) {
      result = await op();
    } else {
      const end = writing.call(
        this.notifier,
        namespaceKey,
        typeof touched === 'function' ? await touched() : touched,
      );
      try {
        result = await op();
      } finally {
        end();
      }
    }
    try {
      await this.notifier.namespaceChanged(namespaceKey);
    } catch (err) {
      // The write is committed; caches still converge through their TTL, so the caller
      // gets the result rather than an error for something that did happen.
      this.logger?.warn('change notice failed', {
        namespaceKey,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    return result;
  }
}

const flags = (key: string): ChangedKeys => ({ flags: [key], segments: [] });
const segments = (key: string): ChangedKeys => ({ flags: [], segments: [key] });

export function createManagementService(deps: ManagementServiceDeps): ManagementApi {
  return new ManagementService(deps);
}
