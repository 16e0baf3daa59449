import type { Flag, Rollout, Rule, Variant } from '../../../src/domain/model';
import {
  float32ToJsonNumber,
  formatTimestamp,
  presentFlag,
  presentFlagList,
  presentRollout,
  presentRolloutList,
  presentRule,
  segmentKeyFields,
} from '../../../src/adapters/http';

const TS = '2024-05-01T10:00:00.123456Z';

const variant: Variant = {
  id: 'v1',
  namespaceKey: 'default',
  flagKey: 'f',
  key: 'on',
  name: 'On',
  description: '',
  attachment: '{"a":1}',
  createdAt: TS,
  updatedAt: TS,
};

const flag: Flag = {
  namespaceKey: 'default',
  key: 'f',
  name: 'F',
  description: '',
  enabled: true,
  type: 'VARIANT_FLAG_TYPE',
  createdAt: '2024-05-01T10:00:00.000000Z',
  updatedAt: '2024-05-01T10:00:00.120000Z',
  variants: [variant],
};

describe('formatTimestamp', () => {
  it.each([
    ['2024-05-01T10:00:00.123456Z', '2024-05-01T10:00:00.123456Z'],
    ['2024-05-01T10:00:00.123000Z', '2024-05-01T10:00:00.123Z'],
    ['2024-05-01T10:00:00.100000Z', '2024-05-01T10:00:00.100Z'],
    ['2024-05-01T10:00:00.000000Z', '2024-05-01T10:00:00Z'],
    ['2024-05-01T10:00:00.000001Z', '2024-05-01T10:00:00.000001Z'],
    ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00Z'],
    ['2024-05-01T10:00:00.123456789Z', '2024-05-01T10:00:00.123456789Z'],
    ['2024-05-01T12:00:00.5+02:00', '2024-05-01T10:00:00.500Z'],
  ])('prints %s as %s', (input, expected) => {
    expect(formatTimestamp(input)).toBe(expected);
  });
});

describe('float32ToJsonNumber', () => {
  it.each([
    [50, 50],
    [33.33, 33.33],
    [Math.fround(33.33), 33.33],
    [0.1, 0.1],
    [Math.fround(0.1), 0.1],
    [0, 0],
    [100, 100],
    [12.345678, 12.345678],
    [1e-7, 1e-7],
  ])('prints %p as the shortest float32 decimal %p', (input, expected) => {
    expect(float32ToJsonNumber(input)).toBe(expected);
  });

  it('prints NaN and infinities as strings', () => {
    expect(float32ToJsonNumber(NaN)).toBe('NaN');
    expect(float32ToJsonNumber(Infinity)).toBe('Infinity');
    expect(float32ToJsonNumber(-Infinity)).toBe('-Infinity');
  });
});

describe('presentFlag', () => {
  it('emits fields in proto order, with defaults, without unset messages', () => {
    const json = presentFlag(flag);
    expect(Object.keys(json)).toEqual([
      'key',
      'name',
      'description',
      'enabled',
      'createdAt',
      'updatedAt',
      'variants',
      'namespaceKey',
      'type',
    ]);
    expect(json.createdAt).toBe('2024-05-01T10:00:00Z');
    expect(json.updatedAt).toBe('2024-05-01T10:00:00.120Z');
    expect(JSON.stringify((json.variants as unknown[])[0])).toBe(
      '{"id":"v1","flagKey":"f","key":"on","name":"On","description":"",' +
        '"createdAt":"2024-05-01T10:00:00.123456Z","updatedAt":"2024-05-01T10:00:00.123456Z",' +
        '"attachment":"{\\"a\\":1}","namespaceKey":"default"}',
    );
  });

  it('adds defaultVariant then metadata when present, metadata keys sorted', () => {
    const json = presentFlag({
      ...flag,
      defaultVariant: variant,
      metadata: { z: 1, a: { y: 2, b: [1] } },
    });
    expect(Object.keys(json).slice(-2)).toEqual(['defaultVariant', 'metadata']);
    expect(JSON.stringify(json.metadata)).toBe('{"a":{"b":[1],"y":2},"z":1}');
  });

  it('omits a NULL metadata on get but prints {} in lists', () => {
    expect(presentFlag(flag)).not.toHaveProperty('metadata');
    const list = presentFlagList({ items: [flag], nextPageToken: '', totalCount: 1 });
    expect((list.flags as Array<Record<string, unknown>>)[0]?.metadata).toEqual({});
    expect(Object.keys(list)).toEqual(['flags', 'nextPageToken', 'totalCount']);
  });
});

describe('segment key quirk', () => {
  it('puts one segment in segmentKey and several in segmentKeys', () => {
    expect(segmentKeyFields(['a'])).toEqual({ segmentKey: 'a', segmentKeys: [] });
    expect(segmentKeyFields(['a', 'b'])).toEqual({ segmentKey: '', segmentKeys: ['a', 'b'] });
    expect(segmentKeyFields([])).toEqual({ segmentKey: '', segmentKeys: [] });
  });

  const rule: Rule = {
    id: 'r1',
    namespaceKey: 'default',
    flagKey: 'f',
    segmentKeys: ['s1'],
    segmentOperator: 'OR_SEGMENT_OPERATOR',
    rank: 1,
    distributions: [
      {
        id: 'd1',
        ruleId: 'r1',
        variantId: 'v1',
        rollout: Math.fround(33.33),
        createdAt: TS,
        updatedAt: TS,
      },
    ],
    createdAt: TS,
    updatedAt: TS,
  };

  it('presents a rule in proto order with float32 rollouts', () => {
    const json = presentRule(rule);
    expect(Object.keys(json)).toEqual([
      'id',
      'flagKey',
      'segmentKey',
      'distributions',
      'rank',
      'createdAt',
      'updatedAt',
      'namespaceKey',
      'segmentKeys',
      'segmentOperator',
    ]);
    expect(json.segmentKey).toBe('s1');
    expect(JSON.stringify(json.distributions)).toContain('"rollout":33.33,');
  });

  it('presents segment and threshold rollouts with only the populated rule', () => {
    const base = {
      id: 'x',
      namespaceKey: 'default',
      flagKey: 'f',
      rank: 1,
      description: '',
      createdAt: TS,
      updatedAt: TS,
    };
    const seg: Rollout = {
      ...base,
      type: 'SEGMENT_ROLLOUT_TYPE',
      segment: { segmentKeys: ['a', 'b'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: true },
    };
    const thr: Rollout = {
      ...base,
      type: 'THRESHOLD_ROLLOUT_TYPE',
      threshold: { percentage: Math.fround(12.5), value: false },
    };
    expect(JSON.stringify(presentRollout(seg).segment)).toBe(
      '{"segmentKey":"","value":true,"segmentKeys":["a","b"],"segmentOperator":"AND_SEGMENT_OPERATOR"}',
    );
    expect(presentRollout(seg)).not.toHaveProperty('threshold');
    expect(presentRollout(thr).threshold).toEqual({ percentage: 12.5, value: false });
    expect(presentRollout(thr)).not.toHaveProperty('segment');
    expect(
      Object.keys(presentRolloutList({ items: [thr], nextPageToken: 't', totalCount: 3 })),
    ).toEqual(['rules', 'nextPageToken', 'totalCount']);
  });
});
