import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSource } from 'typeorm';
import type { Clock, IdGenerator, Storage, TokenRepository } from '../../../ports';
import type { StorageAdapter, StorageOpenOptions } from '../storage-adapter';
import { databaseOf, openDataSource } from './data-source';
import { describeDatabaseUrl, parseDatabaseUrl, SQL_SCHEMES } from './database-url';
import { runMigrations } from './run-migrations';
import { SqlEvaluationSource } from './sql-evaluation-source';
import { SqlSession } from './sql-session';
import { SqlUnitOfWork } from './sql-unit-of-work';
import { TypeormTokenRepository } from './typeorm-token-repository';

/** Every storage port over one migrated TypeORM data source. */
export class SqlStorage implements Storage {
  readonly unitOfWork: SqlUnitOfWork;
  readonly evaluationSource: SqlEvaluationSource;
  readonly tokens: TokenRepository;
  readonly shared: boolean;
  readonly description: string;
  private readonly session: SqlSession;

  constructor(
    readonly dataSource: DataSource,
    deps: { readonly clock: Clock; readonly ids: IdGenerator },
  ) {
    const parsed = databaseOf(dataSource);
    this.session = new SqlSession(dataSource);
    this.unitOfWork = new SqlUnitOfWork(this.session, deps);
    this.evaluationSource = new SqlEvaluationSource(this.session);
    this.tokens = new TypeormTokenRepository(dataSource);
    // Only SQLite is a file that no other process is expected to write.
    this.shared = parsed.dialect !== 'sqlite';
    this.description = describeDatabaseUrl(parsed);
  }

  ping(): Promise<void> {
    return this.session.ping();
  }

  close(): Promise<void> {
    return this.session.close();
  }
}

/** Opens the database of `options.url` and applies pending migrations. */
export async function openSqlStorage(options: StorageOpenOptions): Promise<SqlStorage> {
  const parsed = parseDatabaseUrl(options.url);
  if (parsed.dialect === 'sqlite' && parsed.path !== ':memory:') {
    mkdirSync(dirname(parsed.path), { recursive: true });
  }
  const dataSource = await openDataSource(parsed, {
    ...options.pool,
    ...(options.sqliteBinding === undefined ? {} : { nativeBinding: options.sqliteBinding }),
  });
  try {
    const applied = await runMigrations(dataSource);
    if (applied.length > 0) options.logger?.info('migrations applied', { migrations: applied });
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw err;
  }
  return new SqlStorage(dataSource, options);
}

export const sqlStorageAdapter: StorageAdapter = {
  name: 'sql (TypeORM: SQLite, PostgreSQL, MySQL/MariaDB, CockroachDB)',
  schemes: SQL_SCHEMES,
  check: (url) => {
    parseDatabaseUrl(url);
  },
  open: openSqlStorage,
};
