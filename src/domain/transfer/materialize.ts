import type {
  Constraint,
  Distribution,
  Flag,
  Namespace,
  Rollout,
  Rule,
  Segment,
  Variant,
} from '../model';
import type { Clock, IdGenerator } from '../../ports';
import type { PlannedNamespace } from './plan-import';
import type { NamespaceConfiguration } from './encode-document';

/**
 * The rows a planned namespace becomes, with ids and timestamps. Every row takes its own
 * `clock.now()`, which increases with every call: lists ordered by creation then come back in
 * document order, so an export of an import writes the same bytes as the document it read.
 */
export interface MaterializedNamespace extends Omit<NamespaceConfiguration, 'namespace'> {
  /** Present when the namespace is to be created. */
  readonly namespace?: Namespace;
}

export function materializeNamespace(
  planned: PlannedNamespace,
  ids: IdGenerator,
  clock: Clock,
): MaterializedNamespace {
  const ns = planned.key;
  let namespace: Namespace | undefined;
  if (planned.create !== undefined) {
    const at = clock.now();
    namespace = { ...planned.create, protected: false, createdAt: at, updatedAt: at };
  }

  const segments: Segment[] = planned.segments.map(({ segment, constraints }) => {
    const at = clock.now();
    return {
      namespaceKey: ns,
      key: segment.key,
      name: segment.name,
      description: segment.description,
      matchType: segment.matchType,
      createdAt: at,
      updatedAt: at,
      constraints: constraints.map((c): Constraint => {
        const cat = clock.now();
        return {
          id: ids.uuid(),
          namespaceKey: ns,
          segmentKey: segment.key,
          type: c.type,
          property: c.property,
          operator: c.operator,
          value: c.value,
          description: c.description,
          createdAt: cat,
          updatedAt: cat,
        };
      }),
    };
  });

  const flags: Flag[] = [];
  const rules: Rule[] = [];
  const rollouts: Rollout[] = [];
  for (const p of planned.flags) {
    const at = clock.now();
    const variants = p.variants.map((req): Variant => {
      const vat = clock.now();
      return {
        id: ids.uuid(),
        namespaceKey: ns,
        flagKey: req.flagKey,
        key: req.key,
        name: req.name,
        description: req.description,
        attachment: req.attachment,
        createdAt: vat,
        updatedAt: vat,
      };
    });
    const byKey = new Map(variants.map((v) => [v.key, v]));
    const defaultVariant =
      p.defaultVariantKey === undefined ? undefined : byKey.get(p.defaultVariantKey);
    flags.push({
      namespaceKey: ns,
      key: p.flag.key,
      name: p.flag.name,
      description: p.flag.description,
      enabled: p.flag.enabled,
      type: p.flag.type,
      createdAt: at,
      updatedAt: at,
      variants,
      ...(defaultVariant === undefined ? {} : { defaultVariant }),
      // An empty map is stored as none, as the API stores it.
      ...(p.flag.metadata === undefined || Object.keys(p.flag.metadata).length === 0
        ? {}
        : { metadata: p.flag.metadata }),
    });
    for (const r of p.rules) {
      const rat = clock.now();
      const ruleId = ids.uuid();
      rules.push({
        id: ruleId,
        namespaceKey: ns,
        flagKey: p.flag.key,
        segmentKeys: r.segmentKeys,
        segmentOperator: r.segmentOperator,
        rank: r.rank,
        createdAt: rat,
        updatedAt: rat,
        distributions: r.distributions.map((d): Distribution => {
          const dat = clock.now();
          return {
            id: ids.uuid(),
            ruleId,
            // The plan checked that the flag has the variant.
            variantId: byKey.get(d.variantKey)?.id ?? '',
            rollout: d.rollout,
            createdAt: dat,
            updatedAt: dat,
          };
        }),
      });
    }
    for (const r of p.rollouts) {
      const rat = clock.now();
      rollouts.push({
        id: ids.uuid(),
        namespaceKey: ns,
        flagKey: p.flag.key,
        type: r.segment !== undefined ? 'SEGMENT_ROLLOUT_TYPE' : 'THRESHOLD_ROLLOUT_TYPE',
        rank: r.rank,
        description: r.description,
        ...(r.segment === undefined ? {} : { segment: r.segment }),
        ...(r.threshold === undefined ? {} : { threshold: r.threshold }),
        createdAt: rat,
        updatedAt: rat,
      });
    }
  }
  return { ...(namespace === undefined ? {} : { namespace }), segments, flags, rules, rollouts };
}
