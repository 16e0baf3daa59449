import type { Flag } from '../../src/domain/model';
import {
  ALL,
  TIMESTAMP,
  decodeToken,
  expectError,
  flagRequest,
  page,
  uniqueKey,
} from '../support/fixtures';
import type { StorageContractContext, StoreUnderTest } from './storage-contract-context';

/** The storage contract on flags and their variants. */
export function describeFlagContract(c: StorageContractContext): void {
  const { createFlag, createSegment, createVariant, createRule, thresholdRollout } = c;
  let store: StoreUnderTest;
  let ns: string;
  beforeEach(() => {
    ({ store, ns } = c);
  });

  describe('flags', () => {
    it('creates a flag without variants, default variant or metadata', async () => {
      const flag = await createFlag('f1');
      expect(flag).toEqual({
        namespaceKey: ns,
        key: 'f1',
        name: 'f1 name',
        description: 'f1 description',
        enabled: true,
        type: 'VARIANT_FLAG_TYPE',
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: flag.createdAt,
        variants: [],
      });
      expect(await store.getFlag(ns, 'f1')).toEqual(flag);
    });

    it('keeps the boolean type and the metadata', async () => {
      const metadata = { team: 'core', nested: { n: 1, list: [true, null] } };
      const flag = await createFlag('b1', {
        type: 'BOOLEAN_FLAG_TYPE',
        enabled: false,
        metadata,
      });
      expect(flag).toMatchObject({ type: 'BOOLEAN_FLAG_TYPE', enabled: false, metadata });
      expect((await store.getFlag(ns, 'b1')).metadata).toEqual(metadata);
    });

    it('answers a create with the empty metadata it was given but stores none', async () => {
      const flag = await createFlag('m0', { metadata: {} });
      expect(flag.metadata).toEqual({});
      expect((await store.getFlag(ns, 'm0')).metadata).toBeUndefined();
    });

    it('reports an unknown flag', async () => {
      await expectError(store.getFlag(ns, 'nope'), 'not_found', `flag "${ns}/nope" not found`);
    });

    it('refuses a duplicate key in a namespace but not across namespaces', async () => {
      await createFlag('f1');
      await expectError(createFlag('f1'), 'invalid_argument', `flag "${ns}/f1" is not unique`);
      const other = uniqueKey('other');
      await store.createNamespace({ key: other, name: other, description: '' });
      await expect(store.createFlag(flagRequest(other, 'f1'))).resolves.toMatchObject({
        namespaceKey: other,
        key: 'f1',
      });
    });

    it('refuses a flag in an unknown namespace', async () => {
      const missing = uniqueKey('missing');
      await expectError(
        store.createFlag(flagRequest(missing, 'f1')),
        'not_found',
        `namespace "${missing}" not found`,
      );
    });

    it('lets exactly one of two concurrent creates of the same key win', async () => {
      const results = await Promise.allSettled([createFlag('race'), createFlag('race')]);
      const fulfilled = results.filter((r) => r.status === 'fulfilled');
      const rejected = results.filter((r) => r.status === 'rejected');
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect((rejected[0] as PromiseRejectedResult).reason).toMatchObject({
        kind: 'invalid_argument',
        message: `flag "${ns}/race" is not unique`,
      });
    });

    it('replaces name, description and enabled on update and keeps the type', async () => {
      const created = await createFlag('f1', { type: 'BOOLEAN_FLAG_TYPE' });
      const updated = await store.updateFlag({
        namespaceKey: ns,
        key: 'f1',
        name: 'renamed',
        description: '',
        enabled: false,
        defaultVariantId: '',
      });
      expect(updated).toMatchObject({
        name: 'renamed',
        description: '',
        enabled: false,
        type: 'BOOLEAN_FLAG_TYPE',
        createdAt: created.createdAt,
      });
      expect(updated.updatedAt > created.updatedAt).toBe(true);
      expect(await store.getFlag(ns, 'f1')).toEqual(updated);
    });

    it('leaves metadata alone when omitted, clears it with {} and replaces it otherwise', async () => {
      await createFlag('f1', { metadata: { a: 1 } });
      const base = {
        namespaceKey: ns,
        key: 'f1',
        name: 'n',
        description: '',
        enabled: true,
        defaultVariantId: '',
      };
      expect((await store.updateFlag(base)).metadata).toEqual({ a: 1 });
      expect((await store.updateFlag({ ...base, metadata: { b: 'x' } })).metadata).toEqual({
        b: 'x',
      });
      expect((await store.updateFlag({ ...base, metadata: {} })).metadata).toBeUndefined();
      expect((await store.getFlag(ns, 'f1')).metadata).toBeUndefined();
    });

    it('sets and clears the default variant', async () => {
      await createFlag('f1');
      const v1 = await createVariant('f1', 'v1', '{"a":1}');
      const base = {
        namespaceKey: ns,
        key: 'f1',
        name: 'n',
        description: '',
        enabled: true,
      };
      const withDefault = await store.updateFlag({ ...base, defaultVariantId: v1.id });
      expect(withDefault.defaultVariant).toEqual(v1);
      expect((await store.getFlag(ns, 'f1')).defaultVariant).toEqual(v1);
      const cleared = await store.updateFlag({ ...base, defaultVariantId: '' });
      expect(cleared.defaultVariant).toBeUndefined();
    });

    it("refuses a default variant that is not one of the flag's own", async () => {
      await createFlag('f1');
      await createFlag('f2');
      const foreign = await createVariant('f2', 'v');
      const base = { namespaceKey: ns, key: 'f1', name: 'n', description: '', enabled: true };
      await expectError(
        store.updateFlag({ ...base, defaultVariantId: foreign.id }),
        'invalid_argument',
        `variant "${foreign.id}" not found for flag "${ns}/f1"`,
      );
      await expectError(
        store.updateFlag({ ...base, defaultVariantId: 'no-such-id' }),
        'invalid_argument',
        `variant "no-such-id" not found for flag "${ns}/f1"`,
      );
    });

    it('reports an unknown flag on update before looking at the default variant', async () => {
      await expectError(
        store.updateFlag({
          namespaceKey: ns,
          key: 'ghost',
          name: 'n',
          description: '',
          enabled: true,
          defaultVariantId: 'no-such-id',
        }),
        'not_found',
        `flag "${ns}/ghost" not found`,
      );
    });

    it('deletes silently when the flag is absent', async () => {
      await expect(store.deleteFlag({ namespaceKey: ns, key: 'ghost' })).resolves.toBeUndefined();
    });

    it('deletes a flag with its variants, rules, distributions and rollouts', async () => {
      await createFlag('f1');
      await createFlag('b1', { type: 'BOOLEAN_FLAG_TYPE' });
      const v = await createVariant('f1', 'v1');
      await createSegment('s1');
      const rule = await createRule('f1', ['s1'], 1);
      await store.createDistribution({
        namespaceKey: ns,
        flagKey: 'f1',
        ruleId: rule.id,
        variantId: v.id,
        rollout: 100,
      });
      const rollout = await thresholdRollout('b1', 1);
      await store.deleteFlag({ namespaceKey: ns, key: 'f1' });
      await store.deleteFlag({ namespaceKey: ns, key: 'b1' });
      await expectError(store.getFlag(ns, 'f1'), 'not_found', `flag "${ns}/f1" not found`);
      await expectError(
        store.getRule(ns, rule.id),
        'not_found',
        `rule "${ns}/${rule.id}" not found`,
      );
      await expectError(
        store.getRollout(ns, rollout.id),
        'not_found',
        `rollout "${ns}/${rollout.id}" not found`,
      );
      const data = await store.loadNamespace(ns);
      expect(data?.flags).toEqual([]);
      expect(data?.rules).toEqual([]);
      expect(data?.rollouts).toEqual([]);
      // The segment is free again once the rule went with the flag.
      await expect(store.deleteSegment({ namespaceKey: ns, key: 's1' })).resolves.toBeUndefined();
    });

    describe('listing', () => {
      beforeEach(async () => {
        for (const key of ['f1', 'f2', 'f3']) await createFlag(key);
      });
      const keys = (flags: readonly Flag[]) => flags.map((f) => f.key);

      it('returns everything in creation order without a limit', async () => {
        const p = await store.listFlags({ ...ALL, namespaceKey: ns });
        expect(keys(p.items)).toEqual(['f1', 'f2', 'f3']);
        expect(p).toMatchObject({ nextPageToken: '', totalCount: 3 });
      });

      it('includes variants and the default variant in listed flags', async () => {
        const v = await createVariant('f2', 'v1');
        await store.updateFlag({
          namespaceKey: ns,
          key: 'f2',
          name: 'n',
          description: '',
          enabled: true,
          defaultVariantId: v.id,
        });
        const p = await store.listFlags({ ...ALL, namespaceKey: ns });
        expect(p.items[1]?.variants).toEqual([v]);
        expect(p.items[1]?.defaultVariant).toEqual(v);
      });

      it('pages with limit and a token naming the first item of the next page', async () => {
        const first = await store.listFlags({ ...page(2), namespaceKey: ns });
        expect(keys(first.items)).toEqual(['f1', 'f2']);
        expect(first.totalCount).toBe(3);
        expect(decodeToken(first.nextPageToken)).toEqual({ key: 'f3', offset: 2 });
        expect(first.nextPageToken).toBe(Buffer.from('{"key":"f3","offset":2}').toString('base64'));
        const second = await store.listFlags({
          ...page(2, first.nextPageToken),
          namespaceKey: ns,
        });
        expect(keys(second.items)).toEqual(['f3']);
        expect(second).toMatchObject({ nextPageToken: '', totalCount: 3 });
      });

      it('gives no token when the limit covers the rest exactly', async () => {
        const p = await store.listFlags({ ...page(3), namespaceKey: ns });
        expect(keys(p.items)).toEqual(['f1', 'f2', 'f3']);
        expect(p.nextPageToken).toBe('');
      });

      it('honours the deprecated offset', async () => {
        const p = await store.listFlags({ ...page(1, '', 1), namespaceKey: ns });
        expect(keys(p.items)).toEqual(['f2']);
        expect(decodeToken(p.nextPageToken)).toEqual({ key: 'f3', offset: 2 });
      });

      it('prefers the token over the offset', async () => {
        const token = Buffer.from('{"offset":2}').toString('base64');
        const p = await store.listFlags({ ...page(5, token, 1), namespaceKey: ns });
        expect(keys(p.items)).toEqual(['f3']);
      });

      it('reads only the offset of a token, and {} means the start', async () => {
        const lying = Buffer.from('{"key":"zzz","offset":1}').toString('base64');
        expect(
          keys((await store.listFlags({ ...page(5, lying), namespaceKey: ns })).items),
        ).toEqual(['f2', 'f3']);
        const empty = Buffer.from('{}').toString('base64');
        expect(
          keys((await store.listFlags({ ...page(5, empty), namespaceKey: ns })).items),
        ).toEqual(['f1', 'f2', 'f3']);
      });

      it('returns an empty page past the end', async () => {
        const p = await store.listFlags({ ...page(2, '', 10), namespaceKey: ns });
        expect(p).toEqual({ items: [], nextPageToken: '', totalCount: 3 });
      });

      it('refuses a token that is not base64 or not JSON', async () => {
        for (const token of ['not a token!', Buffer.from('nope').toString('base64'), 'e30']) {
          await expectError(
            store.listFlags({ ...page(2, token), namespaceKey: ns }),
            'invalid_argument',
            `pageToken is not valid: "${token}"`,
          );
        }
      });

      it('returns an empty list for an unknown namespace', async () => {
        const p = await store.listFlags({ ...ALL, namespaceKey: uniqueKey('nobody') });
        expect(p).toEqual({ items: [], nextPageToken: '', totalCount: 0 });
      });
    });
  });

  describe('variants', () => {
    beforeEach(async () => {
      await createFlag('f1');
    });

    it('creates variants that the flag lists in creation order', async () => {
      const a = await createVariant('f1', 'a', '{"x":[1,2]}');
      const b = await createVariant('f1', 'b');
      expect(a).toEqual({
        id: expect.any(String),
        namespaceKey: ns,
        flagKey: 'f1',
        key: 'a',
        name: 'a name',
        description: '',
        attachment: '{"x":[1,2]}',
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: a.createdAt,
      });
      expect(b.attachment).toBe('');
      expect(a.id).not.toBe(b.id);
      expect((await store.getFlag(ns, 'f1')).variants).toEqual([a, b]);
    });

    it('refuses a duplicate key within a flag only', async () => {
      await createVariant('f1', 'a');
      await expectError(
        createVariant('f1', 'a'),
        'invalid_argument',
        `variant "a" is not unique for flag "${ns}/f1"`,
      );
      await createFlag('f2');
      await expect(createVariant('f2', 'a')).resolves.toMatchObject({ flagKey: 'f2', key: 'a' });
    });

    it('refuses a variant of an unknown flag', async () => {
      await expectError(createVariant('ghost', 'a'), 'not_found', `flag "${ns}/ghost" not found`);
    });

    it('replaces key, name, description and attachment on update', async () => {
      const a = await createVariant('f1', 'a', '{"x":1}');
      const updated = await store.updateVariant({
        namespaceKey: ns,
        flagKey: 'f1',
        id: a.id,
        key: 'a2',
        name: '',
        description: 'd',
        attachment: '',
      });
      expect(updated).toMatchObject({
        id: a.id,
        key: 'a2',
        name: '',
        description: 'd',
        attachment: '',
      });
      expect(updated.createdAt).toBe(a.createdAt);
      expect(updated.updatedAt > a.updatedAt).toBe(true);
      expect((await store.getFlag(ns, 'f1')).variants).toEqual([updated]);
    });

    it('keeps its own key on update but refuses a sibling key', async () => {
      const a = await createVariant('f1', 'a');
      await createVariant('f1', 'b');
      const req = {
        namespaceKey: ns,
        flagKey: 'f1',
        id: a.id,
        name: 'n',
        description: '',
        attachment: '',
      };
      await expect(store.updateVariant({ ...req, key: 'a' })).resolves.toMatchObject({
        key: 'a',
      });
      await expectError(
        store.updateVariant({ ...req, key: 'b' }),
        'invalid_argument',
        `variant "b" is not unique for flag "${ns}/f1"`,
      );
    });

    it('reports an unknown variant on update by its requested key', async () => {
      await createFlag('f2');
      const other = await createVariant('f2', 'o');
      const req = { namespaceKey: ns, flagKey: 'f1', name: '', description: '', attachment: '' };
      await expectError(
        store.updateVariant({ ...req, id: 'no-such-id', key: 'wanted' }),
        'not_found',
        'variant "wanted" not found',
      );
      await expectError(
        store.updateVariant({ ...req, id: other.id, key: 'o' }),
        'not_found',
        'variant "o" not found',
      );
    });

    it('deletes silently when absent and removes the variant otherwise', async () => {
      const a = await createVariant('f1', 'a');
      await store.deleteVariant({ namespaceKey: ns, flagKey: 'f1', id: 'no-such-id' });
      await store.deleteVariant({ namespaceKey: ns, flagKey: 'wrong', id: a.id });
      expect((await store.getFlag(ns, 'f1')).variants).toHaveLength(1);
      await store.deleteVariant({ namespaceKey: ns, flagKey: 'f1', id: a.id });
      expect((await store.getFlag(ns, 'f1')).variants).toEqual([]);
    });

    it('deletes a variant in use: its distributions go and the default is cleared', async () => {
      const a = await createVariant('f1', 'a');
      const b = await createVariant('f1', 'b');
      await createSegment('s1');
      const rule = await createRule('f1', ['s1'], 1);
      const dist = { namespaceKey: ns, flagKey: 'f1', ruleId: rule.id, rollout: 50 };
      await store.createDistribution({ ...dist, variantId: a.id });
      const kept = await store.createDistribution({ ...dist, variantId: b.id });
      await store.updateFlag({
        namespaceKey: ns,
        key: 'f1',
        name: 'n',
        description: '',
        enabled: true,
        defaultVariantId: a.id,
      });
      await store.deleteVariant({ namespaceKey: ns, flagKey: 'f1', id: a.id });
      const flag = await store.getFlag(ns, 'f1');
      expect(flag.defaultVariant).toBeUndefined();
      expect(flag.variants.map((v) => v.key)).toEqual(['b']);
      expect((await store.getRule(ns, rule.id)).distributions).toEqual([kept]);
    });
  });
}
