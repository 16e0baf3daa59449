import fc from 'fast-check';
import { compileNamespace, evaluateBoolean, evaluateVariant } from '../../../src/domain/evaluation';
import { buildNamespace } from './fixtures';

const entityIds = (n: number) =>
  Array.from({ length: n }, (_, i) => `user-${i}-${(i * 7919) % 1000}`);
const ENTITIES = entityIds(100_000);

describe('evaluation properties', () => {
  it('is deterministic: the same request always gets the same answer', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.integer({ min: 0, max: 100 }),
        fc.dictionary(fc.constantFrom('plan', 'age'), fc.string()),
        (entityId, pct, context) => {
          const data = buildNamespace({
            segments: [{ key: 'pro', constraints: [['STRING', 'plan', 'eq', 'pro']] }],
            flags: [
              {
                key: 'v',
                variants: ['a', 'b'],
                rules: [
                  {
                    segments: ['pro'],
                    distributions: [
                      ['a', pct],
                      ['b', 100 - pct],
                    ],
                  },
                ],
              },
              { key: 'b', type: 'boolean', rollouts: [{ threshold: pct, value: true }] },
            ],
          });
          const first = compileNamespace(data);
          const second = compileNamespace(data);
          const req = (flagKey: string) => ({ flagKey, entityId, context });
          expect(evaluateVariant(second, req('v'))).toEqual(evaluateVariant(first, req('v')));
          expect(evaluateVariant(first, req('v'))).toEqual(evaluateVariant(first, req('v')));
          expect(evaluateBoolean(second, req('b'))).toEqual(evaluateBoolean(first, req('b')));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('bucket shares stay within one percentage point of the split over 100 000 entities', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 })),
        fc.constantFrom('flag', 'checkout-v2', 'ünïcode-flag'),
        ([x, y], flagKey) => {
          const [lo, hi] = x <= y ? [x, y] : [y, x];
          const split = [lo, hi - lo, 100 - hi];
          const ns = compileNamespace(
            buildNamespace({
              segments: [{ key: 'all' }],
              flags: [
                {
                  key: flagKey,
                  variants: ['a', 'b', 'c'],
                  rules: [
                    {
                      segments: ['all'],
                      distributions: [
                        ['a', split[0] as number],
                        ['b', split[1] as number],
                        ['c', split[2] as number],
                      ],
                    },
                  ],
                },
              ],
            }),
          );
          const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
          for (const entityId of ENTITIES) {
            const r = evaluateVariant(ns, { flagKey, entityId, context: {} });
            counts[r.variantKey] = (counts[r.variantKey] ?? 0) + 1;
          }
          ['a', 'b', 'c'].forEach((k, i) => {
            const share = ((counts[k] as number) / ENTITIES.length) * 100;
            expect(Math.abs(share - (split[i] as number))).toBeLessThanOrEqual(1);
          });
        },
      ),
      { numRuns: 8 },
    );
  });

  it('threshold rollouts: the matched set only grows as the percentage grows', () => {
    const sample = ENTITIES.slice(0, 3000);
    fc.assert(
      fc.property(
        fc.float({ min: 0, max: 100, noNaN: true }),
        fc.float({ min: 0, max: 100, noNaN: true }),
        (p, q) => {
          const [lo, hi] = p <= q ? [p, q] : [q, p];
          const matched = (pct: number) => {
            const ns = compileNamespace(
              buildNamespace({
                flags: [{ key: 'b', type: 'boolean', rollouts: [{ threshold: pct, value: true }] }],
              }),
            );
            return sample.filter(
              (entityId) =>
                evaluateBoolean(ns, { flagKey: 'b', entityId, context: {} }).reason ===
                'MATCH_EVALUATION_REASON',
            );
          };
          const small = new Set(matched(lo));
          const large = new Set(matched(hi));
          for (const e of small) expect(large.has(e)).toBe(true);
          expect(Math.abs((large.size / sample.length) * 100 - Math.ceil(hi))).toBeLessThan(4);
        },
      ),
      { numRuns: 40 },
    );
  });
});
