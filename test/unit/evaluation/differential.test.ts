/*
 * Differential test against Flipt's own engine (flipt-evaluation in Rust, shipped as WASM in
 * @flipt-io/flipt-client-js 0.5.1), fed the snapshot document buildClientSnapshot produces.
 *
 * That engine is not a bit-exact oracle for the v1.61.1 server (reference §12), so the
 * generated configurations stay inside the region where both agree:
 *  - NUMBER constraints use integers only (the client parses 32-bit integers);
 *  - BOOLEAN context values are only "true"/"false" (the client rejects "1", "T", ...);
 *  - no DATETIME constraints (RFC 3339 only, whole seconds), no unknown types (the client
 *    silently skips them), and no whitespace in values (the client does not trim);
 *  - distributions: 0.5.1 normalises rollouts to their total and rounds the cumulative
 *    percentage, forcing the last bound to 1000; the server truncates each width. They
 *    agree when the rollouts are whole percentages summing to exactly 100 (widths summing to
 *    1000), so those are the only distribution sets generated (0% entries included);
 *  - entity ids are not blank (the client refuses them).
 * Segment key order is unspecified in Flipt (Go map order), so keys compare as sets.
 */
import { FliptClient } from '@flipt-io/flipt-client-js';
import fc from 'fast-check';
import {
  buildClientSnapshot,
  compileNamespace,
  evaluateBoolean,
  evaluateVariant,
} from '../../../src/domain/evaluation';
import {
  buildNamespace,
  type ConstraintSpec,
  type FlagSpec,
  type NamespaceSpec,
  type RolloutSpec,
  type RuleSpec,
  type SegmentSpec,
} from './fixtures';

const WORDS = ['a', 'b', 'ab', 'ba', 'abc', 'x'] as const;
const NUMBERS = ['-5', '0', '3', '7', '42'] as const;

const word = fc.constantFrom(...WORDS);
const stringConstraint: fc.Arbitrary<ConstraintSpec> = fc.oneof(
  fc.tuple(
    fc.constant('STRING' as const),
    fc.constantFrom('p1', 'p2'),
    fc.constantFrom('eq', 'neq', 'contains', 'notcontains', 'prefix', 'suffix'),
    word,
  ),
  fc.tuple(
    fc.constant('STRING' as const),
    fc.constantFrom('p1', 'p2'),
    fc.constantFrom('empty', 'notempty'),
    fc.constant(''),
  ),
  fc.tuple(
    fc.constant('STRING' as const),
    fc.constantFrom('p1', 'p2'),
    fc.constantFrom('isoneof', 'isnotoneof'),
    fc.uniqueArray(word, { maxLength: 3 }).map((l) => JSON.stringify(l)),
  ),
);
const numberConstraint: fc.Arbitrary<ConstraintSpec> = fc.oneof(
  fc.tuple(
    fc.constant('NUMBER' as const),
    fc.constant('n'),
    fc.constantFrom('eq', 'neq', 'lt', 'lte', 'gt', 'gte'),
    fc.constantFrom(...NUMBERS),
  ),
  fc.tuple(
    fc.constant('NUMBER' as const),
    fc.constant('n'),
    fc.constantFrom('present', 'notpresent'),
    fc.constant(''),
  ),
);
const booleanConstraint: fc.Arbitrary<ConstraintSpec> = fc.tuple(
  fc.constant('BOOLEAN' as const),
  fc.constant('flag'),
  fc.constantFrom('true', 'false', 'present', 'notpresent'),
  fc.constant(''),
);
const entityConstraint: fc.Arbitrary<ConstraintSpec> = fc.tuple(
  fc.constant('ENTITY_ID' as const),
  fc.constant('entityId'),
  fc.constantFrom('eq', 'neq', 'contains', 'notcontains'),
  fc.constantFrom('u1', 'u2', 'u'),
);
const constraint = fc.oneof(
  stringConstraint,
  numberConstraint,
  booleanConstraint,
  entityConstraint,
);

const SEGMENT_KEYS = ['s0', 's1', 's2', 's3'];
const segmentsArb: fc.Arbitrary<SegmentSpec[]> = fc.tuple(
  ...SEGMENT_KEYS.map((key) =>
    fc.record({
      key: fc.constant(key),
      match: fc.constantFrom('ALL' as const, 'ANY' as const),
      constraints: fc.array(constraint, { maxLength: 3 }),
    }),
  ),
);

const VARIANTS = ['v0', 'v1', 'v2'];
/** Whole percentages summing to exactly 100 over up to three variants, maybe with a 0% one. */
const distributions: fc.Arbitrary<[string, number][]> = fc.oneof(
  fc.constant<[string, number][]>([]),
  fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 })).map(([x, y]) => {
    const [lo, hi] = x <= y ? [x, y] : [y, x];
    return [
      ['v0', lo],
      ['v1', hi - lo],
      ['v2', 100 - hi],
    ] as [string, number][];
  }),
  fc.constant([['v1', 100]] as [string, number][]),
);

const segmentKeys = fc.uniqueArray(fc.constantFrom(...SEGMENT_KEYS), {
  minLength: 1,
  maxLength: 3,
});
const operator = fc.constantFrom('OR' as const, 'AND' as const);

const rule: fc.Arbitrary<RuleSpec> = fc.record({
  segments: segmentKeys,
  operator,
  distributions,
});

const rollout: fc.Arbitrary<RolloutSpec> = fc.oneof(
  fc.record({
    threshold: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(12.5, 49.5, 99.5)),
    value: fc.boolean(),
  }),
  fc.record({ segments: segmentKeys, operator, value: fc.boolean() }),
);

const flags: fc.Arbitrary<FlagSpec[]> = fc.tuple(
  fc.record({
    key: fc.constant('variant'),
    type: fc.constant('variant' as const),
    enabled: fc.boolean(),
    variants: fc.constant(VARIANTS.map((v): [string, string] => [v, v === 'v1' ? '{"k":1}' : ''])),
    defaultVariant: fc.option(fc.constantFrom(...VARIANTS), { nil: undefined }),
    rules: fc.array(rule, { maxLength: 3 }),
  }),
  fc.record({
    key: fc.constant('boolean'),
    type: fc.constant('boolean' as const),
    enabled: fc.boolean(),
    rollouts: fc.array(rollout, { maxLength: 3 }),
  }),
);

const contextPair = fc.oneof(
  fc.tuple(fc.constantFrom('p1', 'p2'), word),
  fc.tuple(fc.constant('n'), fc.oneof(fc.constantFrom(...NUMBERS), word)),
  fc.tuple(fc.constant('flag'), fc.constantFrom('true', 'false')),
);

const request = fc.record({
  entityId: fc.oneof(
    fc.constantFrom('u1', 'u2'),
    fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== ''),
  ),
  context: fc.array(contextPair, { maxLength: 4 }).map((pairs) => Object.fromEntries(pairs)),
});

async function fliptClient(spec: NamespaceSpec) {
  const doc = buildClientSnapshot('default', buildNamespace(spec), '1.47.0');
  return FliptClient.init({
    namespace: 'default',
    fetcher: async () => ({
      ok: true,
      status: 200,
      statusText: 'OK',
      headers: { get: () => null },
      json: async () => JSON.parse(JSON.stringify(doc)) as unknown,
    }),
  });
}

const sorted = (keys: readonly string[]) => [...keys].sort();

describe('differential against @flipt-io/flipt-client-js 0.5.1', () => {
  beforeAll(() => {
    // The WASM glue warns once about its init signature; keep the test output clean.
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });

  it('agrees on randomized namespaces and requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        segmentsArb,
        flags,
        fc.array(request, { minLength: 1, maxLength: 25 }),
        async (segments, flagSpecs, requests) => {
          const spec: NamespaceSpec = { segments, flags: flagSpecs };
          const ns = compileNamespace(buildNamespace(spec));
          const client = await fliptClient(spec);
          for (const req of requests) {
            const ours = evaluateVariant(ns, { flagKey: 'variant', ...req });
            const theirs = client.evaluateVariant({ flagKey: 'variant', ...req });
            expect({
              match: theirs.match,
              reason: theirs.reason,
              variantKey: theirs.variantKey,
              variantAttachment: theirs.variantAttachment ?? '',
              segmentKeys: sorted(theirs.segmentKeys),
            }).toEqual({
              match: ours.match,
              reason: ours.reason,
              variantKey: ours.variantKey,
              variantAttachment: ours.variantAttachment,
              segmentKeys: sorted(ours.segmentKeys),
            });
            const oursB = evaluateBoolean(ns, { flagKey: 'boolean', ...req });
            const theirsB = client.evaluateBoolean({ flagKey: 'boolean', ...req });
            expect({
              enabled: theirsB.enabled,
              reason: theirsB.reason,
              segmentKeys: sorted(theirsB.segmentKeys),
            }).toEqual({
              enabled: oursB.enabled,
              reason: oursB.reason,
              segmentKeys: sorted(oursB.segmentKeys),
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
