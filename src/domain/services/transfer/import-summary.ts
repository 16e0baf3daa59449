import type { ImportPlan } from '../../transfer';

/** What an import did, or with `dryRun` would do, per namespace. */
export interface ImportSummary {
  readonly dryRun: boolean;
  /**
   * Namespaces emptied first (drop): those the import names, and the default namespace, are
   * kept (emptied); the others are removed.
   */
  readonly dropped: readonly string[];
  readonly namespaces: ReadonlyArray<{
    readonly key: string;
    /** True when the import creates the namespace. */
    readonly created: boolean;
    /** Keys created, in document order. */
    readonly flags: readonly string[];
    readonly segments: readonly string[];
    /** Keys left alone because they exist (skip-existing). */
    readonly skippedFlags: readonly string[];
    readonly skippedSegments: readonly string[];
  }>;
}

export function summarize(plan: ImportPlan, dryRun: boolean): ImportSummary {
  return {
    dryRun,
    dropped: plan.dropped,
    namespaces: plan.namespaces.map((ns) => ({
      key: ns.key,
      created: ns.create !== undefined,
      flags: ns.flags.map((f) => f.flag.key),
      segments: ns.segments.map((s) => s.segment.key),
      skippedFlags: ns.skippedFlags,
      skippedSegments: ns.skippedSegments,
    })),
  };
}

const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * The summary as lines for a terminal: one per namespace, and with `dryRun` one per item
 * (`+` created, `=` left alone, `-` removed), since a dry run is read to see what would change.
 */
export function describeImport(summary: ImportSummary): string[] {
  const lines: string[] = [];
  const would = summary.dryRun ? 'would be ' : '';
  for (const key of summary.dropped) {
    const kept = key === 'default' || summary.namespaces.some((n) => n.key === key);
    lines.push(`- namespace ${key}: ${would}${kept ? 'emptied' : 'removed'}`);
  }
  for (const ns of summary.namespaces) {
    const created = [count(ns.flags.length, 'flag'), count(ns.segments.length, 'segment')];
    const skipped = ns.skippedFlags.length + ns.skippedSegments.length;
    lines.push(
      `${ns.created ? '+' : '~'} namespace ${ns.key}${ns.created ? ' (new)' : ''}: ` +
        `${created.join(', ')} ${summary.dryRun ? 'to create' : 'created'}` +
        (skipped > 0 ? `, ${count(skipped, 'existing key')} left alone` : ''),
    );
    if (!summary.dryRun) continue;
    for (const key of ns.segments) lines.push(`  + segment ${ns.key}/${key}`);
    for (const key of ns.flags) lines.push(`  + flag ${ns.key}/${key}`);
    for (const key of ns.skippedSegments) lines.push(`  = segment ${ns.key}/${key} (exists)`);
    for (const key of ns.skippedFlags) lines.push(`  = flag ${ns.key}/${key} (exists)`);
  }
  return lines;
}
