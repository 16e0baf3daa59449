import type { DataSource, QueryRunner } from 'typeorm';
import { databaseOf, sqliteFileKey } from './data-source';
import {
  isConnectionError,
  isRetryableConflict,
  isUniqueViolation,
  unavailable,
} from './storage-errors';
import { sqliteLockKey, withSqliteWriteLock } from './sqlite-write-lock';

const MYSQL_LOCK = 'vexil.migrations';
const MYSQL_LOCK_TIMEOUT_S = 120;
const PG_LOCK_SQL = `SELECT pg_advisory_lock(hashtext('vexil.migrations'))`;
const PG_UNLOCK_SQL = `SELECT pg_advisory_unlock(hashtext('vexil.migrations'))`;

/**
 * Applies the pending migrations of the data source's dialect and returns their names
 * (empty when the schema is current). Safe to call from several processes at once: the run
 * holds a database-wide lock (PostgreSQL advisory lock, MySQL GET_LOCK, SQLite BEGIN
 * IMMEDIATE). CockroachDB has no advisory locks: there a losing concurrent run fails on the
 * duplicate migration and is retried, finding nothing left to do.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const parsed = databaseOf(dataSource);
  const secret = parsed.dialect === 'sqlite' ? undefined : parsed.password;
  try {
    if (!dataSource.isInitialized) await dataSource.initialize();
    switch (parsed.dialect) {
      case 'sqlite':
        return await withSqliteWriteLock(sqliteLockKey(dataSource, sqliteFileKey(parsed)), () =>
          sqliteMigrations(dataSource),
        );
      case 'postgres':
        return await withSessionLock(dataSource, PG_LOCK_SQL, PG_UNLOCK_SQL, () =>
          apply(dataSource, 'all'),
        );
      case 'mysql':
        return await withSessionLock(
          dataSource,
          `SELECT GET_LOCK('${MYSQL_LOCK}', ${MYSQL_LOCK_TIMEOUT_S}) AS acquired`,
          `SELECT RELEASE_LOCK('${MYSQL_LOCK}')`,
          // MySQL commits DDL implicitly, so a transaction would not make the run atomic.
          () => apply(dataSource, 'none'),
        );
      case 'cockroachdb':
        return await cockroachMigrations(dataSource);
    }
  } catch (err) {
    if (isConnectionError(err)) throw unavailable(parsed.dialect, err, secret);
    throw err;
  }
}

async function apply(dataSource: DataSource, transaction: 'all' | 'none'): Promise<string[]> {
  const ran = await dataSource.runMigrations({ transaction });
  return ran.map((m) => m.name);
}

async function sqliteMigrations(dataSource: DataSource): Promise<string[]> {
  // One connection: the executor's statements run inside this IMMEDIATE transaction, which
  // holds SQLite's write lock against other processes from the first statement on.
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('BEGIN IMMEDIATE');
    try {
      const names = await apply(dataSource, 'none');
      await runner.query('COMMIT');
      return names;
    } catch (err) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    await runner.release();
  }
}

async function withSessionLock<T>(
  dataSource: DataSource,
  lockSql: string,
  unlockSql: string,
  fn: () => Promise<T>,
): Promise<T> {
  const runner: QueryRunner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    const rows = (await runner.query(lockSql)) as Array<Record<string, unknown>>;
    const acquired = rows[0]?.['acquired'];
    if (acquired !== undefined && Number(acquired) !== 1) {
      throw new Error(`could not acquire the migration lock within ${MYSQL_LOCK_TIMEOUT_S}s`);
    }
    try {
      return await fn();
    } finally {
      await runner.query(unlockSql).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}

async function cockroachMigrations(dataSource: DataSource): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await apply(dataSource, 'all');
    } catch (err) {
      const duplicate =
        isUniqueViolation(err) || isRetryableConflict(err) || /already exists/i.test(String(err));
      if (!duplicate || attempt >= 10) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}
