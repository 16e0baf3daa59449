import { performance } from 'node:perf_hooks';
import { InProcessChangeFeed } from '../../src/adapters/cache';
import { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import { compileNamespace, evaluateVariant } from '../../src/domain/evaluation';
import type { ManagementApi } from '../../src/domain/services/api';
import { ConfigStore } from '../../src/domain/services/config';
import {
  NamespaceSnapshots,
  VersionReportingUnitOfWork,
} from '../../src/domain/services/evaluation';
import { createManagementService } from '../../src/domain/services/management-service';
import type { ChangeFeed, ChangeListener, ChangeNotice } from '../../src/ports';
import { openMigratedStorage } from '../support/migrated-storage';
import { type IsolatedDatabase } from '../support/databases';

/*
 * Two instances with caching on, one writing, sharing a database and a change feed: the other
 * brings its snapshot forward from the keys in each notice, and reads the namespace whole when
 * it missed a notice.
 */

/** The feed as the reading instance hears it: notices can be lost on the way. */
class LossyFeed implements ChangeFeed {
  lose = false;
  constructor(private readonly inner: ChangeFeed) {}
  publish(...args: Parameters<ChangeFeed['publish']>): Promise<void> {
    return this.inner.publish(...args);
  }
  subscribe(listener: ChangeListener): () => void {
    return this.inner.subscribe((n: ChangeNotice) => {
      if (!this.lose) listener(n);
    });
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('instances with caching on, updating in place from change notices (SQLite)', () => {
  let db: IsolatedDatabase;
  let storage: SqlStorage;
  let writer: NamespaceSnapshots;
  let reader: NamespaceSnapshots;
  let api: ManagementApi;
  const feed = new InProcessChangeFeed();
  const lossy = new LossyFeed(feed);
  const counts = { patched: 0, rebuilt: 0 };
  /** Row reads made for the writing instance. */
  let writerRowReads = 0;

  beforeAll(async () => {
    const opened = await openMigratedStorage('peers');
    ({ db, storage } = opened);
    const { clock, ids } = opened;
    const options = (changeFeed: ChangeFeed, observed: boolean) => ({
      mode: 'cached' as const,
      stopwatch: { nowMs: () => performance.now() },
      delay: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
      caching: { ttlMs: 60_000, scheduler: { every: () => () => undefined }, changeFeed },
      ...(observed
        ? {
            observer: {
              patched: () => (counts.patched += 1),
              rebuilt: () => (counts.rebuilt += 1),
            },
          }
        : {}),
    });
    const source = storage.evaluationSource;
    const counted = Object.assign(Object.create(source) as typeof source, {
      loadRows: (...args: Parameters<typeof source.loadRows>) => {
        writerRowReads += 1;
        return source.loadRows(...args);
      },
    });
    writer = new NamespaceSnapshots(counted, options(feed, false));
    reader = new NamespaceSnapshots(storage.evaluationSource, options(lossy, true));
    const reporting = new VersionReportingUnitOfWork(storage.unitOfWork, (ns, version) =>
      writer.committed(ns, version),
    );
    api = createManagementService({
      config: new ConfigStore({ unitOfWork: reporting, clock, ids }),
      notifier: {
        namespaceChanged: (ns) => writer.invalidate(ns),
        writing: (ns, touched) => writer.writing(ns, touched),
      },
    });
    await api.createNamespace({ key: 'p', name: 'p', description: '' });
    for (const key of ['a', 'b']) {
      await api.createFlag({
        namespaceKey: 'p',
        key,
        name: key,
        description: '',
        enabled: false,
        type: 'VARIANT_FLAG_TYPE',
      });
    }
  });

  afterAll(async () => {
    writer?.close();
    reader?.close();
    await storage?.close();
    await db?.drop();
  });

  const reasonOf = async (snapshots: NamespaceSnapshots, flagKey: string) => {
    const snapshot = await snapshots.get('p');
    if (snapshot === undefined) throw new Error('namespace missing');
    return evaluateVariant(snapshot.compiled, {
      flagKey,
      entityId: 'e',
      context: {},
    }).reason;
  };

  const toggle = (key: string, enabled: boolean) =>
    api.updateFlag({
      namespaceKey: 'p',
      key,
      name: key,
      description: '',
      enabled,
      defaultVariantId: '',
    });

  /** Until the reader shows `reason` for the flag (notices are handled in the background). */
  async function until(flagKey: string, reason: string): Promise<void> {
    const deadline = Date.now() + 2000;
    while ((await reasonOf(reader, flagKey)) !== reason) {
      if (Date.now() > deadline) throw new Error(`${flagKey} never showed ${reason}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  it('follows each write by reading only the flag it touched', async () => {
    await reasonOf(writer, 'a');
    expect(await reasonOf(reader, 'a')).toBe('FLAG_DISABLED_EVALUATION_REASON');
    const rebuiltBefore = counts.rebuilt;
    await toggle('a', true);
    expect(await reasonOf(writer, 'a')).toBe('UNKNOWN_EVALUATION_REASON');
    await until('a', 'UNKNOWN_EVALUATION_REASON');
    await toggle('b', true);
    await until('b', 'UNKNOWN_EVALUATION_REASON');
    expect(counts.rebuilt).toBe(rebuiltBefore);
    expect(counts.patched).toBeGreaterThanOrEqual(2);
  });

  it('the writer reads what it wrote once, not again on hearing its own notice', async () => {
    await reasonOf(writer, 'a');
    const before = writerRowReads;
    await toggle('a', true);
    await until('a', 'UNKNOWN_EVALUATION_REASON');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await reasonOf(writer, 'a')).toBe('UNKNOWN_EVALUATION_REASON');
    expect(writerRowReads - before).toBe(1);
  });

  it('reads the namespace whole after a missed notice, and agrees with the database', async () => {
    lossy.lose = true;
    await toggle('a', false);
    lossy.lose = false;
    await toggle('b', false);
    const rebuiltBefore = counts.rebuilt;
    await until('b', 'FLAG_DISABLED_EVALUATION_REASON');
    // The lost version cannot be bridged from keys: the reader read everything, 'a' included.
    expect(counts.rebuilt).toBe(rebuiltBefore + 1);
    expect(await reasonOf(reader, 'a')).toBe('FLAG_DISABLED_EVALUATION_REASON');
    const whole = await storage.evaluationSource.loadNamespace('p');
    const held = await reader.get('p');
    expect(held?.version).toBe(whole?.version);
    expect([...(held?.compiled.flags.keys() ?? [])]).toEqual([
      ...compileNamespace(whole!).flags.keys(),
    ]);
  });
});
