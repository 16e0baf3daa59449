import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';
import { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import { ConfigStore } from '../../src/domain/services/config';
import type { Clock } from '../../src/ports';
import { flagRequest, SequentialIds, TickingClock } from '../support/fixtures';
import {
  createIsolatedDatabase,
  enabledSqlBackends,
  type IsolatedDatabase,
} from '../support/databases';
import { describeStorageContract } from './storage-contract';

async function openStorage(db: IsolatedDatabase, clock: Clock): Promise<SqlStorage> {
  const dataSource = createDataSource(db.url);
  await dataSource.initialize();
  await runMigrations(dataSource);
  return new SqlStorage(dataSource, { clock, ids: new SequentialIds() });
}

/** The use cases over a storage, as the service runs them, with the evaluation reads beside. */
function storeOver(storage: SqlStorage, clock: Clock = new TickingClock(Date.now())) {
  const config = new ConfigStore({
    unitOfWork: storage.unitOfWork,
    clock,
    ids: new SequentialIds(),
  });
  return Object.assign(Object.create(config) as ConfigStore, {
    getNamespaceVersion: (key: string) => storage.evaluationSource.getNamespaceVersion(key),
    loadNamespace: (key: string) => storage.evaluationSource.loadNamespace(key),
    close: () => storage.close(),
    storage,
  });
}
type TestStore = ReturnType<typeof storeOver>;

async function openStore(
  db: IsolatedDatabase,
): Promise<{ store: TestStore; dataSource: DataSource }> {
  // Starts at the real time, after the migration seeded the default namespace, which must
  // stay the oldest namespace as it is in production.
  const clock = new TickingClock(Date.now());
  const storage = await openStorage(db, clock);
  return { store: storeOver(storage, clock), dataSource: storage.dataSource };
}

for (const backend of enabledSqlBackends()) {
  describeStorageContract(`sql/${backend.name}`, async ({ clock }) => {
    const db = await createIsolatedDatabase(backend, 'store');
    const storage = await openStorage(db, clock);
    return {
      storage,
      cleanup: async () => {
        await storage.close();
        await db.drop();
      },
    };
  });
}

describe('SQL storage on SQLite', () => {
  const sqlite = enabledSqlBackends().find((b) => b.name === 'sqlite');
  if (!sqlite) throw new Error('sqlite is always enabled');
  let db: IsolatedDatabase;
  let store: TestStore;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createIsolatedDatabase(sqlite, 'sqlite-specific');
    ({ store, dataSource } = await openStore(db));
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  test('the database file is in WAL mode with foreign keys on and a busy timeout', async () => {
    const [journal] = (await dataSource.query('PRAGMA journal_mode')) as Array<{
      journal_mode: string;
    }>;
    const [fk] = (await dataSource.query('PRAGMA foreign_keys')) as Array<{ foreign_keys: number }>;
    const [busy] = (await dataSource.query('PRAGMA busy_timeout')) as Array<{ timeout: number }>;
    const [sync] = (await dataSource.query('PRAGMA synchronous')) as Array<{ synchronous: number }>;
    expect(journal?.journal_mode).toBe('wal');
    expect(fk?.foreign_keys).toBe(1);
    expect(busy?.timeout).toBe(5000);
    expect(sync?.synchronous).toBe(1); // NORMAL
  });

  test('50 concurrent flag creations all commit (no SQLITE_BUSY) and bump the version 50 times', async () => {
    await store.createNamespace({ key: 'busy', name: 'busy', description: '' });
    const before = await store.getNamespaceVersion('busy');
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.createFlag(flagRequest('busy', `flag-${i}`))),
    );
    const flags = await store.listFlags({
      namespaceKey: 'busy',
      limit: 0,
      offset: 0,
      pageToken: '',
      reference: '',
    });
    expect(flags.totalCount).toBe(50);
    expect(await store.getNamespaceVersion('busy')).toBe((before ?? 0) + 50);
  });

  test('two stores on one file (two connections) write concurrently without SQLITE_BUSY', async () => {
    const second = await openStore(db);
    try {
      await store.createNamespace({ key: 'two', name: 'two', description: '' });
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 === 0 ? store : second.store).createFlag(flagRequest('two', `f-${i}`)),
        ),
      );
      const loaded = await second.store.loadNamespace('two');
      expect(loaded?.flags).toHaveLength(40);
    } finally {
      await second.store.close();
    }
  });
});

describe.each(enabledSqlBackends().map((b) => [b.name, b] as const))(
  'SQL storage under concurrency on %s',
  (_name, backend) => {
    let db: IsolatedDatabase;
    let store: TestStore;

    beforeAll(async () => {
      db = await createIsolatedDatabase(backend, 'concurrency');
      ({ store } = await openStore(db));
      await store.createNamespace({ key: 'race', name: 'race', description: '' });
    });
    afterAll(async () => {
      await store.close();
      await db.drop();
    });

    test('two simultaneous creates of one key: one wins, the other is told "is not unique"', async () => {
      const results = await Promise.allSettled([
        store.createFlag(flagRequest('race', 'same')),
        store.createFlag(flagRequest('race', 'same')),
        store.createSegment({
          namespaceKey: 'race',
          key: 'seg',
          name: 'seg',
          description: '',
          matchType: 'ALL_MATCH_TYPE',
        }),
        store.createSegment({
          namespaceKey: 'race',
          key: 'seg',
          name: 'seg',
          description: '',
          matchType: 'ALL_MATCH_TYPE',
        }),
        store.createNamespace({ key: 'twin', name: 'twin', description: '' }),
        store.createNamespace({ key: 'twin', name: 'twin', description: '' }),
      ]);
      const rejected = results
        .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
        .map((r) => (r.reason as Error).message)
        .sort();
      expect(rejected).toEqual([
        'flag "race/same" is not unique',
        'namespace "twin" is not unique',
        'segment "race/seg" is not unique',
      ]);
    });

    test('simultaneous rollouts with one rank: exactly one gets it', async () => {
      await store.createFlag(flagRequest('race', 'bool', { type: 'BOOLEAN_FLAG_TYPE' }));
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, () =>
          store.createRollout({
            namespaceKey: 'race',
            flagKey: 'bool',
            rank: 1,
            description: '',
            threshold: { percentage: 10, value: true },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') {
          expect((r.reason as Error).message).toBe('rank number: 1 already exists');
        }
      }
    });

    test('microsecond timestamps survive the round trip exactly', async () => {
      const exact = new (class {
        now(): string {
          return '2024-05-01T10:00:00.123456Z';
        }
      })();
      // Same storage, another clock.
      const other = storeOver(store.storage, exact);
      const created = await other.createSegment({
        namespaceKey: 'race',
        key: 'micro',
        name: 'm',
        description: '',
        matchType: 'ANY_MATCH_TYPE',
      });
      expect(created.createdAt).toBe('2024-05-01T10:00:00.123456Z');
      expect((await store.getSegment('race', 'micro')).createdAt).toBe(
        '2024-05-01T10:00:00.123456Z',
      );
    });
  },
);
