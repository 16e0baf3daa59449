import type { DataSource, QueryRunner } from 'typeorm';
import {
  ForeignKeyViolationError,
  InvalidArgumentError,
  UniqueViolationError,
  isDomainError,
} from '../../../domain/errors';
import { databaseOf, sqliteFileKey } from './data-source';
import type { Row } from './row-mappers';
import { sqlDialect, type SqlDialect } from './sql-dialect';
import { sqliteLockKey, withSqliteWriteLock } from './sqlite-write-lock';
import {
  isConnectionError,
  isForeignKeyViolation,
  isRetryableConflict,
  isUniqueViolation,
  isUnstorableText,
  unavailable,
} from './storage-errors';

/** Reads in the repositories' SQL ("quoted" identifiers, ? placeholders). */
export interface Reads {
  readonly dialect: SqlDialect;
  /**
   * Statements may run at the same time, each on a connection of its own (outside a
   * transaction); a transaction's run one after the other on its connection.
   */
  readonly concurrent?: boolean;
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** One transaction's statements. */
export interface Tx extends Reads {
  /** Returns the number of affected rows. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/**
 * Reads that do not depend on each other: all started at once where `reads` runs statements
 * concurrently, else each started when the one before has finished (in a transaction they
 * queue on one connection anyway, and on SQLite each is a synchronous call).
 */
export async function gather<T extends unknown[]>(
  reads: Reads,
  ...steps: { [K in keyof T]: () => Promise<T[K]> }
): Promise<T> {
  if (reads.concurrent === true) return (await Promise.all(steps.map((step) => step()))) as T;
  const results: unknown[] = [];
  for (const step of steps) results.push(await step());
  return results as T;
}

const ATTEMPTS = 4;

/** Unique and foreign-key violations become the domain's errors; the rest stays as it is. */
function driverError(err: unknown): unknown {
  if (isUniqueViolation(err)) return new UniqueViolationError();
  if (isForeignKeyViolation(err)) return new ForeignKeyViolationError();
  return err;
}

/**
 * Transactions on one TypeORM data source: the only place that opens, commits, retries and
 * translates. Statements go through query runners as explicit SQL, because timestamps must
 * keep their microseconds and JSON its exact text, which TypeORM's entity hydration (via
 * Date) would not.
 */
export class SqlSession {
  readonly dialect: SqlDialect;
  private readonly secret: string | undefined;
  private readonly sqliteKey: unknown;

  constructor(private readonly dataSource: DataSource) {
    const parsed = databaseOf(dataSource);
    this.dialect = sqlDialect(parsed.dialect);
    this.secret = parsed.dialect === 'sqlite' ? undefined : parsed.password;
    this.sqliteKey =
      parsed.dialect === 'sqlite' ? sqliteLockKey(dataSource, sqliteFileKey(parsed)) : undefined;
    this.statements = {
      dialect: this.dialect,
      concurrent: this.sqliteKey === undefined,
      all: (sql, params = []) => this.query(sql, params),
    };
  }

  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.guard(() => this.transaction('read', fn));
  }

  /** A write transaction, run again from the start (up to four times) after a deadlock. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.guard(() => this.transaction('write', fn));
  }

  /**
   * Statements outside a transaction, each seeing what was committed when it started. On a
   * database server each takes a connection of the pool, so several run at once.
   */
  readonly statements: Reads;

  /** One statement outside a transaction (a primary-key read). */
  query(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return this.guard(() =>
      this.serialized(() => this.dataSource.query(this.dialect.sql(sql), [...params]), 'read'),
    );
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1', []);
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      if (!this.dataSource.isInitialized) await this.dataSource.initialize();
      return await fn();
    } catch (err) {
      if (isDomainError(err)) throw err;
      if (isConnectionError(err)) throw unavailable(this.dialect.name, err, this.secret);
      // Only a request can bring such text (validation keeps it out of stored data).
      if (isUnstorableText(err)) {
        throw new InvalidArgumentError(
          'text with a NUL character (U+0000) cannot be stored or looked up',
        );
      }
      throw driverError(err);
    }
  }

  /** SQLite transactions on one file queue in-process (see sqlite-write-lock.ts). */
  private serialized<T>(fn: () => Promise<T>, kind: 'read' | 'write'): Promise<T> {
    return this.sqliteKey === undefined ? fn() : withSqliteWriteLock(this.sqliteKey, fn, kind);
  }

  private tx(runner: QueryRunner): Tx {
    const d = this.dialect;
    const params = (list: readonly unknown[]): unknown[] =>
      list.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
    const query = async (sql: string, list: readonly unknown[]) => {
      try {
        return await runner.query(d.sql(sql), params(list), true);
      } catch (err) {
        throw driverError(err);
      }
    };
    return {
      dialect: d,
      all: async (sql, list = []) => ((await query(sql, list)).records ?? []) as Row[],
      run: async (sql, list = []) => (await query(sql, list)).affected ?? 0,
    };
  }

  private transaction<T>(kind: 'read' | 'write', fn: (tx: Tx) => Promise<T>): Promise<T> {
    const d = this.dialect;
    const attempt = async (): Promise<T> => {
      const runner = this.dataSource.createQueryRunner();
      let open = false;
      try {
        await d.begin(runner, kind);
        open = true;
        const result = await fn(this.tx(runner));
        open = false;
        if (kind === 'read') await d.rollback(runner);
        else await d.commit(runner);
        return result;
      } catch (err) {
        if (open) await d.rollback(runner).catch(() => undefined);
        throw err;
      } finally {
        await runner.release();
      }
    };
    return this.serialized(async () => {
      for (let n = 1; ; n++) {
        try {
          return await attempt();
        } catch (err) {
          if (n >= ATTEMPTS || !isRetryableConflict(err)) throw err;
        }
      }
    }, kind);
  }
}
