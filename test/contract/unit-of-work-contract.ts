import { ForeignKeyViolationError, UniqueViolationError } from '../../src/domain/errors';
import type { Storage } from '../../src/ports';
import { SequentialIds, TickingClock, uniqueKey } from '../support/fixtures';
import type { OpenStorage } from './storage-contract-context';

const TS = '2024-05-01T10:00:00.123456Z';

const flag = (namespaceKey: string, key: string) => ({
  namespaceKey,
  key,
  name: key,
  description: '',
  enabled: false,
  type: 'VARIANT_FLAG_TYPE' as const,
  createdAt: TS,
  updatedAt: TS,
});

/**
 * The unit of work and the driver-error translation, straight through the ports: what the
 * domain's rules rely on an adapter for.
 */
export function describeUnitOfWorkContract(name: string, open: OpenStorage): void {
  describe(`Unit of work contract: ${name}`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    let ns: string;

    beforeAll(async () => {
      ({ storage, cleanup } = await open({
        clock: new TickingClock(Date.now()),
        ids: new SequentialIds(),
      }));
    });
    afterAll(async () => {
      await cleanup();
    });
    beforeEach(async () => {
      ns = uniqueKey('uow');
      await storage.unitOfWork.write(ns, (r) =>
        r.namespaces.createNamespace({
          key: ns,
          name: ns,
          description: '',
          protected: false,
          createdAt: TS,
          updatedAt: TS,
        }),
      );
    });

    const version = () => storage.evaluationSource.getNamespaceVersion(ns);

    it('bumps the version once per write, whatever the work did', async () => {
      const before = await version();
      await storage.unitOfWork.write(ns, async (r) => {
        await r.flags.createFlag(flag(ns, 'a'));
        await r.flags.createFlag(flag(ns, 'b'));
      });
      expect(await version()).toBe((before ?? 0) + 1);
      await storage.unitOfWork.write(ns, async () => undefined);
      expect(await version()).toBe((before ?? 0) + 2);
    });

    it('tells the work whether the namespace exists, and bumps nothing when it does not', async () => {
      const ghost = uniqueKey('ghost');
      const scopes = await Promise.all([
        storage.unitOfWork.write(ns, async (_r, scope) => scope.namespaceExists),
        storage.unitOfWork.write(ghost, async (_r, scope) => scope.namespaceExists),
      ]);
      expect(scopes).toEqual([true, false]);
      expect(await storage.evaluationSource.getNamespaceVersion(ghost)).toBeUndefined();
    });

    it('keeps nothing of a write whose work throws, version included', async () => {
      const before = await version();
      const failure = new Error('changed my mind');
      await expect(
        storage.unitOfWork.write(ns, async (r) => {
          await r.flags.createFlag(flag(ns, 'kept-not'));
          await r.namespaces.updateNamespace({
            key: ns,
            name: 'renamed',
            description: '',
            updatedAt: TS,
          });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await version()).toBe(before);
      const state = await storage.unitOfWork.read(async (r) => ({
        flag: await r.flags.getFlag(ns, 'kept-not'),
        name: (await r.namespaces.getNamespace(ns))?.name,
      }));
      expect(state).toEqual({ flag: undefined, name: ns });
    });

    it('a write to several namespaces bumps each existing one once, in one transaction', async () => {
      const other = uniqueKey('uow2');
      const ghost = uniqueKey('ghost');
      const before = await version();
      const scopes = await storage.unitOfWork.writeNamespaces([ns, ghost, ns], async (r, s) => {
        await r.namespaces.createNamespace({
          key: other,
          name: other,
          description: '',
          protected: false,
          createdAt: TS,
          updatedAt: TS,
        });
        await r.flags.createFlag(flag(other, 'f'));
        await r.flags.createFlag(flag(ns, 'f'));
        return Object.fromEntries([...s].map(([k, v]) => [k, v.namespaceExists]));
      });
      expect(scopes).toEqual({ [ns]: true, [ghost]: false });
      expect(await version()).toBe((before ?? 0) + 1);
      expect(await storage.evaluationSource.getNamespaceVersion(ghost)).toBeUndefined();
      const third = uniqueKey('uow3');
      const failure = new Error('all or nothing');
      await expect(
        storage.unitOfWork.writeNamespaces([ns, other], async (r) => {
          await r.flags.createFlag(flag(ns, 'g'));
          await r.namespaces.createNamespace({
            key: third,
            name: third,
            description: '',
            protected: false,
            createdAt: TS,
            updatedAt: TS,
          });
          await r.flags.deleteFlag(other, 'f');
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await version()).toBe((before ?? 0) + 1);
      const state = await storage.unitOfWork.read(async (r) => ({
        g: await r.flags.getFlag(ns, 'g'),
        third: await r.namespaces.getNamespace(third),
        f: (await r.flags.getFlag(other, 'f'))?.key,
      }));
      expect(state).toEqual({ g: undefined, third: undefined, f: 'f' });
    });

    it('reports a broken unique key as UniqueViolationError', async () => {
      await storage.unitOfWork.write(ns, (r) => r.flags.createFlag(flag(ns, 'dup')));
      await expect(
        storage.unitOfWork.write(ns, (r) => r.flags.createFlag(flag(ns, 'dup'))),
      ).rejects.toBeInstanceOf(UniqueViolationError);
    });

    it('reports a missing parent row as ForeignKeyViolationError', async () => {
      await expect(
        storage.unitOfWork.write(ns, (r) =>
          r.flags.createVariant({
            id: uniqueKey('v'),
            namespaceKey: ns,
            flagKey: 'no-such-flag',
            key: 'v',
            name: 'v',
            description: '',
            attachment: '',
            createdAt: TS,
            updatedAt: TS,
          }),
        ),
      ).rejects.toBeInstanceOf(ForeignKeyViolationError);
    });

    it('answers reads with undefined, not errors, for what is absent', async () => {
      const absent = await storage.unitOfWork.read(async (r) => [
        await r.namespaces.getNamespace(uniqueKey('none')),
        await r.flags.getFlag(ns, 'none'),
        await r.flags.getVariant(ns, 'none'),
        await r.segments.getSegment(ns, 'none'),
        await r.segments.getConstraint(ns, 'none', 'none'),
        await r.rules.getRule(ns, 'none'),
        await r.rules.getDistribution('none', 'none'),
        await r.rollouts.getRollout(ns, 'none'),
      ]);
      expect(absent).toEqual(Array(8).fill(undefined));
    });

    it('runs concurrent writes of one namespace one after the other', async () => {
      const before = (await version()) ?? 0;
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          storage.unitOfWork.write(ns, async (r) => {
            const n = await r.flags.countFlags(ns);
            await r.flags.createFlag(flag(ns, `c${n}-${i}`));
          }),
        ),
      );
      const flags = await storage.unitOfWork.read((r) =>
        r.flags.listFlags({ namespaceKey: ns, limit: 0, offset: 0, pageToken: '', reference: '' }),
      );
      // Each write counted what the one before it had committed.
      expect(flags.items.map((f) => f.key.split('-')[0]).sort()).toEqual(
        Array.from({ length: 10 }, (_, i) => `c${i}`).sort(),
      );
      expect(await version()).toBe(before + 10);
    });
  });
}
