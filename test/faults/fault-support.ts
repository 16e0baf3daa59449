import fc from 'fast-check';
import { enabledSqlBackends, type SqlBackend } from '../support/databases';

/*
 * Shared pieces of the fault suite: how long it runs, the configuration fuzzed requests work
 * on, the namespace nothing may touch, and value generators that mix plausible values (keys
 * and ids that exist) with hostile ones (huge, non-finite, of the wrong type, malformed).
 */

/** `npm run test:faults` sets VEXIL_FAULTS=long: more runs, rounds and seconds. */
export const LONG = process.env['VEXIL_FAULTS'] === 'long';
export const scaled = (short: number, long: number): number => (LONG ? long : short);

/**
 * The databases a fuzzer runs against: `usual` alone (or SQLite when that one is not
 * configured), every SQL backend in the long run.
 */
export function fuzzBackends(usual: SqlBackend['name']): SqlBackend[] {
  const all = enabledSqlBackends();
  if (LONG) return all;
  const one = all.find((b) => b.name === usual) ?? all.find((b) => b.name === 'sqlite');
  return one === undefined ? [] : [one];
}

/** The namespace no fuzzed request names; its content must come out unchanged. */
export const SENTINEL = 'sentinel';
/** The namespace fuzzed requests work in (besides default and invented ones). */
export const FUZZED = 'fz';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function rest(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Json> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? {} : (JSON.parse(text) as Json);
}

/** Keys and ids of a seeded namespace, for requests that reach past "not found". */
export interface Pool {
  readonly keys: string[];
  readonly ids: string[];
}

/** A namespace with one of everything: flags of both types, variants, rules, rollouts. */
export async function seedNamespace(base: string, ns: string): Promise<Pool> {
  const p = `/api/v1/namespaces/${ns}`;
  const pool: Pool = { keys: [ns, 'b', 'v', 's', 'a', 'all'], ids: [] };
  await rest(base, 'POST', '/api/v1/namespaces', { key: ns, name: ns, description: 'seeded' });
  await rest(base, 'POST', `${p}/segments`, { key: 's', name: 's', matchType: 'ANY_MATCH_TYPE' });
  await rest(base, 'POST', `${p}/segments`, { key: 'all', name: 'all' });
  for (const c of [
    { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' },
    { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18' },
    { type: 'DATETIME_COMPARISON_TYPE', property: 'at', operator: 'lt', value: '2030-01-01' },
    { type: 'STRING_COMPARISON_TYPE', property: 'c', operator: 'isoneof', value: '["a","b"]' },
    { type: 'BOOLEAN_COMPARISON_TYPE', property: 'beta', operator: 'true' },
  ]) {
    pool.ids.push((await rest(base, 'POST', `${p}/segments/s/constraints`, c)).id);
  }
  await rest(base, 'POST', `${p}/flags`, {
    key: 'b',
    name: 'b',
    type: 'BOOLEAN_FLAG_TYPE',
    enabled: true,
  });
  await rest(base, 'POST', `${p}/flags`, { key: 'v', name: 'v', enabled: true });
  const a = await rest(base, 'POST', `${p}/flags/v/variants`, { key: 'a', attachment: '{"x":1}' });
  const b = await rest(base, 'POST', `${p}/flags/v/variants`, { key: 'b' });
  pool.ids.push(a.id, b.id);
  await rest(base, 'PUT', `${p}/flags/v`, { name: 'v', enabled: true, defaultVariantId: a.id });
  for (const [rank, segmentKeys] of [
    [1, ['s']],
    [2, ['s', 'all']],
  ] as const) {
    const rule = await rest(base, 'POST', `${p}/flags/v/rules`, {
      segmentKeys,
      segmentOperator: 'AND_SEGMENT_OPERATOR',
      rank,
    });
    pool.ids.push(rule.id);
    for (const [variantId, rollout] of [
      [a.id, 30],
      [b.id, 70],
    ]) {
      const d = await rest(base, 'POST', `${p}/flags/v/rules/${rule.id}/distributions`, {
        variantId,
        rollout,
      });
      pool.ids.push(d.id);
    }
  }
  for (const [rank, rule] of [
    [1, { segment: { segmentKey: 's', value: true } }],
    [2, { threshold: { percentage: 50, value: false } }],
  ] as const) {
    pool.ids.push((await rest(base, 'POST', `${p}/flags/b/rollouts`, { rank, ...rule })).id);
  }
  return pool;
}

/** Everything a client can read of a namespace, for a before/after comparison. */
export async function dumpNamespace(base: string, ns: string): Promise<string> {
  const p = `/api/v1/namespaces/${ns}`;
  const out: Json = {
    namespace: await rest(base, 'GET', p),
    flags: await rest(base, 'GET', `${p}/flags`),
    segments: await rest(base, 'GET', `${p}/segments`),
    snapshot: await rest(base, 'GET', `/internal/v1/evaluation/snapshot/namespace/${ns}`),
  };
  for (const flag of out['flags'].flags as Json[]) {
    out[`rules:${flag['key']}`] = await rest(base, 'GET', `${p}/flags/${flag['key']}/rules`);
    out[`rollouts:${flag['key']}`] = await rest(base, 'GET', `${p}/flags/${flag['key']}/rollouts`);
  }
  return JSON.stringify(out);
}

// ---- value generators --------------------------------------------------------------------

const HOSTILE_STRINGS = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-1',
  '1e400',
  '../..',
  '%',
  '%zz',
  '\u0000',
  '\ud800',
  'é\u2028',
  '"',
  '{}',
  '[]',
  'null',
  'default',
  'x'.repeat(256),
  'y'.repeat(70_000),
];

/** A string: an existing key or id, something hostile, or anything. */
export const anyString = (pool: Pool): fc.Arbitrary<string> =>
  fc
    .oneof(
      { weight: 4, arbitrary: fc.constantFrom(...pool.keys, ...pool.ids) },
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
      { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
    )
    .filter((s) => !s.includes(SENTINEL));

export const anyInt: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -3, max: 5 }),
  fc.constantFrom(2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 53, 1e300),
  fc.integer(),
);

export const anyFloat: fc.Arbitrary<number> = fc.oneof(
  fc.double({ min: 0, max: 100, noNaN: true }),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, -1e-9, 100.0001, 1e39, 5e-324),
  fc.double(),
);

/** Any JSON value, for a field sent with the wrong type. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });
