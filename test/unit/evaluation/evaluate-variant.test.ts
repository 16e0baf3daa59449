import { compileNamespace } from '../../../src/domain/evaluation';
import { InvalidArgumentError, NotFoundError } from '../../../src/domain/errors';
import { buildNamespace } from './fixtures';
import { ns, variantEntity, variant } from './evaluation-setup';

describe('variant flags', () => {
  it('a disabled flag answers FLAG_DISABLED without looking at rules', () => {
    const n = ns({
      key: 'f',
      enabled: false,
      variants: ['a'],
      rules: [{ segments: ['everyone'], distributions: [['a', 100]], rank: -5 }],
    });
    expect(variant(n, 'f')).toEqual({
      match: false,
      reason: 'FLAG_DISABLED_EVALUATION_REASON',
      legacyReason: 'FLAG_DISABLED_EVALUATION_REASON',
      flagKey: 'f',
      segmentKeys: [],
      variantKey: '',
      variantAttachment: '',
    });
  });

  it('a disabled flag with a default variant still carries the default variant', () => {
    const n = ns({ key: 'f', enabled: false, variants: [['d', '{"x":1}']], defaultVariant: 'd' });
    expect(variant(n, 'f')).toMatchObject({
      match: false,
      reason: 'FLAG_DISABLED_EVALUATION_REASON',
      variantKey: 'd',
      variantAttachment: '{"x":1}',
    });
  });

  it('no rules gives UNKNOWN, or DEFAULT with the default variant', () => {
    expect(variant(ns({ key: 'f', variants: ['a'] }), 'f')).toMatchObject({
      match: false,
      reason: 'UNKNOWN_EVALUATION_REASON',
      legacyReason: 'UNKNOWN_EVALUATION_REASON',
      variantKey: '',
    });
    expect(variant(ns({ key: 'f', variants: ['a', 'd'], defaultVariant: 'd' }), 'f')).toEqual({
      match: false,
      reason: 'DEFAULT_EVALUATION_REASON',
      legacyReason: 'DEFAULT_EVALUATION_REASON',
      flagKey: 'f',
      segmentKeys: [],
      variantKey: 'd',
      variantAttachment: '',
    });
  });

  it('no matching rule keeps the default variant and empty segment keys', () => {
    const n = ns({
      key: 'f',
      variants: ['a', 'd'],
      defaultVariant: 'd',
      rules: [{ segments: ['pro'], distributions: [['a', 100]] }],
    });
    expect(variant(n, 'f', 'e', { plan: 'free' })).toMatchObject({
      match: false,
      reason: 'DEFAULT_EVALUATION_REASON',
      variantKey: 'd',
      segmentKeys: [],
    });
  });

  it('a matched rule without distributions matches with an empty (or the default) variant', () => {
    const plain = ns({ key: 'f', variants: ['a'], rules: [{ segments: ['pro'] }] });
    expect(variant(plain, 'f', 'e', { plan: 'pro' })).toEqual({
      match: true,
      reason: 'MATCH_EVALUATION_REASON',
      legacyReason: 'MATCH_EVALUATION_REASON',
      flagKey: 'f',
      segmentKeys: ['pro'],
      variantKey: '',
      variantAttachment: '',
    });
    const withDefault = ns({
      key: 'f',
      variants: [['d', '{"d":true}']],
      defaultVariant: 'd',
      rules: [{ segments: ['pro'], distributions: [['d', 0]] }],
    });
    expect(variant(withDefault, 'f', 'e', { plan: 'pro' })).toMatchObject({
      match: true,
      reason: 'MATCH_EVALUATION_REASON',
      variantKey: 'd',
      variantAttachment: '{"d":true}',
    });
  });

  it('maps buckets to distributions by cumulative float32 bounds', () => {
    const n = ns({
      key: 'f',
      variants: [['a', '{"n":1}'], 'b'],
      rules: [
        {
          segments: ['everyone'],
          distributions: [
            ['a', 50],
            ['b', 50],
          ],
        },
      ],
    });
    for (const [bucket, key] of [
      [0, 'a'],
      [499, 'a'],
      [500, 'b'],
      [999, 'b'],
    ] as const) {
      expect(variant(n, 'f', variantEntity('f', bucket))).toMatchObject({
        match: true,
        reason: 'MATCH_EVALUATION_REASON',
        variantKey: key,
        variantAttachment: key === 'a' ? '{"n":1}' : '',
        segmentKeys: ['everyone'],
      });
    }
  });

  it('three times 33.33 leaves bucket 999 unmatched, and the rule still wins', () => {
    const n = ns({
      key: 'f',
      variants: ['a', 'b', 'c', 'd'],
      defaultVariant: 'd',
      rules: [
        {
          segments: ['everyone'],
          distributions: [
            ['a', 33.33],
            ['b', 33.33],
            ['c', 33.34],
          ],
        },
        { segments: ['everyone'], distributions: [['a', 100]] },
      ],
    });
    expect(variant(n, 'f', variantEntity('f', 998))).toMatchObject({
      match: true,
      variantKey: 'c',
    });
    expect(variant(n, 'f', variantEntity('f', 999))).toEqual({
      match: false,
      reason: 'DEFAULT_EVALUATION_REASON',
      legacyReason: 'DEFAULT_EVALUATION_REASON',
      flagKey: 'f',
      segmentKeys: ['everyone'],
      variantKey: 'd',
      variantAttachment: '',
    });
  });

  it('distributions summing below 100 leave the top buckets unmatched with reason UNKNOWN', () => {
    const n = ns({
      key: 'f',
      variants: ['a'],
      rules: [{ segments: ['everyone'], distributions: [['a', 10]] }],
    });
    expect(variant(n, 'f', variantEntity('f', 99))).toMatchObject({ match: true, variantKey: 'a' });
    expect(variant(n, 'f', variantEntity('f', 100))).toMatchObject({
      match: false,
      reason: 'UNKNOWN_EVALUATION_REASON',
      variantKey: '',
      segmentKeys: ['everyone'],
    });
  });

  it('0% distributions are dropped before bounds are computed', () => {
    const n = ns({
      key: 'f',
      variants: ['zero', 'a', 'b'],
      rules: [
        {
          segments: ['everyone'],
          distributions: [
            ['zero', 0],
            ['a', 30],
            ['b', 70],
          ],
        },
      ],
    });
    expect(variant(n, 'f', variantEntity('f', 0)).variantKey).toBe('a');
    expect(variant(n, 'f', variantEntity('f', 300)).variantKey).toBe('b');
  });

  it('a 100% distribution catches every bucket', () => {
    const n = ns({
      key: 'f',
      variants: ['a'],
      rules: [{ segments: ['everyone'], distributions: [['a', 100]] }],
    });
    expect(variant(n, 'f', variantEntity('f', 999)).variantKey).toBe('a');
    expect(variant(n, 'f', '').variantKey).toBe('a');
  });

  it('rules are tried in order and the first match decides', () => {
    const n = ns({
      key: 'f',
      variants: ['a', 'b'],
      rules: [
        { segments: ['pro'], distributions: [['a', 100]] },
        { segments: ['everyone'], distributions: [['b', 100]] },
      ],
    });
    expect(variant(n, 'f', 'e', { plan: 'pro' }).variantKey).toBe('a');
    expect(variant(n, 'f', 'e', { plan: 'free' })).toMatchObject({
      variantKey: 'b',
      segmentKeys: ['everyone'],
    });
  });

  it('OR rules report only the matching segments; AND rules need all of them', () => {
    const n = ns(
      {
        key: 'or',
        variants: ['a'],
        rules: [{ segments: ['pro', 'eu', 'adult'], operator: 'OR', distributions: [['a', 100]] }],
      },
      {
        key: 'and',
        variants: ['a'],
        rules: [{ segments: ['pro', 'eu'], operator: 'AND', distributions: [['a', 100]] }],
      },
    );
    expect(variant(n, 'or', 'e', { region: 'eu' }).segmentKeys).toEqual(['eu']);
    expect(variant(n, 'or', 'e', { plan: 'pro', age: '30' }).segmentKeys).toEqual(['pro', 'adult']);
    expect(variant(n, 'or', 'e', { plan: 'pro', region: 'eu', age: '30' }).segmentKeys).toEqual([
      'pro',
      'eu',
      'adult',
    ]);
    expect(variant(n, 'or', 'e', {}).match).toBe(false);
    expect(variant(n, 'and', 'e', { plan: 'pro' })).toMatchObject({
      match: false,
      segmentKeys: [],
    });
    expect(variant(n, 'and', 'e', { plan: 'pro', region: 'eu' })).toMatchObject({
      match: true,
      segmentKeys: ['pro', 'eu'],
    });
  });

  it('ALL and ANY segments combine their constraints; segments without constraints match', () => {
    const n = ns(
      { key: 'all', variants: ['a'], rules: [{ segments: ['pro-eu-all'] }] },
      { key: 'any', variants: ['a'], rules: [{ segments: ['pro-or-eu'] }] },
      { key: 'empty-any', variants: ['a'], rules: [{ segments: ['everyone-any'] }] },
    );
    expect(variant(n, 'all', 'e', { plan: 'pro' }).match).toBe(false);
    expect(variant(n, 'all', 'e', { plan: 'pro', region: 'eu' }).match).toBe(true);
    expect(variant(n, 'any', 'e', { region: 'eu' }).match).toBe(true);
    expect(variant(n, 'any', 'e', {}).match).toBe(false);
    expect(variant(n, 'empty-any', 'e', {}).match).toBe(true);
  });

  it('a rule rank out of order fails only when that rule is reached', () => {
    const n = ns({
      key: 'f',
      variants: ['a'],
      rules: [
        { segments: ['pro'], rank: 2, distributions: [['a', 100]] },
        { segments: ['everyone'], rank: 2 },
        { segments: ['everyone'], rank: 1 },
      ],
    });
    expect(variant(n, 'f', 'e', { plan: 'pro' }).variantKey).toBe('a');
    expect(variant(n, 'f', 'e', { plan: 'free' }).match).toBe(true);
    const bad = ns({
      key: 'f',
      variants: ['a'],
      rules: [
        { segments: ['pro'], rank: 2 },
        { segments: ['everyone'], rank: 1 },
      ],
    });
    expect(() => variant(bad, 'f', 'e', { plan: 'free' })).toThrow(
      new InvalidArgumentError('rule rank: 1 detected out of order'),
    );
    const negative = ns({ key: 'f', rules: [{ segments: ['everyone'], rank: -1 }] });
    expect(() => variant(negative, 'f')).toThrow('rule rank: -1 detected out of order');
  });

  it('an unknown constraint type fails when its rule is reached, even if another segment matches', () => {
    const n = ns({
      key: 'f',
      variants: ['a'],
      rules: [
        { segments: ['pro'], distributions: [['a', 100]] },
        { segments: ['everyone', 'weird'] },
      ],
    });
    expect(variant(n, 'f', 'e', { plan: 'pro' }).variantKey).toBe('a');
    expect(() => variant(n, 'f', 'e', {})).toThrow(
      new InvalidArgumentError('unknown constraint type'),
    );
  });

  it('parse errors in constraints are non-matches, not errors', () => {
    const n = compileNamespace(
      buildNamespace({
        segments: [
          { key: 'num', constraints: [['NUMBER', 'n', 'eq', 'x']] },
          { key: 'dt', constraints: [['DATETIME', 'd', 'lt', 'tomorrow']] },
        ],
        flags: [{ key: 'f', variants: ['a'], rules: [{ segments: ['num', 'dt'] }] }],
      }),
    );
    expect(variant(n, 'f', 'e', { n: '1', d: '2024-01-01' })).toMatchObject({
      match: false,
      reason: 'UNKNOWN_EVALUATION_REASON',
    });
  });

  it('rejects boolean flags and missing flags', () => {
    const n = ns({ key: 'b', type: 'boolean' });
    expect(() => variant(n, 'b')).toThrow(
      new InvalidArgumentError('flag type BOOLEAN_FLAG_TYPE invalid'),
    );
    expect(() => variant(n, 'nope')).toThrow(new NotFoundError('flag "default/nope" not found'));
    expect(() => variant(n, 'nope')).toThrow(NotFoundError);
  });
});
