import type { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import type { ManagementApi } from '../../src/domain/services/api';
import { ConfigStore } from '../../src/domain/services/config';
import { createManagementService } from '../../src/domain/services/management-service';
import type { IsolatedDatabase } from '../support/databases';
import { openMigratedStorage } from '../support/migrated-storage';

/*
 * SQLite's transactions queue inside the process, so a whole namespace is read a page of
 * flags per short transaction, each checking the namespace's version: the load must still
 * show one state of the namespace when a write commits between two pages.
 */

const NS = 'pages';

describe('a SQLite namespace read a page of flags per transaction', () => {
  let db: IsolatedDatabase;
  let storage: SqlStorage;
  let api: ManagementApi;

  beforeAll(async () => {
    const opened = await openMigratedStorage('pages');
    ({ db, storage } = opened);
    const { clock, ids } = opened;
    api = createManagementService({
      config: new ConfigStore({ unitOfWork: storage.unitOfWork, clock, ids }),
      notifier: { namespaceChanged: () => undefined, writing: () => () => undefined },
    });
    await api.createNamespace({ key: NS, name: NS, description: '' });
    // Three pages of flags.
    for (let i = 0; i < 600; i++) {
      await api.createFlag({
        namespaceKey: NS,
        key: `f${i}`,
        name: `f${i}`,
        description: '',
        enabled: true,
        type: 'VARIANT_FLAG_TYPE',
      });
    }
  }, 60_000);

  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it('shows one state of the namespace when a write comes between its pages', async () => {
    const source = storage.evaluationSource;
    const before = await source.loadNamespace(NS);
    const loading = source.loadNamespace(NS);
    // Queued while the load's first transaction runs: it commits before the first page's.
    const write = api.updateFlag({
      namespaceKey: NS,
      key: 'f599',
      name: 'f599',
      description: 'changed',
      enabled: false,
      defaultVariantId: '',
    });
    const [during] = await Promise.all([loading, write]);
    const after = await source.loadNamespace(NS);
    expect(after!.version).toBe(before!.version + 1);
    expect(after!.flags.find((f) => f.key === 'f599')).toMatchObject({ enabled: false });
    expect(during).toEqual(after);
  });
});
