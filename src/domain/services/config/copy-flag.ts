import type {
  Constraint,
  CopyFlagRequest,
  Distribution,
  Flag,
  Rollout,
  Rule,
  Segment,
  Timestamp,
  Variant,
} from '../../model';
import type { NewFlag, NewRule, NewSegment } from '../../../ports';
import { referenced, unique, type ConfigContext } from './context';
import { flagNotFound, flagNotUnique, namespaceNotFound, segmentNotFound } from './messages';

/** What a copy reads from the source namespace. */
export interface CopySource {
  readonly flag: Flag;
  /** By rank. */
  readonly rules: readonly Rule[];
  /** By rank. */
  readonly rollouts: readonly Rollout[];
  /** Every segment the rules and rollouts use, with its constraints. */
  readonly segments: readonly Segment[];
}

/** Everything a copy writes to the target namespace, in the order it must be written. */
export interface CopyPlan {
  readonly flag: NewFlag;
  readonly variants: readonly Variant[];
  /** Defaults to the copy of the source's default variant, set once the variants exist. */
  readonly defaultVariantId: string | undefined;
  /** Segments the target lacks, created with their constraints; existing ones are used as they are. */
  readonly segments: readonly {
    readonly segment: NewSegment;
    readonly constraints: readonly Constraint[];
  }[];
  readonly rules: readonly NewRule[];
  readonly distributions: readonly Distribution[];
  readonly rollouts: readonly Rollout[];
}

/** The segment keys a flag's rules and rollouts refer to, in first-use order. */
export function segmentKeysUsed(rules: readonly Rule[], rollouts: readonly Rollout[]): string[] {
  const keys = [
    ...rules.flatMap((r) => r.segmentKeys),
    ...rollouts.flatMap((r) => r.segment?.segmentKeys ?? []),
  ];
  return [...new Set(keys)];
}

/**
 * The copy of a flag in another namespace, as a pure function of what was read: fresh ids for
 * every variant, rule, distribution, rollout and constraint, references rewired to them,
 * ranks kept. The flag, segments, rules and rollouts are created `now`; variants, constraints
 * and distributions keep their creation times, which is what orders them. Segments named in `existingSegmentKeys` are reused.
 */
export function planFlagCopy(
  source: CopySource,
  target: {
    readonly namespaceKey: string;
    readonly key: string;
    readonly existingSegmentKeys: ReadonlySet<string>;
  },
  ids: { uuid(): string },
  now: Timestamp,
): CopyPlan {
  const ns = target.namespaceKey;
  const flagKey = target.key;
  const { flag } = source;
  const variantIds = new Map<string, string>();
  const variants = flag.variants.map((v): Variant => {
    const id = ids.uuid();
    variantIds.set(v.id, id);
    return { ...v, id, namespaceKey: ns, flagKey };
  });
  const segments = source.segments
    .filter((s) => !target.existingSegmentKeys.has(s.key))
    .map((s) => ({
      segment: {
        namespaceKey: ns,
        key: s.key,
        name: s.name,
        description: s.description,
        matchType: s.matchType,
        createdAt: now,
        updatedAt: now,
      },
      constraints: s.constraints.map((c): Constraint => ({
        ...c,
        id: ids.uuid(),
        namespaceKey: ns,
      })),
    }));
  const distributions: Distribution[] = [];
  const rules = source.rules.map((r): NewRule => {
    const id = ids.uuid();
    for (const d of r.distributions) {
      const variantId = variantIds.get(d.variantId);
      // A distribution always names a variant of its own flag; one that does not is not copied.
      if (variantId === undefined) continue;
      distributions.push({ ...d, id: ids.uuid(), ruleId: id, variantId });
    }
    return {
      id,
      namespaceKey: ns,
      flagKey,
      segmentKeys: r.segmentKeys,
      segmentOperator: r.segmentOperator,
      rank: r.rank,
      createdAt: now,
      updatedAt: now,
    };
  });
  const rollouts = source.rollouts.map((r): Rollout => ({
    ...r,
    id: ids.uuid(),
    namespaceKey: ns,
    flagKey,
    createdAt: now,
    updatedAt: now,
  }));
  const { variants: _v, defaultVariant, ...fields } = flag;
  return {
    flag: { ...fields, namespaceKey: ns, key: flagKey, createdAt: now, updatedAt: now },
    variants,
    defaultVariantId: defaultVariant === undefined ? undefined : variantIds.get(defaultVariant.id),
    segments,
    rules,
    distributions,
    rollouts,
  };
}

const ALL = { limit: 0, offset: 0, pageToken: '', reference: '' };

/**
 * Copies a flag into another namespace in one unit of work on the target: everything is
 * written, or nothing (a flag of that key already there, a namespace or segment missing).
 */
export function copyFlag(c: ConfigContext, req: CopyFlagRequest): Promise<Flag> {
  const from = req.namespaceKey;
  const to = req.targetNamespaceKey;
  const key = req.targetKey === '' ? req.key : req.targetKey;
  return c.unitOfWork.write(to, async (r, scope) => {
    if (!scope.namespaceExists) throw namespaceNotFound(to);
    const flag = await r.flags.getFlag(from, req.key);
    if (flag === undefined) throw flagNotFound(from, req.key);
    if ((await r.flags.getFlag(to, key)) !== undefined) throw flagNotUnique(to, key);
    const rules = (await r.rules.listRules({ ...ALL, namespaceKey: from, flagKey: req.key })).items;
    const rollouts = (
      await r.rollouts.listRollouts({ ...ALL, namespaceKey: from, flagKey: req.key })
    ).items;
    const keys = segmentKeysUsed(rules, rollouts);
    const segments: Segment[] = [];
    for (const k of keys) {
      const segment = await r.segments.getSegment(from, k);
      if (segment === undefined) throw segmentNotFound(from, k);
      segments.push(segment);
    }
    const existing = new Set(await r.segments.findSegmentKeys(to, keys));
    const plan = planFlagCopy(
      { flag, rules, rollouts, segments },
      { namespaceKey: to, key, existingSegmentKeys: existing },
      c.ids,
      c.clock.now(),
    );

    await unique(r.flags.createFlag(plan.flag), () => flagNotUnique(to, key));
    for (const v of plan.variants) await r.flags.createVariant(v);
    if (plan.defaultVariantId !== undefined) {
      await r.flags.updateFlag({
        namespaceKey: to,
        key,
        name: plan.flag.name,
        description: plan.flag.description,
        enabled: plan.flag.enabled,
        defaultVariantId: plan.defaultVariantId,
        metadata: undefined,
        updatedAt: plan.flag.updatedAt,
      });
    }
    for (const { segment, constraints } of plan.segments) {
      await r.segments.createSegment(segment);
      for (const constraint of constraints) await r.segments.createConstraint(constraint);
    }
    const missing = (): Error => segmentNotFound(to, keys.join(', '));
    for (const rule of plan.rules) await referenced(r.rules.createRule(rule), missing);
    for (const d of plan.distributions) await r.rules.createDistribution(d);
    for (const rollout of plan.rollouts)
      await referenced(r.rollouts.createRollout(rollout), missing);

    const copied = await r.flags.getFlag(to, key);
    if (copied === undefined) throw flagNotFound(to, key);
    return copied;
  });
}
