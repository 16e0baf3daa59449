import type { QueryRunner } from 'typeorm';
import type { Timestamp } from '../../../domain/model';
import type { DatabaseDialect } from './database-url';

/**
 * The differences between the SQL dialects that the repositories' queries and transactions
 * care about, in one place. Queries are written once with "double-quoted" identifiers and `?`
 * placeholders and translated here.
 */
export interface SqlDialect {
  readonly name: DatabaseDialect;
  /** Opens a transaction on the runner: a write one takes the write lock at once. */
  begin(runner: QueryRunner, kind: 'read' | 'write'): Promise<void>;
  commit(runner: QueryRunner): Promise<void>;
  rollback(runner: QueryRunner): Promise<void>;
  /** Translates quoting and placeholders; results are cached per text. */
  sql(text: string): string;
  /** `LIMIT/OFFSET` for a window; limit 0 means no limit. */
  window(limit: number, offset: number): string;
  timestampToDb(ts: Timestamp): string;
  timestampFromDb(value: unknown): Timestamp;
}

const TIMESTAMP_TEXT = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?/;

/** Any stored timestamp form -> 'YYYY-MM-DDTHH:MM:SS.ffffffZ'. */
export function normalizeTimestamp(value: unknown): Timestamp {
  if (value instanceof Date) {
    return value.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  }
  const text = String(value);
  const m = TIMESTAMP_TEXT.exec(text);
  if (!m) {
    throw new Error(`unexpected timestamp value from the database: ${text}`);
  }
  const fraction = (m[3] ?? '').slice(0, 6).padEnd(6, '0');
  return `${m[1]}T${m[2]}.${fraction}Z`;
}

function translator(convert: (text: string) => string): (text: string) => string {
  const cache = new Map<string, string>();
  return (text) => {
    let out = cache.get(text);
    if (out === undefined) {
      out = convert(text);
      cache.set(text, out);
    }
    return out;
  };
}

const numberedPlaceholders = (text: string): string => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/** Transactions through TypeORM's own calls, at the isolation each kind needs. */
const pooledTransactions = {
  begin: async (runner: QueryRunner, kind: 'read' | 'write'): Promise<void> => {
    await runner.connect();
    // Writes serialize on the namespace row they bump; a read sees one consistent snapshot.
    await runner.startTransaction(kind === 'write' ? 'READ COMMITTED' : 'REPEATABLE READ');
  },
  commit: (runner: QueryRunner): Promise<void> => runner.commitTransaction(),
  rollback: (runner: QueryRunner): Promise<void> => runner.rollbackTransaction(),
};

/**
 * PostgreSQL opens a transaction and sets its isolation in one statement, where TypeORM's
 * calls take two round trips; a write's latency is mostly round trips.
 */
const postgresTransactions = {
  begin: async (runner: QueryRunner, kind: 'read' | 'write'): Promise<void> => {
    await runner.query(
      kind === 'write'
        ? 'BEGIN ISOLATION LEVEL READ COMMITTED'
        : 'BEGIN ISOLATION LEVEL REPEATABLE READ',
    );
  },
  commit: async (runner: QueryRunner): Promise<void> => {
    await runner.query('COMMIT');
  },
  rollback: async (runner: QueryRunner): Promise<void> => {
    await runner.query('ROLLBACK');
  },
};

export function sqlDialect(name: DatabaseDialect): SqlDialect {
  switch (name) {
    case 'sqlite':
      return {
        name,
        // IMMEDIATE takes the write lock up front: no upgrade deadlock, no SQLITE_BUSY mid-way.
        begin: async (runner, kind) => {
          await runner.query(kind === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN');
        },
        commit: async (runner) => {
          await runner.query('COMMIT');
        },
        rollback: async (runner) => {
          await runner.query('ROLLBACK');
        },
        sql: (text) => text,
        window: (limit, offset) =>
          limit > 0
            ? ` LIMIT ${limit} OFFSET ${offset}`
            : offset > 0
              ? ` LIMIT -1 OFFSET ${offset}`
              : '',
        // Stored as the domain text itself: exact and chronologically sortable.
        timestampToDb: (ts) => ts,
        timestampFromDb: normalizeTimestamp,
      };
    case 'mysql':
      return {
        name,
        ...pooledTransactions,
        sql: translator((text) => text.replace(/"/g, '`')),
        window: (limit, offset) =>
          limit > 0
            ? ` LIMIT ${limit} OFFSET ${offset}`
            : offset > 0
              ? ` LIMIT 18446744073709551615 OFFSET ${offset}`
              : '',
        timestampToDb: (ts) => ts.replace('T', ' ').replace(/Z$/, ''),
        timestampFromDb: normalizeTimestamp,
      };
    case 'postgres':
    case 'cockroachdb':
      return {
        name,
        // CockroachDB keeps TypeORM's calls, whose commit retries through a savepoint.
        ...(name === 'postgres' ? postgresTransactions : pooledTransactions),
        sql: translator(numberedPlaceholders),
        window: (limit, offset) =>
          (limit > 0 ? ` LIMIT ${limit}` : '') + (offset > 0 ? ` OFFSET ${offset}` : ''),
        // TIMESTAMP WITHOUT TIME ZONE ignores the trailing Z: the UTC wall clock is stored.
        timestampToDb: (ts) => ts,
        timestampFromDb: normalizeTimestamp,
      };
  }
}
