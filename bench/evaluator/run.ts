/*
 * In-process evaluator throughput, one core, beside @flipt-io/flipt-client-js (Flipt's Rust
 * engine as WASM) fed the same namespace through its snapshot document.
 *   npm run bench:evaluator
 */
import { FliptClient } from '@flipt-io/flipt-client-js';
import {
  buildClientSnapshot,
  compileNamespace,
  evaluateBatch,
  evaluateBoolean,
  evaluateVariant,
  type CompiledNamespace,
} from '../../src/domain/evaluation';
import type {
  Constraint,
  EvaluationRequest,
  Flag,
  NamespaceData,
  Rollout,
  Rule,
  Segment,
  Variant,
} from '../../src/domain/model';

const TS = '2024-05-01T10:00:00.000000Z';
const NS = 'default';
const ROUNDS = 7;
const ROUND_MS = 400;

function constraint(segmentKey: string, i: number, c: Partial<Constraint>): Constraint {
  return {
    id: `${segmentKey}-${i}`,
    namespaceKey: NS,
    segmentKey,
    type: 'STRING_COMPARISON_TYPE',
    property: 'plan',
    operator: 'eq',
    value: '',
    description: '',
    createdAt: TS,
    updatedAt: TS,
    ...c,
  };
}

function segment(key: string, constraints: Partial<Constraint>[]): Segment {
  return {
    namespaceKey: NS,
    key,
    name: key,
    description: '',
    matchType: 'ALL_MATCH_TYPE',
    createdAt: TS,
    updatedAt: TS,
    constraints: constraints.map((c, i) => constraint(key, i, c)),
  };
}

function flag(key: string, type: Flag['type'], variants: string[] = []): Flag {
  return {
    namespaceKey: NS,
    key,
    name: key,
    description: '',
    enabled: true,
    type,
    createdAt: TS,
    updatedAt: TS,
    variants: variants.map((v): Variant => ({
      id: `${key}/${v}`,
      namespaceKey: NS,
      flagKey: key,
      key: v,
      name: v,
      description: '',
      attachment: v === 'blue' ? '{"shade":"dark"}' : '',
      createdAt: TS,
      updatedAt: TS,
    })),
  };
}

const common = (flagKey: string, id: string, rank: number) => ({
  id,
  namespaceKey: NS,
  flagKey,
  rank,
  createdAt: TS,
  updatedAt: TS,
});

/** Case a: a segment rollout on one constraint, then a 50% threshold rollout. */
function booleanCase(key: string): { flag: Flag; rollouts: Rollout[] } {
  return {
    flag: flag(key, 'BOOLEAN_FLAG_TYPE'),
    rollouts: [
      {
        ...common(key, `${key}-r1`, 1),
        type: 'SEGMENT_ROLLOUT_TYPE',
        description: '',
        segment: { segmentKeys: ['beta'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true },
      },
      {
        ...common(key, `${key}-r2`, 2),
        type: 'THRESHOLD_ROLLOUT_TYPE',
        description: '',
        threshold: { percentage: 50, value: true },
      },
    ],
  };
}

/** Case b: 3 rules x 2 segments x 3 constraints, 3 distributions each. */
function variantCase(key: string): { flag: Flag; rules: Rule[] } {
  const f = flag(key, 'VARIANT_FLAG_TYPE', ['red', 'green', 'blue']);
  const rules = [1, 2, 3].map((n): Rule => ({
    ...common(key, `${key}-rule${n}`, n),
    segmentKeys: [`tier${n}`, `geo${n}`],
    segmentOperator: 'AND_SEGMENT_OPERATOR',
    distributions: (
      [
        ['red', 33.34],
        ['green', 33.33],
        ['blue', 33.33],
      ] as const
    ).map(([v, rollout], i) => ({
      id: `${key}-rule${n}-d${i}`,
      ruleId: `${key}-rule${n}`,
      variantId: `${key}/${v}`,
      rollout,
      createdAt: TS,
      updatedAt: TS,
    })),
  }));
  return { flag: f, rules };
}

function buildData(): NamespaceData {
  const segments: Segment[] = [segment('beta', [{ property: 'plan', value: 'beta' }])];
  for (const n of [1, 2, 3]) {
    segments.push(
      segment(`tier${n}`, [
        { property: 'tier', value: `t${n}` },
        { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18' },
        { property: 'app', operator: 'prefix', value: 'mobile' },
      ]),
      segment(`geo${n}`, [
        { property: 'country', operator: 'isoneof', value: '["de","fr","nl","se"]' },
        { property: 'lang', operator: 'neq', value: 'xx' },
        { type: 'BOOLEAN_COMPARISON_TYPE', property: 'verified', operator: 'true' },
      ]),
    );
  }
  const flags: Flag[] = [];
  const rules: Rule[] = [];
  const rollouts: Rollout[] = [];
  const a = booleanCase('case-a');
  const b = variantCase('case-b');
  flags.push(a.flag, b.flag);
  rollouts.push(...a.rollouts);
  rules.push(...b.rules);
  for (let i = 0; i < 50; i++) {
    const x = booleanCase(`batch-bool-${i}`);
    const y = variantCase(`batch-variant-${i}`);
    flags.push(x.flag, y.flag);
    rollouts.push(...x.rollouts);
    rules.push(...y.rules);
  }
  return {
    namespace: {
      key: NS,
      name: NS,
      description: '',
      protected: false,
      createdAt: TS,
      updatedAt: TS,
    },
    version: 1,
    flags,
    segments,
    rules,
    rollouts,
  };
}

const ENTITIES = Array.from({ length: 1024 }, (_, i) => {
  const h = ((i + 1) * 2654435761) >>> 0;
  return `${h.toString(16).padStart(8, '0')}-4c1d-4a2b-9e3f-${i.toString(16).padStart(12, '0')}`;
});
// Case a: the segment misses, so the threshold (and the hash) is always reached.
const CONTEXT_A = { plan: 'free' };
// Case b: rules 1 and 2 miss on their first segment, rule 3 matches.
const CONTEXT_B = {
  tier: 't3',
  age: '34',
  app: 'mobile-ios',
  country: 'nl',
  lang: 'nl',
  verified: 'true',
};

function measure(fn: (i: number) => unknown, evaluationsPerCall: number): number {
  const rates: number[] = [];
  let sink = 0;
  for (let round = -1; round < ROUNDS; round++) {
    let calls = 0;
    const start = process.hrtime.bigint();
    const deadline = start + BigInt(ROUND_MS) * 1_000_000n;
    let now = start;
    while (now < deadline) {
      for (let k = 0; k < 256; k++) {
        if (fn(calls++) !== undefined) sink++;
      }
      now = process.hrtime.bigint();
    }
    if (round >= 0) rates.push((calls * evaluationsPerCall) / (Number(now - start) / 1e9));
  }
  if (sink < 0) console.log(sink);
  rates.sort((x, y) => x - y);
  return rates[Math.floor(rates.length / 2)] as number;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US').padStart(12);

async function main(): Promise<void> {
  const data = buildData();
  const ns: CompiledNamespace = compileNamespace(data);
  const doc = buildClientSnapshot(NS, data, '1.47.0');
  const client = await FliptClient.init({
    namespace: NS,
    fetcher: async () => ({
      ok: true,
      status: 200,
      statusText: 'OK',
      headers: { get: () => null },
      json: async () => doc,
    }),
  });

  // Both engines must agree on the benchmarked inputs before their speed means anything.
  for (const entityId of ENTITIES.slice(0, 200)) {
    const ours = evaluateBoolean(ns, { flagKey: 'case-a', entityId, context: CONTEXT_A });
    const theirs = client.evaluateBoolean({ flagKey: 'case-a', entityId, context: CONTEXT_A });
    const v1 = evaluateVariant(ns, { flagKey: 'case-b', entityId, context: CONTEXT_B });
    const v2 = client.evaluateVariant({ flagKey: 'case-b', entityId, context: CONTEXT_B });
    if (ours.enabled !== theirs.enabled || v1.variantKey !== v2.variantKey) {
      throw new Error(`engines disagree for ${entityId}`);
    }
  }

  const batch: EvaluationRequest[] = data.flags.slice(2).map((f, i) => ({
    requestId: '',
    namespaceKey: NS,
    flagKey: f.key,
    entityId: ENTITIES[i] as string,
    context: f.type === 'BOOLEAN_FLAG_TYPE' ? CONTEXT_A : CONTEXT_B,
    reference: '',
  }));
  const clientBatch = batch.map((r) => ({
    flagKey: r.flagKey,
    entityId: r.entityId,
    context: { ...r.context },
  }));
  const resolve = (k: string) => (k === NS ? ns : undefined);
  const mask = ENTITIES.length - 1;

  const cases: [string, () => number, () => number][] = [
    [
      '(a) boolean: segment rollout + threshold',
      () =>
        measure(
          (i) =>
            evaluateBoolean(ns, {
              flagKey: 'case-a',
              entityId: ENTITIES[i & mask] as string,
              context: CONTEXT_A,
            }),
          1,
        ),
      () =>
        measure(
          (i) =>
            client.evaluateBoolean({
              flagKey: 'case-a',
              entityId: ENTITIES[i & mask] as string,
              context: CONTEXT_A,
            }),
          1,
        ),
    ],
    [
      '(b) variant: 3 rules x 2 segments x 3 constraints',
      () =>
        measure(
          (i) =>
            evaluateVariant(ns, {
              flagKey: 'case-b',
              entityId: ENTITIES[i & mask] as string,
              context: CONTEXT_B,
            }),
          1,
        ),
      () =>
        measure(
          (i) =>
            client.evaluateVariant({
              flagKey: 'case-b',
              entityId: ENTITIES[i & mask] as string,
              context: CONTEXT_B,
            }),
          1,
        ),
    ],
    [
      '(c) batch of 100 flags (evaluations/s)',
      () => measure(() => evaluateBatch(resolve, batch), batch.length),
      () => measure(() => client.evaluateBatch(clientBatch), batch.length),
    ],
  ];

  console.log(`node ${process.version}, ${ROUNDS} rounds of ${ROUND_MS} ms after warm-up, median`);
  console.log(
    `${'case'.padEnd(52)}${'vexil/s'.padStart(12)}${'flipt-client-js/s'.padStart(19)}  ratio`,
  );
  for (const [name, ours, theirs] of cases) {
    const a = ours();
    const b = theirs();
    console.log(`${name.padEnd(52)}${fmt(a)}${fmt(b).padStart(19)}  ${(a / b).toFixed(1)}x`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
