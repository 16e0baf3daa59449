import {
  InvalidArgumentError,
  NotFoundError,
  UnavailableError,
  ValidationError,
} from '../../../domain/errors';
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
  JsonObject,
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
  RolloutType,
  Rule,
  Segment,
  Timestamp,
  UpdateConstraintRequest,
  UpdateDistributionRequest,
  UpdateFlagRequest,
  UpdateNamespaceRequest,
  UpdateRolloutRequest,
  UpdateRuleRequest,
  UpdateSegmentRequest,
  UpdateVariantRequest,
  Variant,
} from '../../../domain/model';
import { goQuote } from '../../../domain/validation';
import type { Clock, IdGenerator, Store } from '../../../ports';
import { pageOf, pageWindow } from '../page-token';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Insertion sequence: the tie-breaker after createdAt (and after rank). */
interface Ordered {
  readonly seq: number;
}

type NamespaceRow = Mutable<Namespace> & Ordered & { version: number };
type FlagRow = Mutable<Omit<Flag, 'variants' | 'defaultVariant' | 'metadata'>> &
  Ordered & { defaultVariantId: string; metadata: JsonObject | undefined };
type VariantRow = Mutable<Variant> & Ordered;
type SegmentRow = Mutable<Omit<Segment, 'constraints'>> & Ordered;
type ConstraintRow = Mutable<Constraint> & Ordered;
type RuleRow = Mutable<Omit<Rule, 'distributions'>> & Ordered;
type DistributionRow = Mutable<Distribution> & Ordered;
type RolloutRow = Mutable<Rollout> & Ordered;

export interface InMemoryStoreOptions {
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

const byCreated = <T extends Ordered & { readonly createdAt: Timestamp }>(a: T, b: T): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.seq - b.seq;
const byRank = <T extends Ordered & { readonly rank: number }>(a: T, b: T): number =>
  a.rank - b.rank || a.seq - b.seq;
const pair = (a: string, b: string): string => `${a}\u0000${b}`;
const path = (ns: string, key: string): string => goQuote(`${ns}/${key}`);
const cloneJson = (o: JsonObject): JsonObject => structuredClone(o) as JsonObject;

/**
 * The honest fake: every repository port over Maps, with the semantics and messages of the
 * SQL stores (pinned by test/contract/store-contract.ts). Each method checks everything
 * before it changes anything, so a failed write leaves no trace; JavaScript runs it to the
 * end without interleaving, which makes every write atomic.
 *
 * Versions: a namespace's version is 1 when its key is first created and grows by one with
 * every successful write to it, including writes that change nothing (deleting an absent
 * flag). A namespace deleted and created again continues above its last version, so a
 * (namespace, version) pair never names two different contents.
 */
export class InMemoryStore implements Store {
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private seq = 0;
  private closed = false;
  private readonly namespaces = new Map<string, NamespaceRow>();
  /** Last version of every namespace key ever seen, surviving deletion. */
  private readonly lastVersions = new Map<string, number>();
  private readonly flags = new Map<string, FlagRow>();
  private readonly variants = new Map<string, VariantRow>();
  private readonly segments = new Map<string, SegmentRow>();
  private readonly constraints = new Map<string, ConstraintRow>();
  private readonly rules = new Map<string, RuleRow>();
  private readonly distributions = new Map<string, DistributionRow>();
  private readonly rollouts = new Map<string, RolloutRow>();

  constructor(options: InMemoryStoreOptions) {
    this.clock = options.clock;
    this.ids = options.ids;
    const now = this.clock.now();
    this.namespaces.set('default', {
      key: 'default',
      name: 'Default',
      description: 'Default namespace',
      protected: true,
      createdAt: now,
      updatedAt: now,
      seq: this.seq++,
      version: 1,
    });
    this.lastVersions.set('default', 1);
  }

  async ping(): Promise<void> {
    this.ensureOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  // ---- evaluation source -------------------------------------------------------------

  async getNamespaceVersion(namespaceKey: string): Promise<number | undefined> {
    this.ensureOpen();
    return this.namespaces.get(namespaceKey)?.version;
  }

  async loadNamespace(namespaceKey: string): Promise<NamespaceData | undefined> {
    this.ensureOpen();
    const ns = this.namespaces.get(namespaceKey);
    if (ns === undefined) return undefined;
    const flags = this.flagRows(namespaceKey);
    return {
      namespace: this.namespaceOut(ns),
      version: ns.version,
      flags: flags.map((f) => this.flagOut(f)),
      segments: this.segmentRows(namespaceKey).map((s) => this.segmentOut(s)),
      rules: flags.flatMap((f) => this.ruleRows(namespaceKey, f.key).map((r) => this.ruleOut(r))),
      rollouts: flags.flatMap((f) =>
        this.rolloutRows(namespaceKey, f.key).map((r) => this.rolloutOut(r)),
      ),
    };
  }

  // ---- namespaces ----------------------------------------------------------------------

  async getNamespace(key: string): Promise<Namespace> {
    this.ensureOpen();
    return this.namespaceOut(this.namespaceRow(key));
  }

  async listNamespaces(req: ListNamespacesRequest): Promise<Page<Namespace>> {
    this.ensureOpen();
    const window = pageWindow(req);
    const rows = [...this.namespaces.values()].sort(byCreated);
    return pageOf(
      rows.slice(window.offset).map((n) => this.namespaceOut(n)),
      window,
      (n) => n.key,
      rows.length,
    );
  }

  async createNamespace(req: CreateNamespaceRequest): Promise<Namespace> {
    this.ensureOpen();
    if (this.namespaces.has(req.key)) {
      throw new InvalidArgumentError(`namespace ${goQuote(req.key)} is not unique`);
    }
    const now = this.clock.now();
    const version = (this.lastVersions.get(req.key) ?? 0) + 1;
    const row: NamespaceRow = {
      key: req.key,
      name: req.name,
      description: req.description,
      protected: false,
      createdAt: now,
      updatedAt: now,
      seq: this.seq++,
      version,
    };
    this.namespaces.set(req.key, row);
    this.lastVersions.set(req.key, version);
    return this.namespaceOut(row);
  }

  async updateNamespace(req: UpdateNamespaceRequest): Promise<Namespace> {
    this.ensureOpen();
    const row = this.namespaceRow(req.key);
    row.name = req.name;
    row.description = req.description;
    row.updatedAt = this.clock.now();
    this.bump(req.key);
    return this.namespaceOut(row);
  }

  async deleteNamespace(req: DeleteNamespaceRequest): Promise<void> {
    this.ensureOpen();
    const row = this.namespaceRow(req.key);
    if (!req.force) {
      if (row.protected)
        throw new InvalidArgumentError(`namespace ${goQuote(req.key)} is protected`);
      if (this.flagRows(req.key).length > 0) {
        throw new InvalidArgumentError(
          `namespace ${goQuote(req.key)} cannot be deleted; flags must be deleted first`,
        );
      }
    }
    for (const f of this.flagRows(req.key)) this.removeFlag(f);
    for (const s of this.segmentRows(req.key)) this.removeSegment(s);
    this.namespaces.delete(req.key);
  }

  // ---- flags and variants --------------------------------------------------------------

  async getFlag(namespaceKey: string, key: string): Promise<Flag> {
    this.ensureOpen();
    return this.flagOut(this.flagRow(namespaceKey, key));
  }

  async listFlags(req: ListFlagsRequest): Promise<Page<Flag>> {
    this.ensureOpen();
    const window = pageWindow(req);
    const rows = this.flagRows(req.namespaceKey);
    return pageOf(
      rows.slice(window.offset).map((f) => this.flagOut(f)),
      window,
      (f) => f.key,
      rows.length,
    );
  }

  async createFlag(req: CreateFlagRequest): Promise<Flag> {
    this.ensureOpen();
    this.namespaceRow(req.namespaceKey);
    if (this.flags.has(pair(req.namespaceKey, req.key))) {
      throw new InvalidArgumentError(`flag ${path(req.namespaceKey, req.key)} is not unique`);
    }
    const now = this.clock.now();
    const hasMetadata = req.metadata !== undefined && Object.keys(req.metadata).length > 0;
    const row: FlagRow = {
      namespaceKey: req.namespaceKey,
      key: req.key,
      name: req.name,
      description: req.description,
      enabled: req.enabled,
      type: req.type,
      defaultVariantId: '',
      metadata: hasMetadata && req.metadata !== undefined ? cloneJson(req.metadata) : undefined,
      createdAt: now,
      updatedAt: now,
      seq: this.seq++,
    };
    this.flags.set(pair(req.namespaceKey, req.key), row);
    this.bump(req.namespaceKey);
    // Flipt answers a create with the metadata as sent, even `{}` that it stores as NULL.
    const out = this.flagOut(row);
    return req.metadata === undefined ? out : { ...out, metadata: cloneJson(req.metadata) };
  }

  async updateFlag(req: UpdateFlagRequest): Promise<Flag> {
    this.ensureOpen();
    const row = this.flagRow(req.namespaceKey, req.key);
    if (req.defaultVariantId !== '') {
      const v = this.variants.get(req.defaultVariantId);
      if (v === undefined || v.namespaceKey !== req.namespaceKey || v.flagKey !== req.key) {
        throw new InvalidArgumentError(
          `variant ${goQuote(req.defaultVariantId)} not found for flag ${path(req.namespaceKey, req.key)}`,
        );
      }
    }
    row.name = req.name;
    row.description = req.description;
    row.enabled = req.enabled;
    row.defaultVariantId = req.defaultVariantId;
    if (req.metadata !== undefined) {
      row.metadata = Object.keys(req.metadata).length > 0 ? cloneJson(req.metadata) : undefined;
    }
    row.updatedAt = this.clock.now();
    this.bump(req.namespaceKey);
    return this.flagOut(row);
  }

  async deleteFlag(req: DeleteFlagRequest): Promise<void> {
    this.ensureOpen();
    const row = this.flags.get(pair(req.namespaceKey, req.key));
    if (row !== undefined) this.removeFlag(row);
    this.bump(req.namespaceKey);
  }

  async createVariant(req: CreateVariantRequest): Promise<Variant> {
    this.ensureOpen();
    this.flagRow(req.namespaceKey, req.flagKey);
    this.requireUniqueVariantKey(req.namespaceKey, req.flagKey, req.key, undefined);
    const now = this.clock.now();
    const row: VariantRow = {
      id: this.ids.uuid(),
      namespaceKey: req.namespaceKey,
      flagKey: req.flagKey,
      key: req.key,
      name: req.name,
      description: req.description,
      attachment: req.attachment,
      createdAt: now,
      updatedAt: now,
      seq: this.seq++,
    };
    this.variants.set(row.id, row);
    this.bump(req.namespaceKey);
    return this.variantOut(row);
  }

  async updateVariant(req: UpdateVariantRequest): Promise<Variant> {
    this.ensureOpen();
    const row = this.variants.get(req.id);
    if (row === undefined || row.namespaceKey !== req.namespaceKey || row.flagKey !== req.flagKey) {
      // Flipt names the requested key here, not the id.
      throw new NotFoundError(`variant ${goQuote(req.key)} not found`);
    }
    this.requireUniqueVariantKey(req.namespaceKey, req.flagKey, req.key, req.id);
    row.key = req.key;
    row.name = req.name;
    row.description = req.description;
    row.attachment = req.attachment;
    row.updatedAt = this.clock.now();
    this.bump(req.namespaceKey);
    return this.variantOut(row);
  }

  async deleteVariant(req: DeleteVariantRequest): Promise<void> {
    this.ensureOpen();
    const row = this.variants.get(req.id);
    if (row !== undefined && row.namespaceKey === req.namespaceKey && row.flagKey === req.flagKey) {
      this.removeVariant(row);
    }
    this.bump(req.namespaceKey);
  }

  // ---- segments and constraints --------------------------------------------------------

  async getSegment(namespaceKey: string, key: string): Promise<Segment> {
    this.ensureOpen();
    return this.segmentOut(this.segmentRow(namespaceKey, key));
  }

  async listSegments(req: ListSegmentsRequest): Promise<Page<Segment>> {
    this.ensureOpen();
    const window = pageWindow(req);
    const rows = this.segmentRows(req.namespaceKey);
    return pageOf(
      rows.slice(window.offset).map((s) => this.segmentOut(s)),
      window,
      (s) => s.key,
      rows.length,
    );
  }

  async createSegment(req: CreateSegmentRequest): Promise<Segment> {
    this.ensureOpen();
    this.namespaceRow(req.namespaceKey);
    if (this.segments.has(pair(req.namespaceKey, req.key))) {
      throw new InvalidArgumentError(`segment ${path(req.namespaceKey, req.key)} is not unique`);
    }
    const now = this.clock.now();
    const row: SegmentRow = {
      namespaceKey: req.namespaceKey,
      key: req.key,
      name: req.name,
      description: req.description,
      matchType: req.matchType,
      createdAt: now,
      updatedAt: now,
      seq: this.seq++,
    };
    this.segments.set(pair(req.namespaceKey, req.key), row);
    this.bump(req.namespaceKey);
    return this.segmentOut(row);
  }

  async updateSegment(req: UpdateSegmentRequest): Promise<Segment> {
    this.ensureOpen();
    const row = this.segmentRow(req.namespaceKey, req.key);
    row.name = req.name;
    row.description = req.description;
    row.matchType = req.matchType;
    row.updatedAt = this.clock.now();
    this.bump(req.namespaceKey);
    return this.segmentOut(row);
  }

  async deleteSegment(req: DeleteSegmentRequest): Promise<void> {
    this.ensureOpen();
    const row = this.segments.get(pair(req.namespaceKey, req.key));
    if (row !== undefined) {
      const inUse =
        [...this.rules.values()].some(
          (r) => r.namespaceKey === req.namespaceKey && r.segmentKeys.includes(req.key),
        ) ||
        [...this.rollouts.values()].some(
          (r) => r.namespaceKey === req.namespaceKey && r.segment?.segmentKeys.includes(req.key),
        );
      if (inUse) {
        throw new InvalidArgumentError(`segment ${path(req.namespaceKey, req.key)} is in use`);
      }
      this.removeSegment(row);
    }
    this.bump(req.namespaceKey);
  }

  async createConstraint(req: CreateConstraintRequest): Promise<Constraint> {
    this.ensureOpen();
    this.segmentRow(req.namespaceKey, req.segmentKey);
    const now = this.clock.now();
    const row: ConstraintRow = {
      id: this.ids.uuid(),
      namespaceKey: req.namespaceKey,
      segmentKey: req.segmentKey,
      type: req.type,
      property: req.property,
      operator: req.operator,
      value: req.value,
      description: req.description,
      createdAt: now,
      updatedAt: now,
      seq: this.seq++,
    };
    this.constraints.set(row.id, row);
    this.bump(req.namespaceKey);
    return this.constraintOut(row);
  }

  async updateConstraint(req: UpdateConstraintRequest): Promise<Constraint> {
    this.ensureOpen();
    const row = this.constraints.get(req.id);
    if (
      row === undefined ||
      row.namespaceKey !== req.namespaceKey ||
      row.segmentKey !== req.segmentKey
    ) {
      throw new NotFoundError(`constraint ${goQuote(req.id)} not found`);
    }
    row.type = req.type;
    row.property = req.property;
    row.operator = req.operator;
    row.value = req.value;
    row.description = req.description;
    row.updatedAt = this.clock.now();
    this.bump(req.namespaceKey);
    return this.constraintOut(row);
  }

  async deleteConstraint(req: DeleteConstraintRequest): Promise<void> {
    this.ensureOpen();
    const row = this.constraints.get(req.id);
    if (
      row !== undefined &&
      row.namespaceKey === req.namespaceKey &&
      row.segmentKey === req.segmentKey
    ) {
      this.constraints.delete(req.id);
    }
    this.bump(req.namespaceKey);
  }

  // ---- rules and distributions ---------------------------------------------------------

  async getRule(namespaceKey: string, id: string): Promise<Rule> {
    this.ensureOpen();
    const row = this.rules.get(id);
    if (row === undefined || row.namespaceKey !== namespaceKey) {
      throw new NotFoundError(`rule ${path(namespaceKey, id)} not found`);
    }
    return this.ruleOut(row);
  }

  async listRules(req: ListRulesRequest): Promise<Page<Rule>> {
    this.ensureOpen();
    const window = pageWindow(req);
    const rows = this.ruleRows(req.namespaceKey, req.flagKey);
    return pageOf(
      rows.slice(window.offset).map((r) => this.ruleOut(r)),
      window,
      (r) => r.id,
      rows.length,
    );
  }

  async createRule(req: CreateRuleRequest): Promise<Rule> {
    this.ensureOpen();
    const flag = this.flags.get(pair(req.namespaceKey, req.flagKey));
    if (flag === undefined || !this.segmentsExist(req.namespaceKey, req.segmentKeys)) {
      const raw = req.segmentKey ?? (req.segmentKeys.length === 1 ? req.segmentKeys[0] : '');
      throw new NotFoundError(
        `flag ${path(req.namespaceKey, req.flagKey)} or segment ${path(req.namespaceKey, raw ?? '')} not found`,
      );
    }
    const now = this.clock.now();
    const row: RuleRow = {
      id: this.ids.uuid(),
      namespaceKey: req.namespaceKey,
      flagKey: req.flagKey,
      segmentKeys: [...req.segmentKeys],
      segmentOperator: req.segmentOperator,
      rank: req.rank,
      createdAt: now,
      updatedAt: now,
      seq: this.seq++,
    };
    this.rules.set(row.id, row);
    this.bump(req.namespaceKey);
    return this.ruleOut(row);
  }

  async updateRule(req: UpdateRuleRequest): Promise<Rule> {
    this.ensureOpen();
    const row = this.rules.get(req.id);
    if (row === undefined || row.namespaceKey !== req.namespaceKey || row.flagKey !== req.flagKey) {
      throw new NotFoundError(`rule ${path(req.namespaceKey, req.id)} not found`);
    }
    this.requireSegments(req.namespaceKey, req.segmentKeys);
    row.segmentKeys = [...req.segmentKeys];
    row.segmentOperator = req.segmentOperator;
    row.updatedAt = this.clock.now();
    this.bump(req.namespaceKey);
    return this.ruleOut(row);
  }

  async deleteRule(req: DeleteRuleRequest): Promise<void> {
    this.ensureOpen();
    const row = this.rules.get(req.id);
    if (row !== undefined && row.namespaceKey === req.namespaceKey && row.flagKey === req.flagKey) {
      this.removeRule(row);
    }
    // Flipt renumbers the flag's rules after every delete, found or not.
    const now = this.clock.now();
    this.ruleRows(req.namespaceKey, req.flagKey).forEach((r, i) => {
      r.rank = i + 1;
      r.updatedAt = now;
    });
    this.bump(req.namespaceKey);
  }

  async orderRules(req: OrderRulesRequest): Promise<void> {
    this.ensureOpen();
    const now = this.clock.now();
    req.ruleIds.forEach((id, i) => {
      const r = this.rules.get(id);
      if (r !== undefined && r.namespaceKey === req.namespaceKey && r.flagKey === req.flagKey) {
        r.rank = i + 1;
        r.updatedAt = now;
      }
    });
    this.bump(req.namespaceKey);
  }

  async createDistribution(req: CreateDistributionRequest): Promise<Distribution> {
    this.ensureOpen();
    this.requireDistributionRefs(req);
    const now = this.clock.now();
    const row: DistributionRow = {
      id: this.ids.uuid(),
      ruleId: req.ruleId,
      variantId: req.variantId,
      rollout: req.rollout,
      createdAt: now,
      updatedAt: now,
      seq: this.seq++,
    };
    this.distributions.set(row.id, row);
    this.bump(req.namespaceKey);
    return this.distributionOut(row);
  }

  async updateDistribution(req: UpdateDistributionRequest): Promise<Distribution> {
    this.ensureOpen();
    this.requireDistributionRefs(req);
    const row = this.distributions.get(req.id);
    if (row === undefined || row.ruleId !== req.ruleId) {
      throw new NotFoundError(`distribution ${goQuote(req.id)} not found`);
    }
    row.rollout = req.rollout;
    row.variantId = req.variantId;
    row.updatedAt = this.clock.now();
    this.bump(req.namespaceKey);
    return this.distributionOut(row);
  }

  async deleteDistribution(req: DeleteDistributionRequest): Promise<void> {
    this.ensureOpen();
    const row = this.distributions.get(req.id);
    if (row !== undefined && row.ruleId === req.ruleId && row.variantId === req.variantId) {
      this.distributions.delete(req.id);
    }
    this.bump(req.namespaceKey);
  }

  // ---- rollouts ------------------------------------------------------------------------

  async getRollout(namespaceKey: string, id: string): Promise<Rollout> {
    this.ensureOpen();
    const row = this.rollouts.get(id);
    if (row === undefined || row.namespaceKey !== namespaceKey) {
      throw new NotFoundError(`rollout ${path(namespaceKey, id)} not found`);
    }
    return this.rolloutOut(row);
  }

  async listRollouts(req: ListRolloutsRequest): Promise<Page<Rollout>> {
    this.ensureOpen();
    const window = pageWindow(req, { ignoreOffset: true });
    const rows = this.rolloutRows(req.namespaceKey, req.flagKey);
    return pageOf(
      rows.slice(window.offset).map((r) => this.rolloutOut(r)),
      window,
      (r) => r.id,
      rows.length,
    );
  }

  async createRollout(req: CreateRolloutRequest): Promise<Rollout> {
    this.ensureOpen();
    if (this.rolloutRows(req.namespaceKey, req.flagKey).some((r) => r.rank === req.rank)) {
      throw new InvalidArgumentError(`rank number: ${req.rank} already exists`);
    }
    const { segment, threshold } = req;
    if (segment === undefined && threshold === undefined) {
      throw new InvalidArgumentError('rollout rule is missing');
    }
    const flagExists = this.flags.has(pair(req.namespaceKey, req.flagKey));
    if (segment !== undefined) {
      if (!flagExists || !this.segmentsExist(req.namespaceKey, segment.segmentKeys)) {
        const raw =
          segment.segmentKey ?? (segment.segmentKeys.length === 1 ? segment.segmentKeys[0] : '');
        // Flipt's quoting, verbatim: one pair of quotes around both names.
        throw new NotFoundError(
          `flag "${req.namespaceKey}/${req.flagKey} or segment ${raw ?? ''}" not found`,
        );
      }
    } else if (!flagExists) {
      throw new NotFoundError(`flag ${path(req.namespaceKey, req.flagKey)} not found`);
    }
    const now = this.clock.now();
    const row: RolloutRow = {
      id: this.ids.uuid(),
      namespaceKey: req.namespaceKey,
      flagKey: req.flagKey,
      type: segment !== undefined ? 'SEGMENT_ROLLOUT_TYPE' : 'THRESHOLD_ROLLOUT_TYPE',
      rank: req.rank,
      description: req.description,
      ...this.rolloutRule(req),
      createdAt: now,
      updatedAt: now,
      seq: this.seq++,
    };
    this.rollouts.set(row.id, row);
    this.bump(req.namespaceKey);
    return this.rolloutOut(row);
  }

  async updateRollout(req: UpdateRolloutRequest): Promise<Rollout> {
    this.ensureOpen();
    const row = this.rollouts.get(req.id);
    if (row === undefined || row.namespaceKey !== req.namespaceKey || row.flagKey !== req.flagKey) {
      throw new NotFoundError(`rollout ${path(req.namespaceKey, req.id)} not found`);
    }
    let wanted: RolloutType;
    if (req.segment !== undefined) wanted = 'SEGMENT_ROLLOUT_TYPE';
    else if (req.threshold !== undefined) wanted = 'THRESHOLD_ROLLOUT_TYPE';
    else throw new ValidationError('rule', 'invalid rollout rule type');
    if (row.type !== wanted) {
      throw new InvalidArgumentError(
        `cannot change type of rollout: have ${goQuote(row.type)} attempted ${goQuote(wanted)}`,
      );
    }
    if (req.segment !== undefined) this.requireSegments(req.namespaceKey, req.segment.segmentKeys);
    const rule = this.rolloutRule(req);
    row.segment = rule.segment;
    row.threshold = rule.threshold;
    row.description = req.description;
    row.updatedAt = this.clock.now();
    this.bump(req.namespaceKey);
    return this.rolloutOut(row);
  }

  async deleteRollout(req: DeleteRolloutRequest): Promise<void> {
    this.ensureOpen();
    const row = this.rollouts.get(req.id);
    if (row !== undefined && row.namespaceKey === req.namespaceKey && row.flagKey === req.flagKey) {
      this.rollouts.delete(req.id);
    }
    const now = this.clock.now();
    this.rolloutRows(req.namespaceKey, req.flagKey).forEach((r, i) => {
      r.rank = i + 1;
      r.updatedAt = now;
    });
    this.bump(req.namespaceKey);
  }

  async orderRollouts(req: OrderRolloutsRequest): Promise<void> {
    this.ensureOpen();
    const now = this.clock.now();
    req.rolloutIds.forEach((id, i) => {
      const r = this.rollouts.get(id);
      if (r !== undefined && r.namespaceKey === req.namespaceKey && r.flagKey === req.flagKey) {
        r.rank = i + 1;
        r.updatedAt = now;
      }
    });
    this.bump(req.namespaceKey);
  }

  // ---- internals -----------------------------------------------------------------------

  private ensureOpen(): void {
    if (this.closed) throw new UnavailableError('storage is closed');
  }

  /** Every successful write ends here; writes to a namespace that does not exist change nothing. */
  private bump(namespaceKey: string): void {
    const ns = this.namespaces.get(namespaceKey);
    if (ns === undefined) return;
    ns.version += 1;
    this.lastVersions.set(namespaceKey, ns.version);
  }

  private namespaceRow(key: string): NamespaceRow {
    const row = this.namespaces.get(key);
    if (row === undefined) throw new NotFoundError(`namespace ${goQuote(key)} not found`);
    return row;
  }

  private flagRow(namespaceKey: string, key: string): FlagRow {
    const row = this.flags.get(pair(namespaceKey, key));
    if (row === undefined) throw new NotFoundError(`flag ${path(namespaceKey, key)} not found`);
    return row;
  }

  private segmentRow(namespaceKey: string, key: string): SegmentRow {
    const row = this.segments.get(pair(namespaceKey, key));
    if (row === undefined) throw new NotFoundError(`segment ${path(namespaceKey, key)} not found`);
    return row;
  }

  private flagRows(namespaceKey: string): FlagRow[] {
    return [...this.flags.values()].filter((f) => f.namespaceKey === namespaceKey).sort(byCreated);
  }

  private segmentRows(namespaceKey: string): SegmentRow[] {
    return [...this.segments.values()]
      .filter((s) => s.namespaceKey === namespaceKey)
      .sort(byCreated);
  }

  private ruleRows(namespaceKey: string, flagKey: string): RuleRow[] {
    return [...this.rules.values()]
      .filter((r) => r.namespaceKey === namespaceKey && r.flagKey === flagKey)
      .sort(byRank);
  }

  private rolloutRows(namespaceKey: string, flagKey: string): RolloutRow[] {
    return [...this.rollouts.values()]
      .filter((r) => r.namespaceKey === namespaceKey && r.flagKey === flagKey)
      .sort(byRank);
  }

  private segmentsExist(namespaceKey: string, keys: readonly string[]): boolean {
    return keys.every((k) => this.segments.has(pair(namespaceKey, k)));
  }

  private requireSegments(namespaceKey: string, keys: readonly string[]): void {
    for (const k of keys) this.segmentRow(namespaceKey, k);
  }

  private requireUniqueVariantKey(
    namespaceKey: string,
    flagKey: string,
    key: string,
    exceptId: string | undefined,
  ): void {
    for (const v of this.variants.values()) {
      if (
        v.namespaceKey === namespaceKey &&
        v.flagKey === flagKey &&
        v.key === key &&
        v.id !== exceptId
      ) {
        throw new InvalidArgumentError(
          `variant ${goQuote(key)} is not unique for flag ${path(namespaceKey, flagKey)}`,
        );
      }
    }
  }

  /** Flipt joins rule, variant and flag by namespace only: the variant may be another flag's. */
  private requireDistributionRefs(req: CreateDistributionRequest): void {
    const rule = this.rules.get(req.ruleId);
    const variant = this.variants.get(req.variantId);
    if (
      rule?.namespaceKey !== req.namespaceKey ||
      variant?.namespaceKey !== req.namespaceKey ||
      !this.flags.has(pair(req.namespaceKey, req.flagKey))
    ) {
      throw new NotFoundError(
        `variant ${goQuote(req.variantId)}, rule ${goQuote(req.ruleId)}, flag ${goQuote(req.flagKey)} in namespace ${goQuote(req.namespaceKey)} not found`,
      );
    }
  }

  private rolloutRule(req: CreateRolloutRequest | UpdateRolloutRequest): {
    segment: Rollout['segment'];
    threshold: Rollout['threshold'];
  } {
    if (req.segment !== undefined) {
      return {
        segment: {
          segmentKeys: [...req.segment.segmentKeys],
          segmentOperator: req.segment.segmentOperator,
          value: req.segment.value,
        },
        threshold: undefined,
      };
    }
    const t = req.threshold;
    return {
      segment: undefined,
      threshold: t === undefined ? undefined : { percentage: t.percentage, value: t.value },
    };
  }

  private removeFlag(flag: FlagRow): void {
    for (const v of [...this.variants.values()]) {
      if (v.namespaceKey === flag.namespaceKey && v.flagKey === flag.key) this.removeVariant(v);
    }
    for (const r of this.ruleRows(flag.namespaceKey, flag.key)) this.removeRule(r);
    for (const r of this.rolloutRows(flag.namespaceKey, flag.key)) this.rollouts.delete(r.id);
    this.flags.delete(pair(flag.namespaceKey, flag.key));
  }

  /** Distributions go with the variant; a flag defaulting to it loses its default. */
  private removeVariant(variant: VariantRow): void {
    for (const d of [...this.distributions.values()]) {
      if (d.variantId === variant.id) this.distributions.delete(d.id);
    }
    for (const f of this.flags.values()) {
      if (f.defaultVariantId === variant.id) f.defaultVariantId = '';
    }
    this.variants.delete(variant.id);
  }

  private removeRule(rule: RuleRow): void {
    for (const d of [...this.distributions.values()]) {
      if (d.ruleId === rule.id) this.distributions.delete(d.id);
    }
    this.rules.delete(rule.id);
  }

  private removeSegment(segment: SegmentRow): void {
    for (const c of [...this.constraints.values()]) {
      if (c.namespaceKey === segment.namespaceKey && c.segmentKey === segment.key) {
        this.constraints.delete(c.id);
      }
    }
    this.segments.delete(pair(segment.namespaceKey, segment.key));
  }

  // ---- copies out ----------------------------------------------------------------------

  private namespaceOut(r: NamespaceRow): Namespace {
    return {
      key: r.key,
      name: r.name,
      description: r.description,
      protected: r.protected,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  private variantOut(r: VariantRow): Variant {
    return {
      id: r.id,
      namespaceKey: r.namespaceKey,
      flagKey: r.flagKey,
      key: r.key,
      name: r.name,
      description: r.description,
      attachment: r.attachment,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  private flagOut(r: FlagRow): Flag {
    const variants = [...this.variants.values()]
      .filter((v) => v.namespaceKey === r.namespaceKey && v.flagKey === r.key)
      .sort(byCreated)
      .map((v) => this.variantOut(v));
    const defaultVariant = variants.find((v) => v.id === r.defaultVariantId);
    return {
      namespaceKey: r.namespaceKey,
      key: r.key,
      name: r.name,
      description: r.description,
      enabled: r.enabled,
      type: r.type,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      variants,
      ...(defaultVariant !== undefined ? { defaultVariant: { ...defaultVariant } } : {}),
      ...(r.metadata !== undefined ? { metadata: cloneJson(r.metadata) } : {}),
    };
  }

  private constraintOut(r: ConstraintRow): Constraint {
    return {
      id: r.id,
      namespaceKey: r.namespaceKey,
      segmentKey: r.segmentKey,
      type: r.type,
      property: r.property,
      operator: r.operator,
      value: r.value,
      description: r.description,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  private segmentOut(r: SegmentRow): Segment {
    return {
      namespaceKey: r.namespaceKey,
      key: r.key,
      name: r.name,
      description: r.description,
      matchType: r.matchType,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      constraints: [...this.constraints.values()]
        .filter((c) => c.namespaceKey === r.namespaceKey && c.segmentKey === r.key)
        .sort(byCreated)
        .map((c) => this.constraintOut(c)),
    };
  }

  private distributionOut(r: DistributionRow): Distribution {
    return {
      id: r.id,
      ruleId: r.ruleId,
      variantId: r.variantId,
      rollout: r.rollout,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  private ruleOut(r: RuleRow): Rule {
    return {
      id: r.id,
      namespaceKey: r.namespaceKey,
      flagKey: r.flagKey,
      segmentKeys: [...r.segmentKeys],
      segmentOperator: r.segmentOperator,
      rank: r.rank,
      distributions: [...this.distributions.values()]
        .filter((d) => d.ruleId === r.id)
        .sort(byCreated)
        .map((d) => this.distributionOut(d)),
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  private rolloutOut(r: RolloutRow): Rollout {
    return {
      id: r.id,
      namespaceKey: r.namespaceKey,
      flagKey: r.flagKey,
      type: r.type,
      rank: r.rank,
      description: r.description,
      ...(r.segment !== undefined
        ? {
            segment: {
              segmentKeys: [...r.segment.segmentKeys],
              segmentOperator: r.segment.segmentOperator,
              value: r.segment.value,
            },
          }
        : {}),
      ...(r.threshold !== undefined ? { threshold: { ...r.threshold } } : {}),
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }
}
