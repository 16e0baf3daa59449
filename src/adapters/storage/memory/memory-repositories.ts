import { ForeignKeyViolationError, UniqueViolationError } from '../../../domain/errors';
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
  Namespace,
  Page,
  Rollout,
  Rule,
  Segment,
  Timestamp,
  Variant,
} from '../../../domain/model';
import type {
  ConstraintUpdate,
  DistributionUpdate,
  FlagRepository,
  FlagUpdate,
  NamespaceRepository,
  NewFlag,
  NewRule,
  NewSegment,
  RankedId,
  Repositories,
  RolloutRepository,
  RolloutUpdate,
  RuleRepository,
  RuleUpdate,
  SegmentRepository,
  SegmentUpdate,
  VariantUpdate,
} from '../../../ports';
import { pageOf, pageWindow } from '../page-token';
import {
  byCreated,
  byRank,
  pair,
  type FlagRow,
  type MemoryTables,
  type NamespaceRow,
  type RuleRow,
  type SegmentRow,
} from './memory-tables';

/*
 * The repository ports over Maps. What a database would enforce (unique keys, foreign keys,
 * cascades) is enforced here the same way; every rule is the domain's.
 */

const cloneJson = (o: JsonObject): JsonObject => structuredClone(o) as JsonObject;
const strip = <T extends { seq: number }>({ seq: _seq, ...row }: T): Omit<T, 'seq'> => row;

function page<R, T>(
  rows: readonly R[],
  req: ListNamespacesRequest,
  out: (row: R) => T,
  keyOf: (item: T) => string,
  options: { ignoreOffset?: boolean } = {},
): Page<T> {
  const window = pageWindow(req, options);
  return pageOf(rows.slice(window.offset).map(out), window, keyOf, rows.length);
}

/** Gives the listed rows ranks 1..n in list order, skipping ids that are not the flag's. */
function order<
  R extends { namespaceKey: string; flagKey: string; rank: number; updatedAt: Timestamp },
>(
  table: { get(id: string): R | undefined; set(id: string, row: R): void },
  namespaceKey: string,
  flagKey: string,
  ids: readonly string[],
  updatedAt: Timestamp,
): void {
  ids.forEach((id, i) => {
    const row = table.get(id);
    if (row?.namespaceKey === namespaceKey && row.flagKey === flagKey) {
      table.set(id, { ...row, rank: i + 1, updatedAt });
    }
  });
}

/** A repository without its bulk writes, which memoryRepositories adds from the single ones. */
type Single<R> = Omit<
  R,
  | 'createFlags'
  | 'createVariants'
  | 'setDefaultVariants'
  | 'createSegments'
  | 'createConstraints'
  | 'createRules'
  | 'createDistributions'
  | 'createRollouts'
>;

export function memoryRepositories(t: MemoryTables): Repositories {
  const flagRows = (ns: string): FlagRow[] =>
    t.flags.find((f) => f.namespaceKey === ns).sort(byCreated);
  const segmentRows = (ns: string): SegmentRow[] =>
    t.segments.find((s) => s.namespaceKey === ns).sort(byCreated);
  const ruleRows = (ns: string, flagKey: string): RuleRow[] =>
    t.rules.find((r) => r.namespaceKey === ns && r.flagKey === flagKey).sort(byRank);
  const rolloutRows = (ns: string, flagKey: string) =>
    t.rollouts.find((r) => r.namespaceKey === ns && r.flagKey === flagKey).sort(byRank);

  const namespaceOut = (r: NamespaceRow): Namespace => {
    const { seq: _s, version: _v, ...namespace } = r;
    return namespace;
  };
  const variantOut = (r: Variant & { seq: number }): Variant => strip(r);
  const flagOut = (r: FlagRow): Flag => {
    const { seq: _s, defaultVariantId, metadata, ...flag } = r;
    const variants = t.variants
      .find((v) => v.namespaceKey === r.namespaceKey && v.flagKey === r.key)
      .sort(byCreated)
      .map(variantOut);
    const defaultVariant = variants.find((v) => v.id === defaultVariantId);
    return {
      ...flag,
      variants,
      ...(defaultVariant !== undefined ? { defaultVariant: { ...defaultVariant } } : {}),
      ...(metadata !== undefined ? { metadata: cloneJson(metadata) } : {}),
    };
  };
  const segmentOut = (r: SegmentRow): Segment => ({
    ...strip(r),
    constraints: t.constraints
      .find((c) => c.namespaceKey === r.namespaceKey && c.segmentKey === r.key)
      .sort(byCreated)
      .map(strip),
  });
  const ruleOut = (r: RuleRow): Rule => ({
    ...strip(r),
    segmentKeys: [...r.segmentKeys],
    distributions: t.distributions
      .find((d) => d.ruleId === r.id)
      .sort(byCreated)
      .map(strip),
  });
  const rolloutOut = (r: Rollout & { seq: number }): Rollout => {
    const { segment, threshold, ...rest } = strip(r);
    return {
      ...rest,
      ...(segment !== undefined
        ? { segment: { ...segment, segmentKeys: [...segment.segmentKeys] } }
        : {}),
      ...(threshold !== undefined ? { threshold: { ...threshold } } : {}),
    };
  };

  const removeDistributions = (match: (d: Distribution) => boolean): void => {
    for (const d of t.distributions.find(match)) t.distributions.delete(d.id);
  };
  const removeRule = (id: string): void => {
    removeDistributions((d) => d.ruleId === id);
    t.rules.delete(id);
  };
  const removeVariant = (v: Variant): void => {
    removeDistributions((d) => d.variantId === v.id);
    for (const f of t.flags.find((f) => f.defaultVariantId === v.id)) {
      t.flags.set(pair(f.namespaceKey, f.key), { ...f, defaultVariantId: undefined });
    }
    t.variants.delete(v.id);
  };
  const removeFlag = (ns: string, key: string): void => {
    for (const v of t.variants.find((v) => v.namespaceKey === ns && v.flagKey === key)) {
      removeVariant(v);
    }
    for (const r of ruleRows(ns, key)) removeRule(r.id);
    for (const r of rolloutRows(ns, key)) t.rollouts.delete(r.id);
    t.flags.delete(pair(ns, key));
  };
  const removeSegment = (ns: string, key: string): void => {
    for (const c of t.constraints.find((c) => c.namespaceKey === ns && c.segmentKey === key)) {
      t.constraints.delete(c.id);
    }
    t.segments.delete(pair(ns, key));
  };
  const requireSegments = (ns: string, keys: readonly string[]): void => {
    if (!keys.every((k) => t.segments.has(pair(ns, k)))) throw new ForeignKeyViolationError();
  };
  const requireFlag = (ns: string, key: string): FlagRow => {
    const flag = t.flags.get(pair(ns, key));
    if (flag === undefined) throw new ForeignKeyViolationError();
    return flag;
  };
  const requireUniqueVariant = (v: Pick<Variant, 'id' | 'namespaceKey' | 'flagKey' | 'key'>) => {
    const clash = t.variants.find(
      (o) =>
        o.namespaceKey === v.namespaceKey &&
        o.flagKey === v.flagKey &&
        o.key === v.key &&
        o.id !== v.id,
    );
    if (clash.length > 0) throw new UniqueViolationError();
  };

  const namespaces: NamespaceRepository = {
    getNamespace: async (key) => {
      const row = t.namespaces.get(key);
      return row && namespaceOut(row);
    },
    listNamespaces: async (req) =>
      page(t.namespaces.values().sort(byCreated), req, namespaceOut, (n) => n.key),
    createNamespace: async (namespace) => {
      if (t.namespaces.has(namespace.key)) throw new UniqueViolationError();
      const version = (t.lastVersions.get(namespace.key) ?? 0) + 1;
      t.namespaces.set(namespace.key, { ...namespace, seq: t.seq(), version });
      t.lastVersions.set(namespace.key, version);
    },
    updateNamespace: async (update) => {
      const row = t.namespaces.get(update.key);
      if (row !== undefined) t.namespaces.set(update.key, { ...row, ...update });
    },
    deleteNamespace: async (key) => {
      for (const f of flagRows(key)) removeFlag(key, f.key);
      for (const s of segmentRows(key)) removeSegment(key, s.key);
      t.namespaces.delete(key);
    },
  };

  const flags: Single<FlagRepository> = {
    getFlag: async (ns, key) => {
      const row = t.flags.get(pair(ns, key));
      return row && flagOut(row);
    },
    listFlags: async (req: ListFlagsRequest) =>
      page(flagRows(req.namespaceKey), req, flagOut, (f) => f.key),
    countFlags: async (ns) => flagRows(ns).length,
    createFlag: async (flag: NewFlag) => {
      if (!t.namespaces.has(flag.namespaceKey)) throw new ForeignKeyViolationError();
      const id = pair(flag.namespaceKey, flag.key);
      if (t.flags.has(id)) throw new UniqueViolationError();
      const metadata = flag.metadata && cloneJson(flag.metadata);
      t.flags.set(id, { ...flag, metadata, defaultVariantId: undefined, seq: t.seq() });
    },
    updateFlag: async ({ metadata, ...update }: FlagUpdate) => {
      const id = pair(update.namespaceKey, update.key);
      const row = t.flags.get(id);
      if (row === undefined) return;
      const kept =
        metadata === undefined ? row.metadata : metadata === null ? undefined : cloneJson(metadata);
      t.flags.set(id, { ...row, ...update, metadata: kept });
    },
    deleteFlag: async (ns, key) => removeFlag(ns, key),
    getVariant: async (ns, id) => {
      const row = t.variants.get(id);
      return row?.namespaceKey === ns ? variantOut(row) : undefined;
    },
    createVariant: async (variant) => {
      requireFlag(variant.namespaceKey, variant.flagKey);
      requireUniqueVariant(variant);
      t.variants.set(variant.id, { ...variant, seq: t.seq() });
    },
    updateVariant: async (update: VariantUpdate) => {
      const row = t.variants.get(update.id);
      if (row?.namespaceKey !== update.namespaceKey || row.flagKey !== update.flagKey) return;
      requireUniqueVariant(update);
      t.variants.set(update.id, { ...row, ...update });
    },
    deleteVariant: async (ns, flagKey, id) => {
      const row = t.variants.get(id);
      if (row?.namespaceKey === ns && row.flagKey === flagKey) removeVariant(row);
    },
  };

  const segments: Single<SegmentRepository> = {
    getSegment: async (ns, key) => {
      const row = t.segments.get(pair(ns, key));
      return row && segmentOut(row);
    },
    listSegments: async (req: ListSegmentsRequest) =>
      page(segmentRows(req.namespaceKey), req, segmentOut, (s) => s.key),
    findSegmentKeys: async (ns, keys) => keys.filter((k) => t.segments.has(pair(ns, k))),
    isSegmentInUse: async (ns, key) =>
      t.rules.find((r) => r.namespaceKey === ns && r.segmentKeys.includes(key)).length > 0 ||
      t.rollouts.find((r) => r.namespaceKey === ns && r.segment?.segmentKeys.includes(key) === true)
        .length > 0,
    createSegment: async (segment: NewSegment) => {
      if (!t.namespaces.has(segment.namespaceKey)) throw new ForeignKeyViolationError();
      const id = pair(segment.namespaceKey, segment.key);
      if (t.segments.has(id)) throw new UniqueViolationError();
      t.segments.set(id, { ...segment, seq: t.seq() });
    },
    updateSegment: async (update: SegmentUpdate) => {
      const id = pair(update.namespaceKey, update.key);
      const row = t.segments.get(id);
      if (row !== undefined) t.segments.set(id, { ...row, ...update });
    },
    deleteSegment: async (ns, key) => {
      if (await segments.isSegmentInUse(ns, key)) throw new ForeignKeyViolationError();
      removeSegment(ns, key);
    },
    getConstraint: async (ns, segmentKey, id) => {
      const row = t.constraints.get(id);
      return row?.namespaceKey === ns && row.segmentKey === segmentKey ? strip(row) : undefined;
    },
    createConstraint: async (constraint: Constraint) => {
      requireSegments(constraint.namespaceKey, [constraint.segmentKey]);
      t.constraints.set(constraint.id, { ...constraint, seq: t.seq() });
    },
    updateConstraint: async (update: ConstraintUpdate) => {
      const row = t.constraints.get(update.id);
      if (row?.namespaceKey === update.namespaceKey && row.segmentKey === update.segmentKey) {
        t.constraints.set(update.id, { ...row, ...update });
      }
    },
    deleteConstraint: async (ns, segmentKey, id) => {
      const row = t.constraints.get(id);
      if (row?.namespaceKey === ns && row.segmentKey === segmentKey) t.constraints.delete(id);
    },
  };

  const ranks = (rows: ReadonlyArray<{ id: string; rank: number }>): RankedId[] =>
    rows.map((r) => ({ id: r.id, rank: r.rank }));

  const rules: Single<RuleRepository> = {
    getRule: async (ns, id) => {
      const row = t.rules.get(id);
      return row?.namespaceKey === ns ? ruleOut(row) : undefined;
    },
    listRules: async (req: ListRulesRequest) =>
      page(ruleRows(req.namespaceKey, req.flagKey), req, ruleOut, (r) => r.id),
    listRuleRanks: async (ns, flagKey) => ranks(ruleRows(ns, flagKey)),
    createRule: async (rule: NewRule) => {
      requireFlag(rule.namespaceKey, rule.flagKey);
      requireSegments(rule.namespaceKey, rule.segmentKeys);
      t.rules.set(rule.id, { ...rule, segmentKeys: [...rule.segmentKeys], seq: t.seq() });
    },
    updateRule: async (update: RuleUpdate) => {
      const row = t.rules.get(update.id);
      if (row?.namespaceKey !== update.namespaceKey) return;
      requireSegments(update.namespaceKey, update.segmentKeys);
      t.rules.set(update.id, { ...row, ...update, segmentKeys: [...update.segmentKeys] });
    },
    deleteRule: async (ns, flagKey, id) => {
      const row = t.rules.get(id);
      if (row?.namespaceKey === ns && row.flagKey === flagKey) removeRule(id);
    },
    orderRules: async (ns, flagKey, ids, updatedAt) => order(t.rules, ns, flagKey, ids, updatedAt),
    getDistribution: async (ruleId, id) => {
      const row = t.distributions.get(id);
      return row?.ruleId === ruleId ? strip(row) : undefined;
    },
    createDistribution: async (d: Distribution) => {
      if (!t.rules.has(d.ruleId) || !t.variants.has(d.variantId)) {
        throw new ForeignKeyViolationError();
      }
      t.distributions.set(d.id, { ...d, seq: t.seq() });
    },
    updateDistribution: async (update: DistributionUpdate) => {
      const row = t.distributions.get(update.id);
      if (row?.ruleId !== update.ruleId) return;
      if (!t.variants.has(update.variantId)) throw new ForeignKeyViolationError();
      t.distributions.set(update.id, { ...row, ...update });
    },
    deleteDistribution: async (ruleId, id, variantId) => {
      const row = t.distributions.get(id);
      if (row?.ruleId === ruleId && row.variantId === variantId) t.distributions.delete(id);
    },
  };

  const rollouts: Single<RolloutRepository> = {
    getRollout: async (ns, id) => {
      const row = t.rollouts.get(id);
      return row?.namespaceKey === ns ? rolloutOut(row) : undefined;
    },
    listRollouts: async (req: ListRolloutsRequest) =>
      page(rolloutRows(req.namespaceKey, req.flagKey), req, rolloutOut, (r) => r.id, {
        ignoreOffset: true,
      }),
    listRolloutRanks: async (ns, flagKey) => ranks(rolloutRows(ns, flagKey)),
    createRollout: async (rollout: Rollout) => {
      requireFlag(rollout.namespaceKey, rollout.flagKey);
      if (rollout.segment) requireSegments(rollout.namespaceKey, rollout.segment.segmentKeys);
      t.rollouts.set(rollout.id, { ...rolloutOut({ ...rollout, seq: 0 }), seq: t.seq() });
    },
    updateRollout: async ({ segment, threshold, ...update }: RolloutUpdate) => {
      const row = t.rollouts.get(update.id);
      if (row?.namespaceKey !== update.namespaceKey) return;
      if (segment) requireSegments(update.namespaceKey, segment.segmentKeys);
      const { segment: _s, threshold: _t, ...kept } = row;
      t.rollouts.set(update.id, {
        ...kept,
        ...update,
        ...(segment !== undefined
          ? { segment: { ...segment, segmentKeys: [...segment.segmentKeys] } }
          : {}),
        ...(threshold !== undefined ? { threshold: { ...threshold } } : {}),
      });
    },
    deleteRollout: async (ns, flagKey, id) => {
      const row = t.rollouts.get(id);
      if (row?.namespaceKey === ns && row.flagKey === flagKey) t.rollouts.delete(id);
    },
    orderRollouts: async (ns, flagKey, ids, updatedAt) =>
      order(t.rollouts, ns, flagKey, ids, updatedAt),
  };

  // Bulk writes (imports) are the single writes one after the other: memory has no statements.
  const each =
    <T>(write: (item: T) => Promise<void>) =>
    async (items: readonly T[]): Promise<void> => {
      for (const item of items) await write(item);
    };
  const bulkFlags: FlagRepository = {
    ...flags,
    createFlags: each(flags.createFlag),
    createVariants: each(flags.createVariant),
    setDefaultVariants: async (ns, defaults) => {
      for (const { flagKey, variantId } of defaults) {
        const id = pair(ns, flagKey);
        const row = t.flags.get(id);
        if (row !== undefined) t.flags.set(id, { ...row, defaultVariantId: variantId });
      }
    },
  };
  const bulkSegments: SegmentRepository = {
    ...segments,
    createSegments: each(segments.createSegment),
    createConstraints: each(segments.createConstraint),
  };
  const bulkRules: RuleRepository = {
    ...rules,
    createRules: each(rules.createRule),
    createDistributions: each(rules.createDistribution),
  };
  const bulkRollouts: RolloutRepository = {
    ...rollouts,
    createRollouts: each(rollouts.createRollout),
  };
  return {
    namespaces,
    flags: bulkFlags,
    segments: bulkSegments,
    rules: bulkRules,
    rollouts: bulkRollouts,
  };
}
