import type { Flag, Namespace, Rollout, Rule, Segment } from './resources';

/**
 * What a write to a namespace touched: flags (with their variants, rules, distributions and
 * rollouts) and segments (with their constraints) by key, or 'all' when it cannot say (an
 * import, a change to the namespace itself).
 */
export type ChangedKeys =
  { readonly flags: readonly string[]; readonly segments: readonly string[] } | 'all';

/** The current rows of some flags and segments of one namespace, read in one transaction. */
export interface NamespaceRows {
  readonly namespace: Namespace;
  readonly version: number;
  /** Those of the flags asked for that exist, in creation order, each with its variants. */
  readonly flags: readonly Flag[];
  /** The rules of the flags asked for, in rank order per flag. */
  readonly rules: readonly Rule[];
  /** The rollouts of the flags asked for, in rank order per flag. */
  readonly rollouts: readonly Rollout[];
  /** Those of the segments asked for that exist, each with its constraints. */
  readonly segments: readonly Segment[];
}
