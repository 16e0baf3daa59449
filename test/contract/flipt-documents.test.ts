import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';
import { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import {
  formatDocumentStream,
  parseDocumentStream,
  type DocumentEncoding,
} from '../../src/adapters/yaml/document-text';
import { TransferService } from '../../src/domain/services/transfer';
import type { Storage } from '../../src/ports';
import { createIsolatedDatabase, enabledSqlBackends, type SqlBackend } from '../support/databases';
import { RecordingNotifier, SequentialIds, TickingClock } from '../support/fixtures';

/*
 * Documents of every version Flipt v1.61 reads (1.0 to 1.4), written as Flipt writes them,
 * imported into an empty database and exported again: the export is what Flipt v1.61 exports
 * for them (version 1.4, ranks left to the order, empty fields left out, attachment keys
 * sorted), and importing that export into another empty database exports the same bytes.
 */

const documents = join(__dirname, '../fixtures/documents');
const read = (name: string): string => readFileSync(join(documents, name), 'utf8');

const CASES: Array<[string, DocumentEncoding, readonly string[] | 'all']> = [
  ['flipt-v1.0.yml', 'yaml', ['production']],
  ['flipt-v1.1.yml', 'yaml', ['default']],
  ['flipt-v1.2.yml', 'yaml', ['mobile']],
  ['flipt-v1.3.yml', 'yaml', ['default']],
  ['flipt-v1.4.json', 'json', 'all'],
];

describe.each(enabledSqlBackends().map((b) => [b.name, b] as [string, SqlBackend]))(
  "Flipt's example documents on %s",
  (_name, backend) => {
    const cleanups: Array<() => Promise<void>> = [];
    const ids = new SequentialIds();

    const emptyStorage = async (): Promise<Storage> => {
      const db = await createIsolatedDatabase(backend, 'documents');
      const dataSource = createDataSource(db.url);
      await dataSource.initialize();
      await runMigrations(dataSource);
      const storage = new SqlStorage(dataSource, { clock: new TickingClock(Date.now()), ids });
      cleanups.push(async () => {
        await storage.close();
        await db.drop();
      });
      return storage;
    };
    const service = (storage: Storage) =>
      new TransferService({
        unitOfWork: storage.unitOfWork,
        evaluationSource: storage.evaluationSource,
        clock: new TickingClock(Date.now()),
        ids,
        notifier: new RecordingNotifier(),
      });
    const importText = async (storage: Storage, text: string, encoding: DocumentEncoding) => {
      const parsed = parseDocumentStream(text, encoding);
      return service(storage).importDocuments({
        documents: parsed.values,
        parseProblems: parsed.problems,
        drop: false,
        skipExisting: false,
        dryRun: false,
      });
    };
    const exportText = async (
      storage: Storage,
      namespaces: readonly string[] | 'all',
      encoding: DocumentEncoding,
    ) =>
      formatDocumentStream(
        await service(storage).exportDocuments({ namespaces, sortByKey: false }),
        encoding,
      );

    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup();
    });

    it.each(CASES)(
      '%s imports, exports as Flipt does, and round-trips',
      async (name, encoding, namespaces) => {
        const first = await emptyStorage();
        await importText(first, read(name), encoding);
        const exported = await exportText(first, namespaces, encoding);
        expect(exported).toBe(read(name.replace(/\.(yml|json)$/, '.export.$1')));
        const second = await emptyStorage();
        await importText(second, exported, encoding);
        expect(await exportText(second, namespaces, encoding)).toBe(exported);
      },
    );
  },
);
