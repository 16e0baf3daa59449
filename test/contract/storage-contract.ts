import type {
  CreateRolloutRequest,
  CreateRuleRequest,
  Flag,
  Namespace,
  Rule,
} from '../../src/domain/model';
import { ConfigStore } from '../../src/domain/services/config';
import type { Clock, EvaluationSource, IdGenerator, Storage } from '../../src/ports';
import {
  ALL,
  SequentialIds,
  TIMESTAMP,
  TickingClock,
  decodeToken,
  expectError,
  flagRequest,
  page,
  segmentRequest,
  uniqueKey,
} from '../support/fixtures';
import { describeUnitOfWorkContract } from './unit-of-work-contract';

/** What a storage adapter's test hands the kit. */
export interface StorageUnderTest {
  readonly storage: Storage;
  /** Closes the storage and removes what the test created (a database, a file). */
  cleanup(): Promise<void>;
}

/**
 * Opens the adapter under test. `clock` and `ids` are the ones the suite writes with; an
 * adapter that stamps rows of its own (the default namespace) should use them too.
 */
export type OpenStorage = (deps: { clock: Clock; ids: IdGenerator }) => Promise<StorageUnderTest>;

/** The configuration use cases over the adapter, with its evaluation source beside them. */
export type StoreUnderTest = ConfigStore & EvaluationSource & { ping(): Promise<void> };

/**
 * The storage contract kit: what every storage adapter (in-memory, SQLite, PostgreSQL,
 * MariaDB, ...) must do, written only against the ports. Call it from the adapter's test
 * file with a factory. The rules (Flipt's messages, existence, uniqueness) are the domain's,
 * so most cases run the domain's ConfigStore over the adapter's unit of work: they prove the
 * adapter stores, loads, orders, pages and translates driver errors as the rules need.
 *
 * `open()` runs once per suite; every test works in a namespace of its own, so one database
 * can serve the whole suite (and earlier runs may have left other namespaces behind).
 * Ordering assertions assume the clock moves between two writes, as a real clock does at
 * microsecond precision.
 */
export function describeStorageContract(name: string, open: OpenStorage): void {
  describe(`Storage contract: ${name}`, () => {
    let store: StoreUnderTest;
    let storage: Storage;
    let cleanup: () => Promise<void>;
    let ns: string;

    beforeAll(async () => {
      // Starts at the real time once the adapter is open, so that the default namespace a
      // migration seeded stays the oldest namespace, as it is in production.
      const clock = new TickingClock('first-reading');
      const ids = new SequentialIds();
      ({ storage, cleanup } = await open({ clock, ids }));
      const config = new ConfigStore({ unitOfWork: storage.unitOfWork, clock, ids });
      const source = storage.evaluationSource;
      store = Object.assign(Object.create(config) as ConfigStore, {
        getNamespaceVersion: (key: string) => source.getNamespaceVersion(key),
        loadNamespace: (key: string) => source.loadNamespace(key),
        ping: () => storage.ping(),
      });
    });
    afterAll(async () => {
      await cleanup();
    });
    beforeEach(async () => {
      ns = uniqueKey('ns');
      await store.createNamespace({ key: ns, name: ns, description: '' });
    });

    const createFlag = (key: string, extra: Parameters<typeof flagRequest>[2] = {}) =>
      store.createFlag(flagRequest(ns, key, extra));
    const createSegment = (key: string, extra: Parameters<typeof segmentRequest>[2] = {}) =>
      store.createSegment(segmentRequest(ns, key, extra));
    const createVariant = (flagKey: string, key: string, attachment = '') =>
      store.createVariant({
        namespaceKey: ns,
        flagKey,
        key,
        name: `${key} name`,
        description: '',
        attachment,
      });
    const createRule = (flagKey: string, segmentKeys: string[], rank: number, extra = {}) =>
      store.createRule({
        namespaceKey: ns,
        flagKey,
        segmentKeys,
        segmentOperator: segmentKeys.length > 1 ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR',
        rank,
        ...extra,
      } satisfies CreateRuleRequest);
    const thresholdRollout = (flagKey: string, rank: number, percentage = 50) =>
      store.createRollout({
        namespaceKey: ns,
        flagKey,
        rank,
        description: `rank ${rank}`,
        threshold: { percentage, value: true },
      });
    const segmentRollout = (flagKey: string, rank: number, segmentKeys: string[]) =>
      store.createRollout({
        namespaceKey: ns,
        flagKey,
        rank,
        description: '',
        segment: {
          segmentKeys,
          segmentOperator: segmentKeys.length > 1 ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR',
          value: true,
        },
      });
    const version = async (key = ns): Promise<number> => {
      const v = await store.getNamespaceVersion(key);
      if (v === undefined) throw new Error(`no version for ${key}`);
      return v;
    };

    // ---- basics ------------------------------------------------------------------------

    it('answers a ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    // ---- namespaces --------------------------------------------------------------------

    describe('namespaces', () => {
      it('has the protected default namespace from the start', async () => {
        const ns0 = await store.getNamespace('default');
        expect(ns0).toMatchObject({
          key: 'default',
          name: 'Default',
          description: 'Default namespace',
          protected: true,
        });
        expect(Number.isInteger(await version('default'))).toBe(true);
      });

      it('creates an unprotected namespace with equal, well-formed timestamps', async () => {
        const key = uniqueKey('n');
        const created = await store.createNamespace({ key, name: 'N', description: 'd' });
        expect(created).toEqual({
          key,
          name: 'N',
          description: 'd',
          protected: false,
          createdAt: expect.stringMatching(TIMESTAMP),
          updatedAt: created.createdAt,
        });
        expect(await store.getNamespace(key)).toEqual(created);
        expect(await version(key)).toBeGreaterThan(0);
      });

      it('refuses a duplicate key', async () => {
        await expectError(
          store.createNamespace({ key: ns, name: 'again', description: '' }),
          'invalid_argument',
          `namespace "${ns}" is not unique`,
        );
      });

      it('reports an unknown namespace on get, update and delete', async () => {
        const key = uniqueKey('missing');
        const msg = `namespace "${key}" not found`;
        await expectError(store.getNamespace(key), 'not_found', msg);
        await expectError(
          store.updateNamespace({ key, name: 'x', description: '' }),
          'not_found',
          msg,
        );
        await expectError(store.deleteNamespace({ key, force: false }), 'not_found', msg);
        await expectError(store.deleteNamespace({ key, force: true }), 'not_found', msg);
      });

      it('replaces name and description on update and moves updatedAt', async () => {
        const before = await store.getNamespace(ns);
        const updated = await store.updateNamespace({ key: ns, name: 'New', description: 'D' });
        expect(updated).toMatchObject({ key: ns, name: 'New', description: 'D', protected: false });
        expect(updated.createdAt).toBe(before.createdAt);
        expect(updated.updatedAt > before.updatedAt).toBe(true);
        expect(await store.getNamespace(ns)).toEqual(updated);
      });

      it('refuses to delete the protected default namespace without force', async () => {
        await expectError(
          store.deleteNamespace({ key: 'default', force: false }),
          'invalid_argument',
          'namespace "default" is protected',
        );
      });

      it('refuses to delete a namespace with flags unless forced', async () => {
        await createFlag('f1');
        await expectError(
          store.deleteNamespace({ key: ns, force: false }),
          'invalid_argument',
          `namespace "${ns}" cannot be deleted; flags must be deleted first`,
        );
        expect((await store.getFlag(ns, 'f1')).key).toBe('f1');
      });

      it('deletes an empty namespace, after which it is gone everywhere', async () => {
        await createSegment('s1');
        await store.deleteNamespace({ key: ns, force: false });
        await expectError(store.getNamespace(ns), 'not_found', `namespace "${ns}" not found`);
        expect(await store.getNamespaceVersion(ns)).toBeUndefined();
        expect(await store.loadNamespace(ns)).toBeUndefined();
        expect((await store.listSegments({ ...ALL, namespaceKey: ns })).items).toEqual([]);
      });

      it('force-deletes a namespace with everything in it', async () => {
        await createFlag('f1');
        await createVariant('f1', 'v1');
        await createSegment('s1');
        await createRule('f1', ['s1'], 1);
        await store.deleteNamespace({ key: ns, force: true });
        await expectError(store.getFlag(ns, 'f1'), 'not_found', `flag "${ns}/f1" not found`);
        await expectError(store.getSegment(ns, 's1'), 'not_found', `segment "${ns}/s1" not found`);
        expect(await store.loadNamespace(ns)).toBeUndefined();
      });

      it('gives a re-created namespace a version above the deleted one', async () => {
        await createFlag('f1');
        const last = await version();
        await store.deleteNamespace({ key: ns, force: true });
        await store.createNamespace({ key: ns, name: ns, description: '' });
        expect(await version()).toBeGreaterThan(last);
        expect((await store.listFlags({ ...ALL, namespaceKey: ns })).items).toEqual([]);
      });

      it('lists namespaces in creation order and pages through them with tokens', async () => {
        const keys = [uniqueKey('l1'), uniqueKey('l2'), uniqueKey('l3')];
        for (const key of keys) await store.createNamespace({ key, name: key, description: '' });

        const all = await store.listNamespaces(ALL);
        expect(all.nextPageToken).toBe('');
        expect(all.totalCount).toBeGreaterThanOrEqual(all.items.length);
        const seen = all.items.map((n) => n.key).filter((k) => keys.includes(k));
        expect(seen).toEqual(keys);
        expect(all.items[0]?.key).toBe('default');

        const paged: Namespace[] = [];
        let token = '';
        let pages = 0;
        do {
          const p = await store.listNamespaces(page(2, token));
          expect(p.items.length).toBeLessThanOrEqual(2);
          if (p.nextPageToken !== '') {
            expect(decodeToken(p.nextPageToken)).toEqual({
              key: expect.any(String),
              offset: paged.length + p.items.length,
            });
          }
          paged.push(...p.items);
          token = p.nextPageToken;
          pages += 1;
        } while (token !== '' && pages < 10_000);
        expect(paged.map((n) => n.key).filter((k) => keys.includes(k))).toEqual(keys);
      });

      it('applies a namespace offset even without a limit', async () => {
        const all = await store.listNamespaces(ALL);
        const rest = await store.listNamespaces({ ...ALL, offset: 1 });
        expect(rest.items.map((n) => n.key)).toEqual(all.items.slice(1).map((n) => n.key));
      });
    });

    // ---- flags ---------------------------------------------------------------------------

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
          expect(first.nextPageToken).toBe(
            Buffer.from('{"key":"f3","offset":2}').toString('base64'),
          );
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

    // ---- variants ------------------------------------------------------------------------

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

    // ---- segments and constraints --------------------------------------------------------

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

    // ---- rules and distributions ---------------------------------------------------------

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

    // ---- rollouts ------------------------------------------------------------------------

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
        await expectError(
          thresholdRollout('ghost', 1),
          'not_found',
          `flag "${ns}/ghost" not found`,
        );
        const seg = (
          flagKey: string,
          keys: string[],
          segmentKey?: string,
        ): CreateRolloutRequest => ({
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

    // ---- versions ------------------------------------------------------------------------

    describe('versions', () => {
      it('moves the version forward on every write, even one that changes nothing', async () => {
        const writes: Array<() => Promise<unknown>> = [
          () => createFlag('f1'),
          () => createVariant('f1', 'v1'),
          () => createSegment('s1'),
          () =>
            store.createConstraint({
              namespaceKey: ns,
              segmentKey: 's1',
              type: 'STRING_COMPARISON_TYPE',
              property: 'p',
              operator: 'eq',
              value: 'x',
              description: '',
            }),
          () => createRule('f1', ['s1'], 1),
          () => createFlag('b1', { type: 'BOOLEAN_FLAG_TYPE' }),
          () => thresholdRollout('b1', 1),
          () => store.updateNamespace({ key: ns, name: 'again', description: '' }),
          () => store.deleteFlag({ namespaceKey: ns, key: 'ghost' }),
          () => store.deleteSegment({ namespaceKey: ns, key: 'ghost' }),
          () => store.deleteRule({ namespaceKey: ns, flagKey: 'f1', id: 'ghost' }),
          () => store.orderRollouts({ namespaceKey: ns, flagKey: 'b1', rolloutIds: ['x', 'y'] }),
          () => store.deleteFlag({ namespaceKey: ns, key: 'f1' }),
        ];
        let last = await version();
        for (const write of writes) {
          await write();
          const now = await version();
          expect(now).toBeGreaterThan(last);
          last = now;
        }
      });

      it('keeps the version on reads and on failed writes', async () => {
        await createFlag('f1');
        const before = await version();
        await store.getFlag(ns, 'f1');
        await store.listFlags({ ...ALL, namespaceKey: ns });
        await store.loadNamespace(ns);
        await store.getNamespace(ns);
        await expect(createFlag('f1')).rejects.toBeDefined();
        await expect(createVariant('ghost', 'v')).rejects.toBeDefined();
        await expect(store.updateSegment(segmentRequest(ns, 'ghost'))).rejects.toBeDefined();
        expect(await version()).toBe(before);
      });

      it('leaves other namespaces alone', async () => {
        const other = uniqueKey('other');
        await store.createNamespace({ key: other, name: other, description: '' });
        const before = await version(other);
        await createFlag('f1');
        expect(await version(other)).toBe(before);
      });

      it('has no version for an unknown namespace', async () => {
        expect(await store.getNamespaceVersion(uniqueKey('nobody'))).toBeUndefined();
      });
    });

    // ---- loadNamespace -------------------------------------------------------------------

    describe('loadNamespace', () => {
      it('reads the whole namespace in order, at its current version', async () => {
        await createFlag('f2');
        await createFlag('f1');
        await createFlag('b1', { type: 'BOOLEAN_FLAG_TYPE' });
        const v1 = await createVariant('f1', 'v1', '{"a":1}');
        const v2 = await createVariant('f1', 'v2');
        await store.updateFlag({
          namespaceKey: ns,
          key: 'f1',
          name: 'f1',
          description: '',
          enabled: true,
          defaultVariantId: v2.id,
        });
        await createSegment('s2');
        await createSegment('s1', { matchType: 'ANY_MATCH_TYPE' });
        const c = await store.createConstraint({
          namespaceKey: ns,
          segmentKey: 's1',
          type: 'NUMBER_COMPARISON_TYPE',
          property: 'age',
          operator: 'gte',
          value: '18',
          description: '',
        });
        const f1r2 = await createRule('f1', ['s1'], 2);
        const f1r1 = await createRule('f1', ['s1', 's2'], 1);
        const f2r1 = await createRule('f2', ['s2'], 1);
        const d = await store.createDistribution({
          namespaceKey: ns,
          flagKey: 'f1',
          ruleId: f1r1.id,
          variantId: v1.id,
          rollout: 100,
        });
        const ro2 = await segmentRollout('b1', 2, ['s1']);
        const ro1 = await thresholdRollout('b1', 1, 25);

        const data = await store.loadNamespace(ns);
        expect(data).toBeDefined();
        expect(data!.namespace).toEqual(await store.getNamespace(ns));
        expect(data!.version).toBe(await version());
        expect(data!.flags.map((f) => f.key)).toEqual(['f2', 'f1', 'b1']);
        expect(data!.flags[1]).toEqual(await store.getFlag(ns, 'f1'));
        expect(data!.flags[1]!.variants).toEqual([v1, v2]);
        expect(data!.flags[1]!.defaultVariant).toEqual(v2);
        expect(data!.segments.map((s) => s.key)).toEqual(['s2', 's1']);
        expect(data!.segments[1]!.constraints).toEqual([c]);
        const ruleIds = data!.rules.map((r) => r.id);
        expect(ruleIds.filter((id) => id !== f2r1.id)).toEqual([f1r1.id, f1r2.id]);
        expect(ruleIds).toContain(f2r1.id);
        expect(data!.rules.find((r) => r.id === f1r1.id)!.distributions).toEqual([d]);
        expect(data!.rollouts.map((r) => r.id)).toEqual([ro1.id, ro2.id]);
        expect(data!.rollouts[1]).toEqual(ro2);
      });

      it('is undefined for an unknown namespace', async () => {
        expect(await store.loadNamespace(uniqueKey('nobody'))).toBeUndefined();
      });
    });

    // ---- isolation -----------------------------------------------------------------------

    it('hands out copies that callers cannot use to change stored state', async () => {
      await createFlag('f1', { metadata: { a: { b: 1 } } });
      await createVariant('f1', 'v1');
      const flag = (await store.getFlag(ns, 'f1')) as unknown as {
        name: string;
        metadata: { a: { b: number } };
        variants: unknown[];
      };
      flag.name = 'mutated';
      flag.metadata.a.b = 2;
      flag.variants.length = 0;
      const again = await store.getFlag(ns, 'f1');
      expect(again.name).toBe('f1 name');
      expect(again.metadata).toEqual({ a: { b: 1 } });
      expect(again.variants).toHaveLength(1);
    });
  });

  describeUnitOfWorkContract(name, open);
}
