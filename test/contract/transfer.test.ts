import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryStore } from '../../src/adapters/storage/memory/in-memory-store';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';
import { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import {
  formatDocumentStream,
  parseDocumentStream,
  type DocumentEncoding,
} from '../../src/adapters/yaml/document-text';
import { ConfigStore } from '../../src/domain/services/config';
import { TransferService, type ImportSummary } from '../../src/domain/services/transfer';
import { ImportRejectedError } from '../../src/domain/transfer';
import type { Storage } from '../../src/ports';
import { createIsolatedDatabase, enabledSqlBackends } from '../support/databases';
import { RecordingNotifier, SequentialIds, TickingClock } from '../support/fixtures';

const fixture = (name: string): string =>
  readFileSync(join(__dirname, '../fixtures/documents', name), 'utf8');

type Open = () => Promise<{ storage: Storage; cleanup: () => Promise<void> }>;

const backends: Array<[string, Open]> = [
  [
    'memory',
    async () => {
      const storage = new InMemoryStore({ clock: new TickingClock(Date.now()) });
      return { storage, cleanup: () => storage.close() };
    },
  ],
  ...enabledSqlBackends().map((b): [string, Open] => [
    `sql/${b.name}`,
    async () => {
      const db = await createIsolatedDatabase(b, 'transfer');
      const dataSource = createDataSource(db.url);
      await dataSource.initialize();
      await runMigrations(dataSource);
      const storage = new SqlStorage(dataSource, {
        clock: new TickingClock(Date.now()),
        ids: new SequentialIds(),
      });
      return {
        storage,
        cleanup: async () => {
          await storage.close();
          await db.drop();
        },
      };
    },
  ]),
];

describe.each(backends)('import and export: %s', (_name, open) => {
  let a: Storage;
  let b: Storage;
  const cleanups: Array<() => Promise<void>> = [];
  const notifier = new RecordingNotifier();
  // One generator for the file: a test's storages must never be handed the same id twice.
  const ids = new SequentialIds();
  const service = (storage: Storage) =>
    new TransferService({
      unitOfWork: storage.unitOfWork,
      evaluationSource: storage.evaluationSource,
      clock: new TickingClock(Date.now() + 60_000),
      ids,
      notifier,
    });

  beforeAll(async () => {
    const first = await open();
    const second = await open();
    a = first.storage;
    b = second.storage;
    cleanups.push(first.cleanup, second.cleanup);
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  const importText = (
    storage: Storage,
    text: string,
    options: Partial<{ drop: boolean; skipExisting: boolean; dryRun: boolean }> = {},
    encoding: DocumentEncoding = 'yaml',
  ): Promise<ImportSummary> => {
    const parsed = parseDocumentStream(text, encoding);
    return service(storage).importDocuments({
      documents: parsed.values,
      parseProblems: parsed.problems,
      drop: false,
      skipExisting: false,
      dryRun: false,
      ...options,
    });
  };
  const exportText = async (
    storage: Storage,
    namespaces: readonly string[] | 'all' = ['default'],
    encoding: DocumentEncoding = 'yaml',
  ): Promise<string> =>
    formatDocumentStream(
      await service(storage).exportDocuments({ namespaces, sortByKey: false }),
      encoding,
    );

  it("imports Flipt's example and exports it as the format writes it", async () => {
    const summary = await importText(a, fixture('reference-example.yml'));
    expect(summary.namespaces).toEqual([
      {
        key: 'default',
        created: false,
        flags: ['flag1', 'flag2'],
        segments: ['segment1', 'segment2', 'internal_users'],
        skippedFlags: [],
        skippedSegments: [],
      },
    ]);
    expect(await exportText(a)).toBe(fixture('reference-example.export.yml'));
    expect(notifier.changed).toContain('default');
  });

  it('export, import into an empty database, export again: the same bytes', async () => {
    await importText(
      a,
      'namespace: {key: team, name: Team, description: "the team"}\n' +
        'flags:\n  - {key: z, name: Z, type: BOOLEAN_FLAG_TYPE, enabled: true,' +
        ' rollouts: [{threshold: {percentage: 33.3}}, {segment: {keys: [s1, s2], operator: AND_SEGMENT_OPERATOR}}]}\n' +
        '  - key: a\n    name: A\n    variants: [{key: x, attachment: [1, "two", {three: 3.5}]}, {key: y}]\n' +
        '    rules:\n      - {segment: s2, distributions: [{variant: y, rollout: 33.33}, {variant: x, rollout: 66.67}]}\n' +
        '      - {segment: s1}\n' +
        'segments:\n  - {key: s1, name: S1, match_type: ANY_MATCH_TYPE, constraints: [' +
        '{type: DATETIME_COMPARISON_TYPE, property: at, operator: GT, value: "2024-01-02T03:04:05+02:00"},' +
        '{type: NUMBER_COMPARISON_TYPE, property: n, operator: isoneof, value: "[1, 2]", description: numbers}]}\n' +
        '  - {key: s2, name: S2}\n',
    );
    for (const encoding of ['yaml', 'json'] as const) {
      const once = await exportText(a, 'all', encoding);
      const fresh = await open();
      cleanups.push(fresh.cleanup);
      await importText(fresh.storage, once, { drop: true }, encoding);
      expect(await exportText(fresh.storage, 'all', encoding)).toBe(once);
    }
    const yaml = await exportText(a, ['team']);
    expect(yaml).toContain('value: "2024-01-02T01:04:05Z"');
    expect(yaml).toContain('operator: gt');
    expect(yaml).toContain('description: numbers');
  });

  it('refuses an invalid import as a whole: nothing written, no version moved', async () => {
    const before = await b.evaluationSource.getNamespaceVersion('default');
    const text =
      'namespace: fresh\nflags: [{key: ok, name: OK}]\n---\n' +
      'flags:\n  - {key: f, name: F, rules: [{segment: nowhere}]}\n';
    const error = await importText(b, text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportRejectedError);
    expect((error as ImportRejectedError).problems).toEqual([
      {
        document: 2,
        path: 'default/flags/f/rules/1/segment',
        reason: 'segment "default/nowhere" not found',
      },
    ]);
    expect(await b.evaluationSource.getNamespaceVersion('default')).toBe(before);
    expect(await b.evaluationSource.getNamespaceVersion('fresh')).toBeUndefined();
    expect(await exportText(b)).toBe(
      'version: "1.4"\nnamespace:\n  key: default\n  name: Default\n  description: Default namespace\n',
    );
  });

  it('one import over several namespaces moves each version once', async () => {
    const before = await b.evaluationSource.getNamespaceVersion('default');
    const summary = await importText(
      b,
      'flags: [{key: one, name: One}]\n---\nnamespace: other\nflags: [{key: two, name: Two}]\n' +
        '---\nflags: [{key: three, name: Three}]\n',
    );
    expect(summary.namespaces.map((n) => [n.key, n.created, n.flags])).toEqual([
      ['default', false, ['one', 'three']],
      ['other', true, ['two']],
    ]);
    expect(await b.evaluationSource.getNamespaceVersion('default')).toBe((before ?? 0) + 1);
  });

  it('refuses keys that exist, skips them when asked, and a dry run writes nothing', async () => {
    const text = 'flags: [{key: one, name: One}, {key: four, name: Four}]\n';
    await expect(importText(b, text)).rejects.toThrow('flag "default/one" is not unique');
    const version = await b.evaluationSource.getNamespaceVersion('default');
    const dry = await importText(b, text, { skipExisting: true, dryRun: true });
    expect(dry).toMatchObject({
      dryRun: true,
      namespaces: [{ key: 'default', flags: ['four'], skippedFlags: ['one'] }],
    });
    expect(await b.evaluationSource.getNamespaceVersion('default')).toBe(version);
    await importText(b, text, { skipExisting: true });
    const flags = (await b.evaluationSource.loadNamespace('default'))?.flags.map((f) => f.key);
    expect(flags).toEqual(['one', 'three', 'four']);
  });

  it('drop empties the default namespace and removes the others first', async () => {
    await importText(b, 'namespace: third\nsegments: [{key: s, name: S}]\n');
    const summary = await importText(b, 'flags: [{key: only, name: Only}]\n', { drop: true });
    expect([...summary.dropped].sort()).toEqual(['default', 'other', 'third']);
    expect(await b.evaluationSource.getNamespaceVersion('other')).toBeUndefined();
    const data = await b.evaluationSource.loadNamespace('default');
    expect(data?.flags.map((f) => f.key)).toEqual(['only']);
    expect(data?.namespace).toMatchObject({ name: 'Default', protected: true });
    // The API sees the same: the default namespace is still protected.
    const config = new ConfigStore({
      unitOfWork: b.unitOfWork,
      clock: new TickingClock(),
      ids: new SequentialIds(),
    });
    expect((await config.getNamespace('default')).protected).toBe(true);
  });

  it('export names a namespace that does not exist', async () => {
    await expect(
      service(b).exportDocuments({ namespaces: ['nope'], sortByKey: false }),
    ).rejects.toThrow('namespace "nope" not found');
  });
});
