import {
  ALL,
  TIMESTAMP,
  decodeToken,
  expectError,
  page,
  segmentRequest,
  uniqueKey,
} from '../support/fixtures';
import type { StorageContractContext, StoreUnderTest } from './storage-contract-context';

/** The storage contract on segments and their constraints. */
export function describeSegmentContract(c: StorageContractContext): void {
  const { createFlag, createSegment, createRule, segmentRollout } = c;
  let store: StoreUnderTest;
  let ns: string;
  beforeEach(() => {
    ({ store, ns } = c);
  });

  describe('segments', () => {
    it('creates a segment without constraints', async () => {
      const s = await createSegment('s1', { matchType: 'ANY_MATCH_TYPE', description: 'd' });
      expect(s).toEqual({
        namespaceKey: ns,
        key: 's1',
        name: 's1 name',
        description: 'd',
        matchType: 'ANY_MATCH_TYPE',
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: s.createdAt,
        constraints: [],
      });
      expect(await store.getSegment(ns, 's1')).toEqual(s);
    });

    it('refuses duplicates, unknown namespaces and reports unknown segments', async () => {
      await createSegment('s1');
      await expectError(
        createSegment('s1'),
        'invalid_argument',
        `segment "${ns}/s1" is not unique`,
      );
      const missing = uniqueKey('missing');
      await expectError(
        store.createSegment(segmentRequest(missing, 's1')),
        'not_found',
        `namespace "${missing}" not found`,
      );
      await expectError(
        store.getSegment(ns, 'nope'),
        'not_found',
        `segment "${ns}/nope" not found`,
      );
      await expectError(
        store.updateSegment(segmentRequest(ns, 'nope')),
        'not_found',
        `segment "${ns}/nope" not found`,
      );
    });

    it('replaces name, description and match type on update', async () => {
      const s = await createSegment('s1');
      const u = await store.updateSegment(
        segmentRequest(ns, 's1', { name: 'N', description: 'D', matchType: 'ANY_MATCH_TYPE' }),
      );
      expect(u).toMatchObject({ name: 'N', description: 'D', matchType: 'ANY_MATCH_TYPE' });
      expect(u.createdAt).toBe(s.createdAt);
      expect(u.updatedAt > s.updatedAt).toBe(true);
    });

    it('lists and pages segments in creation order', async () => {
      for (const key of ['s1', 's2', 's3']) await createSegment(key);
      const all = await store.listSegments({ ...ALL, namespaceKey: ns });
      expect(all.items.map((s) => s.key)).toEqual(['s1', 's2', 's3']);
      expect(all.totalCount).toBe(3);
      const p = await store.listSegments({ ...page(1, '', 1), namespaceKey: ns });
      expect(p.items.map((s) => s.key)).toEqual(['s2']);
      expect(decodeToken(p.nextPageToken)).toEqual({ key: 's3', offset: 2 });
      await expectError(
        store.listSegments({ ...page(1, '%%%'), namespaceKey: ns }),
        'invalid_argument',
        'pageToken is not valid: "%%%"',
      );
    });

    it('deletes silently when absent and takes the constraints along', async () => {
      await store.deleteSegment({ namespaceKey: ns, key: 'ghost' });
      await createSegment('s1');
      await store.createConstraint({
        namespaceKey: ns,
        segmentKey: 's1',
        type: 'STRING_COMPARISON_TYPE',
        property: 'p',
        operator: 'eq',
        value: 'v',
        description: '',
      });
      await store.deleteSegment({ namespaceKey: ns, key: 's1' });
      await expectError(store.getSegment(ns, 's1'), 'not_found', `segment "${ns}/s1" not found`);
      await createSegment('s1');
      expect((await store.getSegment(ns, 's1')).constraints).toEqual([]);
    });

    it('refuses to delete a segment used by a rule or a rollout', async () => {
      await createFlag('f1');
      await createFlag('b1', { type: 'BOOLEAN_FLAG_TYPE' });
      await createSegment('s1');
      await createSegment('s2');
      const rule = await createRule('f1', ['s2', 's1'], 1);
      const rollout = await segmentRollout('b1', 1, ['s2']);
      const inUse = (key: string) => `segment "${ns}/${key}" is in use`;
      await expectError(
        store.deleteSegment({ namespaceKey: ns, key: 's1' }),
        'invalid_argument',
        inUse('s1'),
      );
      await expectError(
        store.deleteSegment({ namespaceKey: ns, key: 's2' }),
        'invalid_argument',
        inUse('s2'),
      );
      await store.deleteRule({ namespaceKey: ns, flagKey: 'f1', id: rule.id });
      await store.deleteSegment({ namespaceKey: ns, key: 's1' });
      await expectError(
        store.deleteSegment({ namespaceKey: ns, key: 's2' }),
        'invalid_argument',
        inUse('s2'),
      );
      await store.deleteRollout({ namespaceKey: ns, flagKey: 'b1', id: rollout.id });
      await expect(store.deleteSegment({ namespaceKey: ns, key: 's2' })).resolves.toBeUndefined();
    });
  });

  describe('constraints', () => {
    const constraint = (segmentKey: string, property: string, extra = {}) => ({
      namespaceKey: ns,
      segmentKey,
      type: 'STRING_COMPARISON_TYPE' as const,
      property,
      operator: 'eq',
      value: 'v',
      description: '',
      ...extra,
    });

    beforeEach(async () => {
      await createSegment('s1');
    });

    it('creates constraints the segment lists in creation order', async () => {
      const a = await store.createConstraint(constraint('s1', 'a'));
      const b = await store.createConstraint(
        constraint('s1', 'b', {
          type: 'NUMBER_COMPARISON_TYPE',
          operator: 'gt',
          value: '3',
          description: 'd',
        }),
      );
      expect(a).toEqual({
        id: expect.any(String),
        namespaceKey: ns,
        segmentKey: 's1',
        type: 'STRING_COMPARISON_TYPE',
        property: 'a',
        operator: 'eq',
        value: 'v',
        description: '',
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: a.createdAt,
      });
      expect(b).toMatchObject({
        type: 'NUMBER_COMPARISON_TYPE',
        operator: 'gt',
        value: '3',
        description: 'd',
      });
      expect((await store.getSegment(ns, 's1')).constraints).toEqual([a, b]);
    });

    it('refuses a constraint on an unknown segment', async () => {
      await expectError(
        store.createConstraint(constraint('ghost', 'a')),
        'not_found',
        `segment "${ns}/ghost" not found`,
      );
    });

    it('replaces every field on update and reports unknown ids', async () => {
      const a = await store.createConstraint(constraint('s1', 'a'));
      const u = await store.updateConstraint({
        ...constraint('s1', 'z', {
          type: 'BOOLEAN_COMPARISON_TYPE',
          operator: 'true',
          value: '',
        }),
        id: a.id,
      });
      expect(u).toMatchObject({
        id: a.id,
        property: 'z',
        type: 'BOOLEAN_COMPARISON_TYPE',
        operator: 'true',
        value: '',
      });
      expect(u.updatedAt > a.updatedAt).toBe(true);
      await expectError(
        store.updateConstraint({ ...constraint('s1', 'a'), id: 'no-such-id' }),
        'not_found',
        'constraint "no-such-id" not found',
      );
      await createSegment('s2');
      await expectError(
        store.updateConstraint({ ...constraint('s2', 'a'), id: a.id }),
        'not_found',
        `constraint "${a.id}" not found`,
      );
    });

    it('deletes silently when absent', async () => {
      const a = await store.createConstraint(constraint('s1', 'a'));
      await store.deleteConstraint({ namespaceKey: ns, segmentKey: 's1', id: 'no-such-id' });
      expect((await store.getSegment(ns, 's1')).constraints).toHaveLength(1);
      await store.deleteConstraint({ namespaceKey: ns, segmentKey: 's1', id: a.id });
      expect((await store.getSegment(ns, 's1')).constraints).toEqual([]);
    });
  });
}
