import { performance } from 'node:perf_hooks';
import { compileNamespace } from '../../src/domain/evaluation';
import type { Flag, NamespaceData, Rule, Segment } from '../../src/domain/model';

/*
 * Scale: one namespace of 10 000 variant flags with 5 rules each (two distributions per rule),
 * 50 segments with two constraints each. Prints compile time and RSS against the targets:
 * compile <= 200 ms, RSS < 300 MB.   npm run build && node dist/bench/scale/run.js
 */

const FLAGS = Number(process.env['SCALE_FLAGS'] ?? 10_000);
const RULES_PER_FLAG = 5;
const SEGMENTS = 50;
const TS = '2024-05-01T10:00:00.000000Z';
const ns = 'scale';

function build(): NamespaceData {
  const segments: Segment[] = [];
  for (let s = 0; s < SEGMENTS; s += 1) {
    segments.push({
      namespaceKey: ns,
      key: `seg-${s}`,
      name: `seg-${s}`,
      description: '',
      matchType: 'ALL_MATCH_TYPE',
      createdAt: TS,
      updatedAt: TS,
      constraints: [
        {
          id: `c-${s}-a`,
          namespaceKey: ns,
          segmentKey: `seg-${s}`,
          type: 'STRING_COMPARISON_TYPE',
          property: 'plan',
          operator: 'eq',
          value: `p${s}`,
          description: '',
          createdAt: TS,
          updatedAt: TS,
        },
        {
          id: `c-${s}-b`,
          namespaceKey: ns,
          segmentKey: `seg-${s}`,
          type: 'NUMBER_COMPARISON_TYPE',
          property: 'age',
          operator: 'gte',
          value: String(s),
          description: '',
          createdAt: TS,
          updatedAt: TS,
        },
      ],
    });
  }
  const flags: Flag[] = [];
  const rules: Rule[] = [];
  for (let f = 0; f < FLAGS; f += 1) {
    const key = `flag-${f}`;
    const variants = ['a', 'b'].map((v) => ({
      id: `${key}-${v}`,
      namespaceKey: ns,
      flagKey: key,
      key: v,
      name: v,
      description: '',
      attachment: '',
      createdAt: TS,
      updatedAt: TS,
    }));
    flags.push({
      namespaceKey: ns,
      key,
      name: key,
      description: '',
      enabled: true,
      type: 'VARIANT_FLAG_TYPE',
      createdAt: TS,
      updatedAt: TS,
      variants,
    });
    for (let r = 0; r < RULES_PER_FLAG; r += 1) {
      const id = `${key}-r${r}`;
      rules.push({
        id,
        namespaceKey: ns,
        flagKey: key,
        segmentKeys: [`seg-${(f + r) % SEGMENTS}`],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        rank: r + 1,
        distributions: variants.map((v, i) => ({
          id: `${id}-d${i}`,
          ruleId: id,
          variantId: v.id,
          rollout: 50,
          createdAt: TS,
          updatedAt: TS,
        })),
        createdAt: TS,
        updatedAt: TS,
      });
    }
  }
  return {
    namespace: {
      key: ns,
      name: ns,
      description: '',
      protected: false,
      createdAt: TS,
      updatedAt: TS,
    },
    version: 1,
    flags,
    segments,
    rules,
    rollouts: [],
  };
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const data = build();
const serializedBytes = JSON.stringify(data).length;
const times: number[] = [];
let compiled: unknown;
for (let i = 0; i < 7; i += 1) {
  const started = performance.now();
  compiled = compileNamespace(data);
  times.push(performance.now() - started);
}
// The cache path: serialize and parse again, in a scope of its own so the copies can be freed.
const parseMs = ((): number => {
  const text = JSON.stringify(data);
  const started = performance.now();
  JSON.parse(text);
  return performance.now() - started;
})();
// What a serving process holds: the namespace data and its compiled form.
(globalThis as { gc?: () => void }).gc?.();
const first = times[0] ?? NaN;
const sorted = [...times].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
const rss = process.memoryUsage().rss;
console.log(
  JSON.stringify({
    flags: FLAGS,
    rules: data.rules.length,
    compileFirstMs: Math.round(first),
    compileMedianMs: Math.round(median),
    serializedMB: mb(serializedBytes),
    compiledHeld: compiled !== undefined,
    jsonParseMs: Math.round(parseMs),
    rssMB: mb(rss),
    targets: { compileMs: 200, rssMB: 300 },
    pass: first <= 200 && rss < 300 * 1024 * 1024,
  }),
);
