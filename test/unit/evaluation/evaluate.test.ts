import { crc32 } from '../../../src/domain/evaluation/crc32';
import {
  compileNamespace,
  evaluateBatch,
  evaluateBoolean,
  evaluateVariant,
  type CompiledNamespace,
} from '../../../src/domain/evaluation';
import { InvalidArgumentError, NotFoundError } from '../../../src/domain/errors';
import type { EvaluationRequest } from '../../../src/domain/model';
import { buildNamespace, entityInBucket, type FlagSpec, type SegmentSpec } from './fixtures';

const segments: SegmentSpec[] = [
  { key: 'everyone' },
  { key: 'everyone-any', match: 'ANY' },
  { key: 'pro', constraints: [['STRING', 'plan', 'eq', 'pro']] },
  { key: 'eu', constraints: [['STRING', 'region', 'eq', 'eu']] },
  { key: 'adult', constraints: [['NUMBER', 'age', 'gte', '18']] },
  {
    key: 'pro-eu-all',
    constraints: [
      ['STRING', 'plan', 'eq', 'pro'],
      ['STRING', 'region', 'eq', 'eu'],
    ],
  },
  {
    key: 'pro-or-eu',
    match: 'ANY',
    constraints: [
      ['STRING', 'plan', 'eq', 'pro'],
      ['STRING', 'region', 'eq', 'eu'],
    ],
  },
  { key: 'weird', constraints: [['UNKNOWN', 'plan', 'eq', 'pro']] },
];

const ns = (...flags: FlagSpec[]): CompiledNamespace =>
  compileNamespace(buildNamespace({ flags, segments }));

/** An entity whose variant bucket for `flagKey` is `bucket`. */
const variantEntity = (flagKey: string, bucket: number) =>
  entityInBucket(crc32, flagKey, '', 1000, bucket);
/** An entity whose threshold bucket for `flagKey` is `bucket`. */
const thresholdEntity = (flagKey: string, bucket: number) =>
  entityInBucket(crc32, '', flagKey, 100, bucket);

const variant = (n: CompiledNamespace, flagKey: string, entityId = 'e', context = {}) =>
  evaluateVariant(n, { flagKey, entityId, context });
const boolean = (n: CompiledNamespace, flagKey: string, entityId = 'e', context = {}) =>
  evaluateBoolean(n, { flagKey, entityId, context });

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

describe('boolean flags', () => {
  it('with no rollouts answers the enabled value with DEFAULT (never FLAG_DISABLED)', () => {
    expect(boolean(ns({ key: 'b', type: 'boolean', enabled: true }), 'b')).toEqual({
      enabled: true,
      reason: 'DEFAULT_EVALUATION_REASON',
      flagKey: 'b',
      segmentKeys: [],
    });
    expect(boolean(ns({ key: 'b', type: 'boolean', enabled: false }), 'b')).toEqual({
      enabled: false,
      reason: 'DEFAULT_EVALUATION_REASON',
      flagKey: 'b',
      segmentKeys: [],
    });
  });

  it('a disabled flag still evaluates its rollouts', () => {
    const n = ns({
      key: 'b',
      type: 'boolean',
      enabled: false,
      rollouts: [{ segments: ['everyone'], value: true }],
    });
    expect(boolean(n, 'b')).toEqual({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      flagKey: 'b',
      segmentKeys: ['everyone'],
    });
  });

  it('a threshold matches buckets strictly below the percentage and falls through otherwise', () => {
    const n = ns({
      key: 'b',
      type: 'boolean',
      enabled: false,
      rollouts: [
        { threshold: 50.5, value: true },
        { segments: ['pro'], value: false },
      ],
    });
    expect(boolean(n, 'b', thresholdEntity('b', 50))).toEqual({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      flagKey: 'b',
      segmentKeys: [],
    });
    expect(boolean(n, 'b', thresholdEntity('b', 51), { plan: 'pro' })).toMatchObject({
      enabled: false,
      reason: 'MATCH_EVALUATION_REASON',
      segmentKeys: ['pro'],
    });
    expect(boolean(n, 'b', thresholdEntity('b', 51))).toMatchObject({
      enabled: false,
      reason: 'DEFAULT_EVALUATION_REASON',
    });
  });

  it('uses the reference vector: test-entity on test-flag is bucket 65', () => {
    const at = (pct: number) =>
      boolean(
        ns({ key: 'test-flag', type: 'boolean', rollouts: [{ threshold: pct, value: false }] }),
        'test-flag',
        'test-entity',
      ).reason;
    expect(at(65)).toBe('DEFAULT_EVALUATION_REASON');
    expect(at(65.5)).toBe('MATCH_EVALUATION_REASON');
  });

  it('0% never matches and 100% always matches', () => {
    const n = ns(
      { key: 'zero', type: 'boolean', rollouts: [{ threshold: 0, value: false }] },
      { key: 'full', type: 'boolean', enabled: false, rollouts: [{ threshold: 100, value: true }] },
    );
    for (let i = 0; i < 200; i++) {
      expect(boolean(n, 'zero', `e${i}`).reason).toBe('DEFAULT_EVALUATION_REASON');
      expect(boolean(n, 'full', `e${i}`).enabled).toBe(true);
    }
  });

  it('segment rollouts honour OR and AND and report matched keys', () => {
    const n = ns(
      {
        key: 'or',
        type: 'boolean',
        rollouts: [{ segments: ['pro', 'eu', 'adult'], value: false }],
      },
      {
        key: 'and',
        type: 'boolean',
        rollouts: [{ segments: ['pro', 'eu'], operator: 'AND', value: false }],
      },
    );
    expect(boolean(n, 'or', 'e', { region: 'eu', age: '20' })).toEqual({
      enabled: false,
      reason: 'MATCH_EVALUATION_REASON',
      flagKey: 'or',
      segmentKeys: ['eu', 'adult'],
    });
    expect(boolean(n, 'or', 'e', {}).reason).toBe('DEFAULT_EVALUATION_REASON');
    expect(boolean(n, 'and', 'e', { region: 'eu' }).reason).toBe('DEFAULT_EVALUATION_REASON');
    expect(boolean(n, 'and', 'e', { region: 'eu', plan: 'pro' }).segmentKeys).toEqual([
      'pro',
      'eu',
    ]);
  });

  it('a rollout rank out of order is an invalid argument (as for rules), raised only when reached', () => {
    const n = ns({
      key: 'b',
      type: 'boolean',
      rollouts: [
        { segments: ['pro'], value: true, rank: 3 },
        { threshold: 100, value: true, rank: 2 },
      ],
    });
    expect(boolean(n, 'b', 'e', { plan: 'pro' }).enabled).toBe(true);
    expect(() => boolean(n, 'b', 'e', {})).toThrow(
      new InvalidArgumentError('rollout rank: 2 detected out of order'),
    );
    expect(() => boolean(n, 'b', 'e', {})).toThrow(InvalidArgumentError);
    const negative = ns({
      key: 'b',
      type: 'boolean',
      rollouts: [{ threshold: 50, value: true, rank: -1 }],
    });
    expect(() => boolean(negative, 'b')).toThrow(
      new InvalidArgumentError('rollout rank: -1 detected out of order'),
    );
  });

  it('an unknown constraint type fails the evaluation when reached', () => {
    const n = ns({
      key: 'b',
      type: 'boolean',
      rollouts: [
        { threshold: 100, value: true },
        { segments: ['weird'], value: true },
      ],
    });
    expect(boolean(n, 'b').enabled).toBe(true);
    const m = ns({ key: 'b', type: 'boolean', rollouts: [{ segments: ['weird'], value: true }] });
    expect(() => boolean(m, 'b')).toThrow(new InvalidArgumentError('unknown constraint type'));
  });

  it('rejects variant flags and missing flags', () => {
    const n = ns({ key: 'v' });
    expect(() => boolean(n, 'v')).toThrow(
      new InvalidArgumentError('flag type VARIANT_FLAG_TYPE invalid'),
    );
    const other = compileNamespace(buildNamespace({ key: 'team', flags: [] }));
    expect(() => boolean(other, 'x')).toThrow('flag "team/x" not found');
  });
});

describe('batch', () => {
  const data = (key: string) =>
    compileNamespace(
      buildNamespace({
        key,
        segments,
        flags: [
          { key: 'b', type: 'boolean', rollouts: [{ segments: ['pro'], value: false }] },
          {
            key: 'v',
            variants: ['a'],
            rules: [{ segments: ['pro'], distributions: [['a', 100]] }],
          },
          { key: 'bad', variants: ['a'], rules: [{ segments: ['weird'] }] },
        ],
      }),
    );
  const spaces = new Map([
    ['default', data('default')],
    ['team', data('team')],
  ]);
  const resolve = (k: string) => spaces.get(k);
  const req = (
    flagKey: string,
    namespaceKey = '',
    context: Record<string, string> = { plan: 'pro' },
  ): EvaluationRequest => ({
    requestId: '',
    namespaceKey,
    flagKey,
    entityId: 'e',
    context,
    reference: '',
  });

  it('evaluates each item by its flag type and reports missing flags and namespaces per item', () => {
    expect(
      evaluateBatch(resolve, [
        req('b'),
        req('v', 'team'),
        req('missing'),
        req('v', 'nowhere'),
        req('b', 'default', {}),
      ]),
    ).toEqual([
      {
        type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE',
        boolean: {
          enabled: false,
          reason: 'MATCH_EVALUATION_REASON',
          flagKey: 'b',
          segmentKeys: ['pro'],
        },
      },
      {
        type: 'VARIANT_EVALUATION_RESPONSE_TYPE',
        variant: expect.objectContaining({ match: true, variantKey: 'a', flagKey: 'v' }),
      },
      {
        type: 'ERROR_EVALUATION_RESPONSE_TYPE',
        error: {
          flagKey: 'missing',
          namespaceKey: '',
          reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
        },
      },
      {
        type: 'ERROR_EVALUATION_RESPONSE_TYPE',
        error: {
          flagKey: 'v',
          namespaceKey: 'nowhere',
          reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
        },
      },
      {
        type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE',
        boolean: {
          enabled: true,
          reason: 'DEFAULT_EVALUATION_REASON',
          flagKey: 'b',
          segmentKeys: [],
        },
      },
    ]);
  });

  it('resolves an empty namespace key to "default"', () => {
    const asked: string[] = [];
    evaluateBatch((k) => (asked.push(k), spaces.get(k)), [req('b', ''), req('b', 'team')]);
    expect(asked).toEqual(['default', 'team']);
  });

  it('a flag whose stored configuration cannot be evaluated answers an error item; the rest are evaluated', () => {
    const failures: Array<[number, string]> = [];
    const items = evaluateBatch(resolve, [req('b'), req('bad', 'team'), req('v')], (i, err) =>
      failures.push([i, (err as Error).message]),
    );
    expect(items[0]?.type).toBe('BOOLEAN_EVALUATION_RESPONSE_TYPE');
    expect(items[1]).toEqual({
      type: 'ERROR_EVALUATION_RESPONSE_TYPE',
      error: { flagKey: 'bad', namespaceKey: 'team', reason: 'UNKNOWN_ERROR_EVALUATION_REASON' },
    });
    expect(items[2]?.type).toBe('VARIANT_EVALUATION_RESPONSE_TYPE');
    expect(failures).toEqual([[1, 'unknown constraint type']]);
  });

  it('rank order problems are per item too', () => {
    const n = compileNamespace(
      buildNamespace({
        segments,
        flags: [
          { key: 'r', type: 'boolean', rollouts: [{ threshold: 50, value: true, rank: -1 }] },
          { key: 'ok', type: 'boolean', enabled: true },
        ],
      }),
    );
    expect(evaluateBatch(() => n, [req('r'), req('ok')])).toEqual([
      {
        type: 'ERROR_EVALUATION_RESPONSE_TYPE',
        error: { flagKey: 'r', namespaceKey: '', reason: 'UNKNOWN_ERROR_EVALUATION_REASON' },
      },
      expect.objectContaining({ type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE' }),
    ]);
  });

  it('a corrupt flag type answers an error item naming its number to the observer', () => {
    const corrupt = buildNamespace({ flags: [{ key: 'x' }] });
    const n = compileNamespace({
      ...corrupt,
      flags: corrupt.flags.map((f) => ({ ...f, type: 7 as unknown as 'VARIANT_FLAG_TYPE' })),
    });
    const seen: unknown[] = [];
    expect(
      evaluateBatch(
        () => n,
        [req('x')],
        (_i, err) => seen.push(err),
      ),
    ).toEqual([
      {
        type: 'ERROR_EVALUATION_RESPONSE_TYPE',
        error: { flagKey: 'x', namespaceKey: '', reason: 'UNKNOWN_ERROR_EVALUATION_REASON' },
      },
    ]);
    expect(seen).toEqual([new InvalidArgumentError('unknown flag type: 7')]);
  });
});

describe('compiled namespace', () => {
  it('carries key and version and looks flags up by key', () => {
    const n = compileNamespace(buildNamespace({ key: 'team', version: 42, flags: [{ key: 'f' }] }));
    expect(n.key).toBe('team');
    expect(n.version).toBe(42);
    expect(n.flags.get('f')?.type).toBe('VARIANT_FLAG_TYPE');
    expect(n.flags.get('g')).toBeUndefined();
  });

  it('compiles unknown constraint types without throwing', () => {
    expect(() => ns({ key: 'f', rules: [{ segments: ['weird'] }] })).not.toThrow();
  });

  it('hands out frozen results that callers cannot corrupt', () => {
    const n = ns({ key: 'b', type: 'boolean' });
    const r = boolean(n, 'b');
    expect(Object.isFrozen(r)).toBe(true);
    expect(Object.isFrozen(r.segmentKeys)).toBe(true);
  });
});
