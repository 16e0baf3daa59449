import { planFlagCopy, segmentKeysUsed } from '../../../src/domain/services/config/copy-flag';
import type { Flag, Rollout, Rule, Segment } from '../../../src/domain/model';

const T0 = '2024-01-01T00:00:00.000001Z';
const T1 = '2024-01-01T00:00:00.000002Z';
const NOW = '2025-06-01T12:00:00.000000Z';

const variant = (id: string, key: string, createdAt: string) => ({
  id,
  namespaceKey: 'src',
  flagKey: 'f',
  key,
  name: key,
  description: '',
  attachment: '',
  createdAt,
  updatedAt: createdAt,
});

const flag: Flag = {
  namespaceKey: 'src',
  key: 'f',
  name: 'F',
  description: 'd',
  enabled: true,
  type: 'VARIANT_FLAG_TYPE',
  variants: [variant('v1', 'a', T0), variant('v2', 'b', T1)],
  defaultVariant: variant('v2', 'b', T1),
  createdAt: T0,
  updatedAt: T0,
};

const rule: Rule = {
  id: 'r1',
  namespaceKey: 'src',
  flagKey: 'f',
  segmentKeys: ['s1', 's2'],
  segmentOperator: 'AND_SEGMENT_OPERATOR',
  rank: 1,
  distributions: [
    { id: 'd1', ruleId: 'r1', variantId: 'v1', rollout: 40, createdAt: T0, updatedAt: T0 },
    { id: 'd2', ruleId: 'r1', variantId: 'v2', rollout: 60, createdAt: T1, updatedAt: T1 },
  ],
  createdAt: T0,
  updatedAt: T0,
};

const segment = (key: string): Segment => ({
  namespaceKey: 'src',
  key,
  name: key,
  description: '',
  matchType: 'ALL_MATCH_TYPE',
  constraints: [
    {
      id: `${key}-c`,
      namespaceKey: 'src',
      segmentKey: key,
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'pro',
      description: '',
      createdAt: T0,
      updatedAt: T0,
    },
  ],
  createdAt: T0,
  updatedAt: T0,
});

let n = 0;
const ids = { uuid: () => `new-${++n}` };

describe('planFlagCopy', () => {
  beforeEach(() => {
    n = 0;
  });

  it('gives everything fresh ids and rewires distributions and the default variant to them', () => {
    const plan = planFlagCopy(
      { flag, rules: [rule], rollouts: [], segments: [segment('s1'), segment('s2')] },
      { namespaceKey: 'dst', key: 'g', existingSegmentKeys: new Set(['s2']) },
      ids,
      NOW,
    );
    expect(plan.flag).toMatchObject({ namespaceKey: 'dst', key: 'g', name: 'F', createdAt: NOW });
    expect(plan.variants.map((v) => [v.id, v.key, v.flagKey, v.namespaceKey])).toEqual([
      ['new-1', 'a', 'g', 'dst'],
      ['new-2', 'b', 'g', 'dst'],
    ]);
    expect(plan.defaultVariantId).toBe('new-2');
    expect(plan.rules).toEqual([
      expect.objectContaining({ namespaceKey: 'dst', flagKey: 'g', segmentKeys: ['s1', 's2'] }),
    ]);
    const ruleId = plan.rules[0]?.id;
    expect(plan.distributions.map((d) => [d.ruleId === ruleId, d.variantId, d.rollout])).toEqual([
      [true, 'new-1', 40],
      [true, 'new-2', 60],
    ]);
    // s2 exists in the target and is reused; s1 is created with its constraints.
    expect(plan.segments.map((s) => s.segment.key)).toEqual(['s1']);
    expect(plan.segments[0]?.constraints[0]).toMatchObject({
      namespaceKey: 'dst',
      segmentKey: 's1',
    });
    expect(plan.segments[0]?.constraints[0]?.id).not.toBe('s1-c');
  });

  it('keeps the creation times that order variants, constraints and distributions', () => {
    const plan = planFlagCopy(
      { flag, rules: [rule], rollouts: [], segments: [segment('s1')] },
      { namespaceKey: 'dst', key: 'f', existingSegmentKeys: new Set() },
      ids,
      NOW,
    );
    expect(plan.variants.map((v) => v.createdAt)).toEqual([T0, T1]);
    expect(plan.distributions.map((d) => d.createdAt)).toEqual([T0, T1]);
    expect(plan.segments[0]?.constraints[0]?.createdAt).toBe(T0);
  });

  it('lists the segments a flag uses once each, rules first', () => {
    const rollout: Rollout = {
      id: 'o1',
      namespaceKey: 'src',
      flagKey: 'f',
      type: 'SEGMENT_ROLLOUT_TYPE',
      rank: 1,
      description: '',
      segment: { segmentKeys: ['s3', 's1'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true },
      createdAt: T0,
      updatedAt: T0,
    };
    expect(segmentKeysUsed([rule], [rollout])).toEqual(['s1', 's2', 's3']);
  });
});
