import {
  buildClientSnapshot,
  float32ToJsonNumber,
  formatTimestamp,
  parseTolerantSemver,
} from '../../../src/domain/evaluation';
import { buildNamespace, TS } from './fixtures';

const data = buildNamespace({
  segments: [
    { key: 'pro', constraints: [['STRING', 'plan', 'eq', 'pro']] },
    { key: 'ids', match: 'ANY', constraints: [['ENTITY_ID', 'entityId', 'isoneof', '["u1"]']] },
    { key: 'odd', constraints: [['UNKNOWN', 'x', 'eq', 'y']] },
  ],
  flags: [
    {
      key: 'v',
      variants: [['a', '{"k":1}'], 'b'],
      defaultVariant: 'b',
      rules: [
        {
          segments: ['pro', 'ids'],
          operator: 'AND',
          distributions: [
            ['a', 33.33],
            ['b', 66.67],
          ],
        },
        { segments: ['odd'], rank: 2 },
      ],
    },
    {
      key: 'b',
      type: 'boolean',
      enabled: false,
      rollouts: [
        { threshold: 0.1, value: true },
        { segments: ['ids'], operator: 'AND', value: true },
      ],
    },
  ],
});

type Json = Record<string, unknown>;
const snapshot = (version?: string) =>
  JSON.parse(JSON.stringify(buildClientSnapshot('default', data, version))) as {
    namespace: Json;
    flags: Json[];
  };

describe('client snapshot document', () => {
  it('has the protojson shape with enum names, float32 numbers and formatted timestamps', () => {
    const doc = snapshot('1.47.0');
    expect(doc.namespace).toEqual({ key: 'default' });
    expect(doc.flags).toHaveLength(2);
    const [v, b] = doc.flags as [Json, Json];
    expect(Object.keys(v)).toEqual([
      'key',
      'name',
      'description',
      'enabled',
      'type',
      'createdAt',
      'updatedAt',
      'rules',
      'rollouts',
      'defaultVariant',
    ]);
    expect(v).toMatchObject({
      key: 'v',
      enabled: true,
      type: 'VARIANT_FLAG_TYPE',
      createdAt: '2024-05-01T10:00:00.123456Z',
      rollouts: [],
      defaultVariant: { id: 'v/b', key: 'b', attachment: '' },
    });
    expect(v.rules).toEqual([
      {
        id: 'v-rule0',
        segments: [
          {
            key: 'pro',
            name: '',
            description: '',
            matchType: 'ALL_SEGMENT_MATCH_TYPE',
            constraints: [
              {
                id: 'pro-c0',
                type: 'STRING_CONSTRAINT_COMPARISON_TYPE',
                property: 'plan',
                operator: 'eq',
                value: 'pro',
              },
            ],
          },
          {
            key: 'ids',
            name: '',
            description: '',
            matchType: 'ANY_SEGMENT_MATCH_TYPE',
            constraints: [
              {
                id: 'ids-c0',
                type: 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE',
                property: 'entityId',
                operator: 'isoneof',
                value: '["u1"]',
              },
            ],
          },
        ],
        rank: 1,
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        distributions: [
          {
            id: '',
            ruleId: '',
            variantId: 'v/a',
            variantKey: 'a',
            variantAttachment: '{"k":1}',
            rollout: 33.33,
          },
          {
            id: '',
            ruleId: '',
            variantId: 'v/b',
            variantKey: 'b',
            variantAttachment: '',
            rollout: 66.67,
          },
        ],
      },
      {
        id: 'v-rule1',
        segments: [
          expect.objectContaining({
            key: 'odd',
            constraints: [expect.objectContaining({ type: 'UNKNOWN_CONSTRAINT_COMPARISON_TYPE' })],
          }),
        ],
        rank: 2,
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        distributions: [],
      },
    ]);
    expect(b).toMatchObject({ key: 'b', enabled: false, type: 'BOOLEAN_FLAG_TYPE', rules: [] });
    expect(b).not.toHaveProperty('defaultVariant');
    expect(b.rollouts).toEqual([
      { type: 'THRESHOLD_ROLLOUT_TYPE', rank: 1, threshold: { percentage: 0.1, value: true } },
      {
        type: 'SEGMENT_ROLLOUT_TYPE',
        rank: 2,
        // The segment object is shared with the rule, so it keeps the rule's constraint ids.
        segment: {
          value: true,
          segmentOperator: 'AND_SEGMENT_OPERATOR',
          segments: [expect.objectContaining({ key: 'ids' })],
        },
      },
    ]);
  });

  it('lists a multi-segment rule and its distributions once', () => {
    const rules = snapshot('1.47.0').flags[0]?.rules as Json[];
    expect(rules.filter((r) => r.id === 'v-rule0')).toHaveLength(1);
    expect(rules[0]?.distributions).toHaveLength(2);
  });

  it('leaves rollout segment constraint ids empty when the rollout introduces the segment', () => {
    const only = buildNamespace({
      segments: [{ key: 's', constraints: [['STRING', 'p', 'eq', 'x']] }],
      flags: [{ key: 'b', type: 'boolean', rollouts: [{ segments: ['s'], value: true }] }],
    });
    const doc = JSON.parse(JSON.stringify(buildClientSnapshot('default', only, '1.47.0'))) as {
      flags: { rollouts: { segment: { segments: { constraints: { id: string }[] }[] } }[] }[];
    };
    expect(doc.flags[0]?.rollouts[0]?.segment.segments[0]?.constraints[0]?.id).toBe('');
  });

  it.each<[string | undefined, boolean, boolean]>([
    [undefined, false, false],
    ['garbage', false, false],
    ['1.37.1', false, false],
    ['1.38.0-rc.1', false, false],
    ['1.38.0', true, false],
    ['v1.46.9', true, false],
    ['1.47.0-rc1', true, false],
    ['1.47', true, true],
    [' v1.47.0 ', true, true],
    ['1.047.0', true, true],
    ['2.0.0', true, true],
  ])('client version %j: entity-id constraints %p, default variant %p', (version, entityId, dv) => {
    const doc = snapshot(version);
    const flag = doc.flags[0] as Json;
    const rule = (flag.rules as Json[])[0] as { segments: { constraints: { type: string }[] }[] };
    expect(rule.segments[1]?.constraints[0]?.type).toBe(
      entityId ? 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE' : 'UNKNOWN_CONSTRAINT_COMPARISON_TYPE',
    );
    expect('defaultVariant' in flag).toBe(dv);
  });

  it('a missing namespace gives the requested key and no flags', () => {
    expect(buildClientSnapshot('nowhere', undefined, '1.47.0')).toEqual({
      namespace: { key: 'nowhere' },
      flags: [],
    });
  });
});

describe('protojson helpers', () => {
  it.each<[number, number | string]>([
    [50, 50],
    [33.33, 33.33],
    [0.1, 0.1],
    [66.67, 66.67],
    [Math.fround(33.33), 33.33],
    [100, 100],
    [0, 0],
    [12.345678, 12.345678],
    [1 / 3, 0.33333334],
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
  ])('float32 %d prints as %p', (x, expected) => {
    expect(float32ToJsonNumber(x)).toBe(expected);
  });

  it.each([
    [TS, '2024-05-01T10:00:00.123456Z'],
    ['2024-05-01T10:00:00.000000Z', '2024-05-01T10:00:00Z'],
    ['2024-05-01T10:00:00.120000Z', '2024-05-01T10:00:00.120Z'],
    ['2024-05-01T10:00:00.123456789Z', '2024-05-01T10:00:00.123456789Z'],
    ['2024-05-01T10:00:00.1234567Z', '2024-05-01T10:00:00.123456700Z'],
    ['2024-05-01T12:00:00+02:00', '2024-05-01T10:00:00Z'],
    ['1969-12-31T23:59:59.5Z', '1969-12-31T23:59:59.500Z'],
  ])('timestamp %s formats as %s', (input, expected) => {
    expect(formatTimestamp(input)).toBe(expected);
  });

  it('parses versions tolerantly', () => {
    expect(parseTolerantSemver('v1.47.0')).toEqual({ major: 1, minor: 47, patch: 0, pre: false });
    expect(parseTolerantSemver('1')).toEqual({ major: 1, minor: 0, patch: 0, pre: false });
    expect(parseTolerantSemver('1.2-rc')).toBeUndefined();
    expect(parseTolerantSemver('x.y.z')).toBeUndefined();
  });
});
