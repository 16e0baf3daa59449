import type { Rule } from '../../src/domain/model';
import { ALL, TIMESTAMP, decodeToken, expectError, page } from '../support/fixtures';
import type { StorageContractContext, StoreUnderTest } from './storage-contract-context';

/** The storage contract on rules and their distributions. */
export function describeRuleContract(c: StorageContractContext): void {
  const { createFlag, createSegment, createVariant, createRule } = c;
  let store: StoreUnderTest;
  let ns: string;
  beforeEach(() => {
    ({ store, ns } = c);
  });

  describe('rules', () => {
    beforeEach(async () => {
      await createFlag('f1');
      await createSegment('s1');
      await createSegment('s2');
    });
    const ids = (rules: readonly Rule[]) => rules.map((r) => r.id);

    it('creates a rule with its segments, operator and rank', async () => {
      const rule = await createRule('f1', ['s2', 's1'], 3);
      expect(rule).toEqual({
        id: expect.any(String),
        namespaceKey: ns,
        flagKey: 'f1',
        segmentKeys: ['s2', 's1'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        rank: 3,
        distributions: [],
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: rule.createdAt,
      });
      expect(await store.getRule(ns, rule.id)).toEqual(rule);
    });

    it('reports an unknown flag or segment with the raw segmentKey', async () => {
      await expectError(
        createRule('ghost', ['s1'], 1, { segmentKey: 's1' }),
        'not_found',
        `flag "${ns}/ghost" or segment "${ns}/s1" not found`,
      );
      await expectError(
        createRule('f1', ['nope'], 1, { segmentKey: 'nope' }),
        'not_found',
        `flag "${ns}/f1" or segment "${ns}/nope" not found`,
      );
      await expectError(
        createRule('f1', ['s1', 'nope'], 1, { segmentKey: '' }),
        'not_found',
        `flag "${ns}/f1" or segment "${ns}/" not found`,
      );
    });

    it('accepts colliding ranks', async () => {
      await createRule('f1', ['s1'], 1);
      await expect(createRule('f1', ['s2'], 1)).resolves.toMatchObject({ rank: 1 });
    });

    it('finds rules by namespace and id only', async () => {
      const rule = await createRule('f1', ['s1'], 1);
      await expectError(
        store.getRule(ns, 'no-such-id'),
        'not_found',
        `rule "${ns}/no-such-id" not found`,
      );
      await expectError(
        store.getRule('default', rule.id),
        'not_found',
        `rule "default/${rule.id}" not found`,
      );
    });

    it('lists rules by rank and pages them with ids in the token', async () => {
      const r3 = await createRule('f1', ['s1'], 3);
      const r1 = await createRule('f1', ['s1'], 1);
      const r2 = await createRule('f1', ['s2'], 2);
      const all = await store.listRules({ ...ALL, namespaceKey: ns, flagKey: 'f1' });
      expect(ids(all.items)).toEqual([r1.id, r2.id, r3.id]);
      expect(all).toMatchObject({ nextPageToken: '', totalCount: 3 });
      const first = await store.listRules({ ...page(2), namespaceKey: ns, flagKey: 'f1' });
      expect(ids(first.items)).toEqual([r1.id, r2.id]);
      expect(decodeToken(first.nextPageToken)).toEqual({ key: r3.id, offset: 2 });
      const second = await store.listRules({
        ...page(2, first.nextPageToken),
        namespaceKey: ns,
        flagKey: 'f1',
      });
      expect(ids(second.items)).toEqual([r3.id]);
      expect(second.nextPageToken).toBe('');
      const other = await store.listRules({ ...ALL, namespaceKey: ns, flagKey: 'ghost' });
      expect(other).toEqual({ items: [], nextPageToken: '', totalCount: 0 });
    });

    it('replaces segments and operator on update but not the rank', async () => {
      const rule = await createRule('f1', ['s1'], 2);
      const u = await store.updateRule({
        namespaceKey: ns,
        flagKey: 'f1',
        id: rule.id,
        segmentKeys: ['s1', 's2'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(u).toMatchObject({
        segmentKeys: ['s1', 's2'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        rank: 2,
      });
      expect(u.updatedAt > rule.updatedAt).toBe(true);
      expect(await store.getRule(ns, rule.id)).toEqual(u);
    });

    it('reports an unknown rule or segment on update', async () => {
      const rule = await createRule('f1', ['s1'], 1);
      const req = {
        namespaceKey: ns,
        flagKey: 'f1',
        segmentKeys: ['s1'],
        segmentOperator: 'OR_SEGMENT_OPERATOR' as const,
      };
      await expectError(
        store.updateRule({ ...req, id: 'no-such-id' }),
        'not_found',
        `rule "${ns}/no-such-id" not found`,
      );
      await expectError(
        store.updateRule({ ...req, id: rule.id, segmentKeys: ['nope'] }),
        'not_found',
        `segment "${ns}/nope" not found`,
      );
      expect((await store.getRule(ns, rule.id)).segmentKeys).toEqual(['s1']);
    });

    it('renumbers the remaining rules 1..n after a delete', async () => {
      const a = await createRule('f1', ['s1'], 1);
      const b = await createRule('f1', ['s1'], 2);
      const c = await createRule('f1', ['s1'], 5);
      await store.deleteRule({ namespaceKey: ns, flagKey: 'f1', id: b.id });
      const rest = (await store.listRules({ ...ALL, namespaceKey: ns, flagKey: 'f1' })).items;
      expect(rest.map((r) => [r.id, r.rank])).toEqual([
        [a.id, 1],
        [c.id, 2],
      ]);
      await expectError(store.getRule(ns, b.id), 'not_found', `rule "${ns}/${b.id}" not found`);
      await expect(
        store.deleteRule({ namespaceKey: ns, flagKey: 'f1', id: 'no-such-id' }),
      ).resolves.toBeUndefined();
    });

    it('orders rules by the listed ids and ignores ids of other flags', async () => {
      await createFlag('f2');
      const a = await createRule('f1', ['s1'], 1);
      const b = await createRule('f1', ['s1'], 2);
      const c = await createRule('f1', ['s1'], 3);
      const foreign = await createRule('f2', ['s1'], 7);
      await store.orderRules({
        namespaceKey: ns,
        flagKey: 'f1',
        ruleIds: [c.id, foreign.id, a.id, b.id],
      });
      const rules = (await store.listRules({ ...ALL, namespaceKey: ns, flagKey: 'f1' })).items;
      expect(rules.map((r) => [r.id, r.rank])).toEqual([
        [c.id, 1],
        [a.id, 3],
        [b.id, 4],
      ]);
      expect(rules[0]!.updatedAt > c.updatedAt).toBe(true);
      expect((await store.getRule(ns, foreign.id)).rank).toBe(7);
    });
  });

  describe('distributions', () => {
    let ruleId: string;
    let variantId: string;
    beforeEach(async () => {
      await createFlag('f1');
      await createSegment('s1');
      variantId = (await createVariant('f1', 'v1')).id;
      ruleId = (await createRule('f1', ['s1'], 1)).id;
    });
    const dist = (extra = {}) => ({
      namespaceKey: ns,
      flagKey: 'f1',
      ruleId,
      variantId,
      rollout: 33.5,
      ...extra,
    });

    it('creates distributions the rule lists in creation order', async () => {
      const d1 = await store.createDistribution(dist());
      const v2 = await createVariant('f1', 'v2');
      const d2 = await store.createDistribution(dist({ variantId: v2.id, rollout: 66.5 }));
      expect(d1).toEqual({
        id: expect.any(String),
        ruleId,
        variantId,
        rollout: 33.5,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: d1.createdAt,
      });
      expect((await store.getRule(ns, ruleId)).distributions).toEqual([d1, d2]);
    });

    it('does not check that the rollouts of a rule add up', async () => {
      await store.createDistribution(dist({ rollout: 80 }));
      await expect(store.createDistribution(dist({ rollout: 80 }))).resolves.toMatchObject({
        rollout: 80,
      });
    });

    it('reports a missing rule, variant or flag in one message', async () => {
      const msg = (v: string, r: string, f: string) =>
        `variant "${v}", rule "${r}", flag "${f}" in namespace "${ns}" not found`;
      await expectError(
        store.createDistribution(dist({ variantId: 'x' })),
        'not_found',
        msg('x', ruleId, 'f1'),
      );
      await expectError(
        store.createDistribution(dist({ ruleId: 'y' })),
        'not_found',
        msg(variantId, 'y', 'f1'),
      );
      await expectError(
        store.createDistribution(dist({ flagKey: 'zz' })),
        'not_found',
        msg(variantId, ruleId, 'zz'),
      );
    });

    it("accepts a variant of another flag of the namespace (Flipt's join)", async () => {
      await createFlag('f2');
      const foreign = await createVariant('f2', 'other');
      await expect(
        store.createDistribution(dist({ variantId: foreign.id })),
      ).resolves.toMatchObject({
        variantId: foreign.id,
      });
    });

    it('updates rollout and variant, checking references first', async () => {
      const d = await store.createDistribution(dist());
      const v2 = await createVariant('f1', 'v2');
      const u = await store.updateDistribution({
        ...dist({ variantId: v2.id, rollout: 10 }),
        id: d.id,
      });
      expect(u).toMatchObject({
        id: d.id,
        ruleId,
        variantId: v2.id,
        rollout: 10,
        createdAt: d.createdAt,
      });
      expect(u.updatedAt > d.updatedAt).toBe(true);
      await expectError(
        store.updateDistribution({ ...dist(), id: 'no-such-id' }),
        'not_found',
        'distribution "no-such-id" not found',
      );
      await expectError(
        store.updateDistribution({ ...dist({ variantId: 'x' }), id: 'no-such-id' }),
        'not_found',
        `variant "x", rule "${ruleId}", flag "f1" in namespace "${ns}" not found`,
      );
    });

    it('deletes only on a matching id, rule and variant', async () => {
      const d = await store.createDistribution(dist());
      const base = { namespaceKey: ns, flagKey: 'f1', ruleId, id: d.id };
      await store.deleteDistribution({ ...base, variantId: 'other' });
      expect((await store.getRule(ns, ruleId)).distributions).toHaveLength(1);
      await store.deleteDistribution({ ...base, variantId });
      expect((await store.getRule(ns, ruleId)).distributions).toEqual([]);
    });

    it('goes with its rule', async () => {
      await store.createDistribution(dist());
      await store.deleteRule({ namespaceKey: ns, flagKey: 'f1', id: ruleId });
      expect((await store.loadNamespace(ns))?.rules).toEqual([]);
    });
  });
}
