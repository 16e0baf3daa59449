import { SqlEvaluationSource } from '../../src/adapters/storage/typeorm/sql-evaluation-source';
import { SqlSession, type Reads } from '../../src/adapters/storage/typeorm/sql-session';
import type { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import type { ManagementApi } from '../../src/domain/services/api';
import { ConfigStore } from '../../src/domain/services/config';
import { createManagementService } from '../../src/domain/services/management-service';
import { enabledSqlBackends, type IsolatedDatabase } from '../support/databases';
import { openMigratedStorage } from '../support/migrated-storage';

/*
 * On a database server the rows of a few flags are read by statements running at once on
 * connections of their own, between two reads of the namespace's version. A write that
 * commits in between must not leave the result showing two states of the namespace.
 */

const NS = 'rows';
const KEYS = { flags: ['f'], segments: ['s'] };
const servers = enabledSqlBackends().filter((b) => b.name !== 'sqlite');

describe.each(servers.map((b) => [b.name, b] as const))(
  'rows read concurrently on %s',
  (_, backend) => {
    let db: IsolatedDatabase;
    let storage: SqlStorage;
    let session: SqlSession;
    let api: ManagementApi;
    /** Runs before each read of the namespace's row while set. */
    let beforeNamespaceRead: (() => Promise<void>) | undefined;
    let namespaceReads = 0;
    let source: SqlEvaluationSource;

    beforeAll(async () => {
      const opened = await openMigratedStorage('rows', backend);
      ({ db, storage } = opened);
      api = createManagementService({
        config: new ConfigStore({
          unitOfWork: storage.unitOfWork,
          clock: opened.clock,
          ids: opened.ids,
        }),
        notifier: { namespaceChanged: () => undefined, writing: () => () => undefined },
      });
      session = new SqlSession(opened.dataSource);
      const statements = session.statements;
      expect(statements.concurrent).toBe(true);
      // The namespace row is what a read starts with: a write injected after it commits
      // while the rest of the read is under way.
      const hooked: Reads = {
        ...statements,
        all: async (sql, params) => {
          const rows = await statements.all(sql, params);
          if (/FROM namespaces/.test(sql) && /"protected"|`protected`/.test(sql)) {
            namespaceReads += 1;
            await beforeNamespaceRead?.();
          }
          return rows;
        },
      };
      Object.defineProperty(session, 'statements', { value: hooked });
      source = new SqlEvaluationSource(session);

      await api.createNamespace({ key: NS, name: NS, description: '' });
      await api.createSegment({
        namespaceKey: NS,
        key: 's',
        name: 's',
        description: '',
        matchType: 'ALL_MATCH_TYPE',
      });
      await api.createFlag({
        namespaceKey: NS,
        key: 'f',
        name: 'f',
        description: '',
        enabled: true,
        type: 'VARIANT_FLAG_TYPE',
      });
      await api.createRule({
        namespaceKey: NS,
        flagKey: 'f',
        segmentKey: '',
        segmentKeys: ['s'],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        rank: 1,
      });
    }, 60_000);

    afterAll(async () => {
      await session?.close();
      await storage?.close();
      await db?.drop();
    });

    beforeEach(() => {
      beforeNamespaceRead = undefined;
      namespaceReads = 0;
    });

    let n = 0;
    const changeFlag = () =>
      api.updateFlag({
        namespaceKey: NS,
        key: 'f',
        name: 'f',
        description: `change ${++n}`,
        enabled: n % 2 === 0,
        defaultVariantId: '',
      });

    it('reads again when a write commits during the read', async () => {
      const before = await source.loadRows(NS, KEYS);
      namespaceReads = 0;
      let writes = 0;
      beforeNamespaceRead = async () => {
        if (writes++ === 0) await changeFlag();
      };
      const during = await source.loadRows(NS, KEYS);
      // The first attempt is overtaken by the write; the second is not.
      expect(namespaceReads).toBe(2);
      beforeNamespaceRead = undefined;
      const after = await source.loadRows(NS, KEYS);
      expect(after!.version).toBe(before!.version + 1);
      expect(after!.flags[0]!.description).toBe(`change ${n}`);
      expect(during).toEqual(after);
    });

    it('reads in one transaction when the namespace keeps moving', async () => {
      const before = await source.loadRows(NS, KEYS);
      beforeNamespaceRead = async () => {
        await changeFlag();
      };
      const during = await source.loadRows(NS, KEYS);
      beforeNamespaceRead = undefined;
      const after = await source.loadRows(NS, KEYS);
      // Three attempts, each overtaken by a write, then one transaction.
      expect(after!.version).toBe(before!.version + 3);
      expect(during).toEqual(after);
      expect(during!.rules).toHaveLength(1);
      expect(during!.segments.map((s) => s.key)).toEqual(['s']);
    });

    it('reads the flags asked for, their segments and rules, as a transaction would', async () => {
      const concurrent = await source.loadFlags(NS, ['f']);
      const inTransaction = await storage.evaluationSource.loadFlags(NS, ['f']);
      expect(concurrent).toEqual(inTransaction);
      expect(concurrent!.rules[0]!.segmentKeys).toEqual(['s']);
    });
  },
);

if (servers.length === 0) {
  it.todo(
    'rows read concurrently: no database server enabled (see README, "Tests against every backend")',
  );
}
