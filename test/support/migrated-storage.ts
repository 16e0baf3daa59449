import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';
import { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import { createIsolatedDatabase, type IsolatedDatabase, type SqlBackend } from './databases';
import { SequentialIds, TickingClock } from './fixtures';

export interface MigratedStorage {
  readonly db: IsolatedDatabase;
  readonly dataSource: DataSource;
  readonly storage: SqlStorage;
  readonly clock: TickingClock;
  readonly ids: SequentialIds;
}

/** A database of its own on `backend` (SQLite by default), migrated, with SqlStorage over it. */
export async function openMigratedStorage(
  label: string,
  backend: SqlBackend = { name: 'sqlite', url: 'sqlite' },
): Promise<MigratedStorage> {
  const db = await createIsolatedDatabase(backend, label);
  const dataSource = createDataSource(db.url);
  await dataSource.initialize();
  await runMigrations(dataSource);
  const clock = new TickingClock();
  const ids = new SequentialIds();
  return { db, dataSource, storage: new SqlStorage(dataSource, { clock, ids }), clock, ids };
}
