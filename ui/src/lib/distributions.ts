/** Percentages of a rule's distributions, as the rule editor shows and checks them. */

export interface DistributionDraft {
  readonly variantId: string;
  readonly rollout: number;
}

/** Sum rounded to two decimals, as floats make 33.33 * 3 look like 99.99000000000001. */
export function distributionTotal(items: readonly DistributionDraft[]): number {
  return (
    Math.round(
      items.reduce((sum, d) => sum + (Number.isFinite(d.rollout) ? d.rollout : 0), 0) * 100,
    ) / 100
  );
}

export type DistributionProblem =
  | { kind: 'range'; index: number }
  | { kind: 'over'; total: number }
  | { kind: 'duplicate'; index: number };

/** What stops the drafts from being saved; the API itself does not check the sum. */
export function distributionProblems(items: readonly DistributionDraft[]): DistributionProblem[] {
  const problems: DistributionProblem[] = [];
  const seen = new Set<string>();
  items.forEach((d, index) => {
    if (!Number.isFinite(d.rollout) || d.rollout < 0 || d.rollout > 100) {
      problems.push({ kind: 'range', index });
    }
    if (seen.has(d.variantId)) problems.push({ kind: 'duplicate', index });
    seen.add(d.variantId);
  });
  const total = distributionTotal(items);
  if (total > 100) problems.push({ kind: 'over', total });
  return problems;
}

/** Splits 100 % evenly over n variants, the remainder on the first ones (for "split evenly"). */
export function evenSplit(n: number): number[] {
  if (n <= 0) return [];
  const base = Math.floor((100 / n) * 100) / 100;
  const out = Array.from({ length: n }, () => base);
  let rest = Math.round((100 - base * n) * 100);
  for (let i = 0; rest > 0; i = (i + 1) % n, rest -= 1)
    out[i] = Math.round(((out[i] ?? 0) + 0.01) * 100) / 100;
  return out;
}

/** The bucket ranges [from, to) in the evaluator's 0..1000 space, in the order given. */
export function bucketRanges(rollouts: readonly number[]): { from: number; to: number }[] {
  let from = 0;
  return rollouts.map((r) => {
    const to = from + Math.round(r * 10);
    const range = { from, to: Math.min(to, 1000) };
    from = to;
    return range;
  });
}
