/**
 * The benchmark's document: FLAGS variant flags with 5 rules each (two variants, two
 * distributions per rule), over 50 segments of two constraints, in one namespace.
 */
export function benchmarkDocument(flags: number): Record<string, unknown> {
  const segments = Array.from({ length: 50 }, (_, i) => ({
    key: `segment-${i}`,
    name: `Segment ${i}`,
    match_type: i % 2 === 0 ? 'ALL_MATCH_TYPE' : 'ANY_MATCH_TYPE',
    constraints: [
      { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: `plan-${i}` },
      { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: String(i) },
    ],
  }));
  return {
    version: '1.4',
    namespace: { key: 'default', name: 'Default', description: 'Default namespace' },
    flags: Array.from({ length: flags }, (_, i) => ({
      key: `flag-${i}`,
      name: `Flag ${i}`,
      type: 'VARIANT_FLAG_TYPE',
      description: `benchmark flag ${i}`,
      enabled: true,
      variants: [
        { key: 'on', name: 'On', attachment: { color: 'green', weight: i } },
        { key: 'off', name: 'Off', default: true },
      ],
      rules: Array.from({ length: 5 }, (_, r) => ({
        segment: `segment-${(i + r) % 50}`,
        distributions: [
          { variant: 'on', rollout: 50 },
          { variant: 'off', rollout: 50 },
        ],
      })),
    })),
    segments,
  };
}
