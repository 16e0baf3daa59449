import type { Namespace } from '../../src/domain/model';
import { ALL, TIMESTAMP, decodeToken, expectError, page, uniqueKey } from '../support/fixtures';
import type { StorageContractContext, StoreUnderTest } from './storage-contract-context';

/** The storage contract on namespaces: the default one, creation, updates, deletion and its cascades, lists. */
export function describeNamespaceContract(c: StorageContractContext): void {
  const { createFlag, createSegment, createVariant, createRule, version } = c;
  let store: StoreUnderTest;
  let ns: string;
  beforeEach(() => {
    ({ store, ns } = c);
  });

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
}
