import type { CreateRolloutRequest } from '../../src/domain/model';
import { ALL, TIMESTAMP, decodeToken, expectError, page } from '../support/fixtures';
import type { StorageContractContext, StoreUnderTest } from './storage-contract-context';

/** The storage contract on rollouts. */
export function describeRolloutContract(c: StorageContractContext): void {
  const { createFlag, createSegment, thresholdRollout, segmentRollout } = c;
  let store: StoreUnderTest;
  let ns: string;
  beforeEach(() => {
    ({ store, ns } = c);
  });

  describe('rollouts', () => {
    beforeEach(async () => {
      await createFlag('b1', { type: 'BOOLEAN_FLAG_TYPE' });
      await createSegment('s1');
      await createSegment('s2');
    });

    it('creates a threshold rollout', async () => {
      const r = await thresholdRollout('b1', 1, 42.5);
      expect(r).toEqual({
        id: expect.any(String),
        namespaceKey: ns,
        flagKey: 'b1',
        type: 'THRESHOLD_ROLLOUT_TYPE',
        rank: 1,
        description: 'rank 1',
        threshold: { percentage: 42.5, value: true },
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: r.createdAt,
      });
      expect(await store.getRollout(ns, r.id)).toEqual(r);
    });

    it('creates a segment rollout', async () => {
      const r = await segmentRollout('b1', 2, ['s2', 's1']);
      expect(r).toMatchObject({
        type: 'SEGMENT_ROLLOUT_TYPE',
        rank: 2,
        segment: {
          segmentKeys: ['s2', 's1'],
          segmentOperator: 'AND_SEGMENT_OPERATOR',
          value: true,
        },
      });
      expect(r.threshold).toBeUndefined();
      expect(await store.getRollout(ns, r.id)).toEqual(r);
    });

    it('refuses a taken rank before anything else', async () => {
      await thresholdRollout('b1', 1);
      await expectError(
        thresholdRollout('b1', 1),
        'invalid_argument',
        'rank number: 1 already exists',
      );
      await expectError(
        store.createRollout({ namespaceKey: ns, flagKey: 'b1', rank: 1, description: '' }),
        'invalid_argument',
        'rank number: 1 already exists',
      );
    });

    it('refuses a rollout without a rule', async () => {
      await expectError(
        store.createRollout({ namespaceKey: ns, flagKey: 'b1', rank: 1, description: '' }),
        'invalid_argument',
        'rollout rule is missing',
      );
    });

    it('reports unknown flags and segments with Flipt quoting', async () => {
      await expectError(thresholdRollout('ghost', 1), 'not_found', `flag "${ns}/ghost" not found`);
      const seg = (flagKey: string, keys: string[], segmentKey?: string): CreateRolloutRequest => ({
        namespaceKey: ns,
        flagKey,
        rank: 1,
        description: '',
        segment: {
          segmentKeys: keys,
          segmentOperator: 'OR_SEGMENT_OPERATOR',
          value: true,
          segmentKey,
        },
      });
      await expectError(
        store.createRollout(seg('ghost', ['s1'], 's1')),
        'not_found',
        `flag "${ns}/ghost or segment s1" not found`,
      );
      await expectError(
        store.createRollout(seg('b1', ['nope'], 'nope')),
        'not_found',
        `flag "${ns}/b1 or segment nope" not found`,
      );
      await expectError(
        store.createRollout(seg('b1', ['s1', 'nope'], '')),
        'not_found',
        `flag "${ns}/b1 or segment " not found`,
      );
    });

    it('finds rollouts by namespace and id', async () => {
      await expectError(
        store.getRollout(ns, 'no-such-id'),
        'not_found',
        `rollout "${ns}/no-such-id" not found`,
      );
    });

    it('lists by rank, pages with ids and ignores the deprecated offset', async () => {
      const r2 = await thresholdRollout('b1', 2);
      const r1 = await thresholdRollout('b1', 1);
      const r3 = await segmentRollout('b1', 3, ['s1']);
      const req = { namespaceKey: ns, flagKey: 'b1' };
      const all = await store.listRollouts({ ...ALL, ...req, offset: 1 });
      expect(all.items.map((r) => r.id)).toEqual([r1.id, r2.id, r3.id]);
      expect(all).toMatchObject({ nextPageToken: '', totalCount: 3 });
      const first = await store.listRollouts({ ...page(1), ...req });
      expect(decodeToken(first.nextPageToken)).toEqual({ key: r2.id, offset: 1 });
      const rest = await store.listRollouts({ ...ALL, ...req, pageToken: first.nextPageToken });
      expect(rest.items.map((r) => r.id)).toEqual([r2.id, r3.id]);
      expect(rest.nextPageToken).toBe('');
      await expectError(
        store.listRollouts({ ...page(1, '!'), ...req }),
        'invalid_argument',
        'pageToken is not valid: "!"',
      );
    });

    it('updates description and rule of the same kind, not the rank', async () => {
      const t = await thresholdRollout('b1', 1);
      const u = await store.updateRollout({
        namespaceKey: ns,
        flagKey: 'b1',
        id: t.id,
        description: '',
        threshold: { percentage: 10, value: false },
      });
      expect(u).toMatchObject({
        description: '',
        rank: 1,
        threshold: { percentage: 10, value: false },
      });
      expect(u.updatedAt > t.updatedAt).toBe(true);
      const s = await segmentRollout('b1', 2, ['s1']);
      const su = await store.updateRollout({
        namespaceKey: ns,
        flagKey: 'b1',
        id: s.id,
        description: 'x',
        segment: {
          segmentKeys: ['s1', 's2'],
          segmentOperator: 'AND_SEGMENT_OPERATOR',
          value: false,
        },
      });
      expect(su.segment).toEqual({
        segmentKeys: ['s1', 's2'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        value: false,
      });
      expect(await store.getRollout(ns, s.id)).toEqual(su);
    });

    it('refuses unknown rollouts, kind changes, missing rules and unknown segments on update', async () => {
      const t = await thresholdRollout('b1', 1);
      const base = { namespaceKey: ns, flagKey: 'b1', description: '' };
      const segment = {
        segmentKeys: ['s1'],
        segmentOperator: 'OR_SEGMENT_OPERATOR' as const,
        value: true,
      };
      await expectError(
        store.updateRollout({
          ...base,
          id: 'no-such-id',
          threshold: { percentage: 1, value: true },
        }),
        'not_found',
        `rollout "${ns}/no-such-id" not found`,
      );
      await expectError(
        store.updateRollout({ ...base, id: t.id, segment }),
        'invalid_argument',
        'cannot change type of rollout: have "THRESHOLD_ROLLOUT_TYPE" attempted "SEGMENT_ROLLOUT_TYPE"',
      );
      await expectError(
        store.updateRollout({ ...base, id: t.id }),
        'invalid_argument',
        'invalid field rule: invalid rollout rule type',
      );
      const s = await segmentRollout('b1', 2, ['s1']);
      await expectError(
        store.updateRollout({ ...base, id: s.id, threshold: { percentage: 1, value: true } }),
        'invalid_argument',
        'cannot change type of rollout: have "SEGMENT_ROLLOUT_TYPE" attempted "THRESHOLD_ROLLOUT_TYPE"',
      );
      await expectError(
        store.updateRollout({
          ...base,
          id: s.id,
          segment: { ...segment, segmentKeys: ['nope'] },
        }),
        'not_found',
        `segment "${ns}/nope" not found`,
      );
      expect(await store.getRollout(ns, s.id)).toEqual(s);
    });

    it('renumbers after delete and orders by the listed ids', async () => {
      const a = await thresholdRollout('b1', 1);
      const b = await thresholdRollout('b1', 2);
      const c = await thresholdRollout('b1', 3);
      await store.deleteRollout({ namespaceKey: ns, flagKey: 'b1', id: a.id });
      const req = { ...ALL, namespaceKey: ns, flagKey: 'b1' };
      expect((await store.listRollouts(req)).items.map((r) => [r.id, r.rank])).toEqual([
        [b.id, 1],
        [c.id, 2],
      ]);
      await store.orderRollouts({
        namespaceKey: ns,
        flagKey: 'b1',
        rolloutIds: [c.id, 'ghost', b.id],
      });
      expect((await store.listRollouts(req)).items.map((r) => [r.id, r.rank])).toEqual([
        [c.id, 1],
        [b.id, 3],
      ]);
      await expect(
        store.deleteRollout({ namespaceKey: ns, flagKey: 'b1', id: 'ghost' }),
      ).resolves.toBeUndefined();
      // Deleting renumbers even when nothing was deleted, which frees rank 3.
      await expect(thresholdRollout('b1', 3)).resolves.toMatchObject({ rank: 3 });
      await expectError(
        thresholdRollout('b1', 2),
        'invalid_argument',
        'rank number: 2 already exists',
      );
    });
  });
}
