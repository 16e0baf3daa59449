import type { Repositories } from '../../../ports';
import type { MaterializedNamespace } from '../../transfer';

/** Writes the rows of one imported namespace through the repositories, parents first. */
export async function writeNamespace(r: Repositories, rows: MaterializedNamespace): Promise<void> {
  if (rows.namespace !== undefined) await r.namespaces.createNamespace(rows.namespace);
  for (const segment of rows.segments) {
    const { constraints, ...row } = segment;
    await r.segments.createSegment(row);
    for (const constraint of constraints) await r.segments.createConstraint(constraint);
  }
  for (const flag of rows.flags) {
    const { variants, defaultVariant, ...row } = flag;
    await r.flags.createFlag(row);
    for (const variant of variants) await r.flags.createVariant(variant);
    if (defaultVariant !== undefined) {
      await r.flags.updateFlag({
        namespaceKey: flag.namespaceKey,
        key: flag.key,
        name: flag.name,
        description: flag.description,
        enabled: flag.enabled,
        defaultVariantId: defaultVariant.id,
        metadata: undefined,
        updatedAt: flag.updatedAt,
      });
    }
  }
  for (const rule of rows.rules) {
    const { distributions, ...row } = rule;
    await r.rules.createRule(row);
    for (const distribution of distributions) await r.rules.createDistribution(distribution);
  }
  for (const rollout of rows.rollouts) await r.rollouts.createRollout(rollout);
}
