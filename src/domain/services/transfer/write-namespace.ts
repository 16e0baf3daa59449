import type { Repositories } from '../../../ports';
import type { MaterializedNamespace } from '../../transfer';

/**
 * Writes the rows of one imported namespace through the repositories' bulk writes, parents
 * before children: segments, constraints, flags, variants, default variants, rules,
 * distributions, rollouts.
 */
export async function writeNamespace(r: Repositories, rows: MaterializedNamespace): Promise<void> {
  if (rows.namespace !== undefined) await r.namespaces.createNamespace(rows.namespace);
  await r.segments.createSegments(rows.segments.map(({ constraints: _c, ...segment }) => segment));
  await r.segments.createConstraints(rows.segments.flatMap((s) => s.constraints));
  await r.flags.createFlags(
    rows.flags.map(({ variants: _v, defaultVariant: _d, ...flag }) => flag),
  );
  await r.flags.createVariants(rows.flags.flatMap((f) => f.variants));
  const ns = rows.namespace?.key ?? rows.flags[0]?.namespaceKey ?? '';
  await r.flags.setDefaultVariants(
    ns,
    rows.flags.flatMap((f) =>
      f.defaultVariant === undefined ? [] : [{ flagKey: f.key, variantId: f.defaultVariant.id }],
    ),
  );
  await r.rules.createRules(rows.rules.map(({ distributions: _d, ...rule }) => rule));
  await r.rules.createDistributions(rows.rules.flatMap((rule) => rule.distributions));
  await r.rollouts.createRollouts(rows.rollouts);
}
