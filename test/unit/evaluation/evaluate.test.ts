import { compileNamespace, evaluateBatch } from '../../../src/domain/evaluation';
import { InvalidArgumentError } from '../../../src/domain/errors';
import type { EvaluationRequest } from '../../../src/domain/model';
import { buildNamespace } from './fixtures';
import { segments, ns, thresholdEntity, boolean } from './evaluation-setup';

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
