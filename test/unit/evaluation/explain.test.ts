import fc from 'fast-check';
import {
  compileNamespace,
  evaluateBoolean,
  evaluateVariant,
  explainFlag,
} from '../../../src/domain/evaluation';
import { buildNamespace } from './fixtures';

const ns = compileNamespace(
  buildNamespace({
    segments: [
      {
        key: 'pro',
        constraints: [
          ['STRING', 'plan', 'eq', 'pro'],
          ['NUMBER', 'seats', 'gte', '5'],
        ],
      },
      { key: 'eu', match: 'ANY', constraints: [['STRING', 'region', 'isoneof', '["fr","de"]']] },
      { key: 'staff', constraints: [['ENTITY_ID', 'entityId', 'prefix', 'staff-']] },
    ],
    flags: [
      {
        key: 'pricing',
        variants: ['annual', 'monthly', 'trial'],
        defaultVariant: 'trial',
        rules: [
          {
            segments: ['pro', 'eu'],
            operator: 'AND',
            distributions: [
              ['annual', 30],
              ['monthly', 30],
            ],
          },
          { segments: ['eu'], distributions: [['monthly', 100]] },
          { segments: ['pro'] },
        ],
      },
      {
        key: 'banner',
        type: 'boolean',
        enabled: true,
        rollouts: [
          { segments: ['pro', 'eu'], operator: 'OR', value: false },
          { threshold: 40, value: true },
        ],
      },
      { key: 'off', enabled: false, variants: ['a'], rules: [{ segments: ['pro'] }] },
    ],
  }),
);

const request = (flagKey: string, entityId: string, context: Record<string, string>) => ({
  flagKey,
  entityId,
  context,
});

describe('explainFlag', () => {
  it('returns exactly what the evaluator returns, for any entity and context', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.record({
          plan: fc.constantFrom('pro', 'free', ''),
          seats: fc.constantFrom('1', '5', '12', 'many'),
          region: fc.constantFrom('fr', 'us', 'de'),
        }),
        (entityId, context) => {
          for (const flagKey of ['pricing', 'off']) {
            const explained = explainFlag(ns, request(flagKey, entityId, context));
            expect('variant' in explained && explained.variant).toEqual(
              evaluateVariant(ns, request(flagKey, entityId, context)),
            );
          }
          const explained = explainFlag(ns, request('banner', entityId, context));
          expect('boolean' in explained && explained.boolean).toEqual(
            evaluateBoolean(ns, request('banner', entityId, context)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('marks the deciding step matched, those before it not matched, and those after not reached', () => {
    const { explanation } = explainFlag(
      ns,
      request('pricing', 'user-1', { region: 'fr', plan: 'free' }),
    );
    expect(explanation.steps.map((s) => s.outcome)).toEqual([
      'not-matched',
      'matched',
      'not-reached',
    ]);
    const [first, second] = explanation.steps;
    expect(first?.segments.map((s) => [s.key, s.matched])).toEqual([
      ['pro', false],
      ['eu', true],
    ]);
    expect(second?.distributions).toEqual([
      { variantKey: 'monthly', rollout: 100, from: 0, to: 1000, selected: true },
    ]);
    expect(explanation.summary).toMatch(
      /^Rule 2 matched, and the entity's bucket \d+ \(of 1000\) falls in monthly's 100% share/,
    );
  });

  it('reports each constraint with the context value it read, or its absence', () => {
    const { explanation } = explainFlag(ns, request('pricing', 'user-1', { plan: 'pro' }));
    expect(explanation.steps[0]?.segments[0]?.constraints).toMatchObject([
      { property: 'plan', operator: 'eq', value: 'pro', actual: 'pro', passed: true },
      { property: 'seats', operator: 'gte', value: '5', passed: false },
    ]);
    expect(explanation.steps[0]?.segments[0]?.constraints[1]).not.toHaveProperty('actual');
  });

  it('shows the bucket that fell beyond the distributions, and the default variant returned', () => {
    const context = { plan: 'pro', seats: '9', region: 'de' };
    for (let i = 0; i < 200; i++) {
      const explained = explainFlag(ns, request('pricing', `user-${i}`, context));
      const step = explained.explanation.steps[0];
      if (step?.bucket === undefined || step.bucket < 600) continue;
      expect(step.distributions?.some((d) => d.selected)).toBe(false);
      expect('variant' in explained && explained.variant).toMatchObject({
        match: false,
        variantKey: 'trial',
      });
      expect(explained.explanation.summary).toContain('beyond its distributions, which cover 60%');
      return;
    }
    throw new Error('no entity fell beyond the distributions');
  });

  it('explains a threshold rollout by the bucket, and a disabled flag by its state', () => {
    const banner = explainFlag(ns, request('banner', 'user-7', {}));
    const threshold = banner.explanation.steps[1]?.threshold;
    expect(threshold?.percentage).toBe(40);
    expect(banner.explanation.steps[1]?.outcome).toBe(
      threshold && threshold.bucket < 40 ? 'matched' : 'not-matched',
    );
    const off = explainFlag(ns, request('off', 'user-7', { plan: 'pro', seats: '9' }));
    expect(off.explanation.steps.map((s) => s.outcome)).toEqual(['not-reached']);
    expect(off.explanation.summary).toContain('disabled');
  });

  it('fails like the evaluator for an unknown flag', () => {
    expect(() => explainFlag(ns, request('nope', 'u', {}))).toThrow(
      'flag "default/nope" not found',
    );
  });
});
