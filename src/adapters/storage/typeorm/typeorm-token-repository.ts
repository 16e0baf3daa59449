import type { DataSource, QueryRunner } from 'typeorm';
import { normalizeTimestamp, TOKEN_BOOTSTRAP_OPERATION } from '../../../domain/auth';
import { InvalidArgumentError, UnavailableError } from '../../../domain/errors';
import { AUTH_METHODS, type AuthMethod, type Authentication } from '../../../domain/model';
import type { Timestamp } from '../../../domain/model';
import type {
  AuthenticationListQuery,
  LockAttempt,
  NewAuthentication,
  TokenRepository,
} from '../../../ports';
import { AuthenticationEntity, OperationLockEntity } from './entities';
import {
  isConnectionError,
  isRetryableConflict as isRetryable,
  isUniqueViolation,
  isUnstorableText,
  unavailable,
} from './storage-errors';

type Dialect = 'sqlite' | 'postgres' | 'mysql' | 'cockroachdb';

interface AuthenticationRow {
  id: string;
  method: number | string;
  metadata: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

function dialectOf(dataSource: DataSource): Dialect {
  switch (dataSource.options.type) {
    case 'better-sqlite3':
      return 'sqlite';
    case 'postgres':
      return 'postgres';
    case 'cockroachdb':
      return 'cockroachdb';
    case 'mysql':
    case 'mariadb':
      return 'mysql';
    default:
      throw new Error(`unsupported data source type ${dataSource.options.type}`);
  }
}

/**
 * Connection trouble becomes UnavailableError (message without secrets), text PostgreSQL
 * cannot hold an invalid argument; the rest passes.
 */
function translate(error: unknown, dialect: Dialect): unknown {
  if (error instanceof UnavailableError) return error;
  if (isUnstorableText(error)) {
    return new InvalidArgumentError(
      'text with a NUL character (U+0000) cannot be stored or looked up',
    );
  }
  return isConnectionError(error) ? unavailable(dialect, error) : error;
}

/**
 * TokenRepository on the `authentications` and `operation_lock` tables (entities
 * AuthenticationEntity and OperationLockEntity), for every dialect.
 *
 * Plain SQL rather than the entity manager: timestamps must keep their six fractional digits
 * (TypeORM turns a timestamp column value into a Date, which has milliseconds), and the lock
 * and bootstrap decisions rest on affected-row counts of conditional statements.
 * Timestamps are read back as text and normalised, whatever the driver's type parsing.
 */
export class TypeormTokenRepository implements TokenRepository {
  private readonly dialect: Dialect;
  private readonly authTable: string;
  private readonly lockTable: string;

  constructor(private readonly dataSource: DataSource) {
    this.dialect = dialectOf(dataSource);
    const escape = (name: string): string => dataSource.driver.escape(name);
    this.authTable = escape(dataSource.getMetadata(AuthenticationEntity).tableName);
    this.lockTable = escape(dataSource.getMetadata(OperationLockEntity).tableName);
  }

  async createAuthentication(input: NewAuthentication): Promise<Authentication> {
    try {
      await this.run((runner) => this.insertAuthentication(runner, input));
    } catch (error) {
      if (isUniqueViolation(error)) throw new InvalidArgumentError('authentication is not unique');
      throw translate(error, this.dialect);
    }
    return this.stored(input.authentication);
  }

  async createFirstAuthentication(input: NewAuthentication): Promise<Authentication | undefined> {
    const method = methodNumber(input.authentication.method);
    for (let attempt = 1; ; attempt += 1) {
      try {
        const inserted =
          this.dialect === 'sqlite'
            ? await this.run((runner) => this.insertFirstSqlite(runner, input, method))
            : await this.insertFirstLocked(input, method);
        return inserted ? this.stored(input.authentication) : undefined;
      } catch (error) {
        if (isUniqueViolation(error)) return undefined;
        if (attempt < 5 && isRetryable(error)) continue;
        throw translate(error, this.dialect);
      }
    }
  }

  async getAuthenticationByHashedToken(hash: string): Promise<Authentication | undefined> {
    const rows = await this.select(`${this.selectAuth()} WHERE hashed_client_token = ?`, [hash]);
    return rows[0];
  }

  async getAuthentication(id: string): Promise<Authentication | undefined> {
    const rows = await this.select(`${this.selectAuth()} WHERE id = ?`, [id]);
    return rows[0];
  }

  async listAuthentications(query: AuthenticationListQuery): Promise<Authentication[]> {
    const limit = safeCount(query.limit);
    const offset = safeCount(query.offset);
    const where = query.method === undefined ? '' : ' WHERE method = ?';
    const params = query.method === undefined ? [] : [methodNumber(query.method)];
    return this.select(
      `${this.selectAuth()}${where} ORDER BY created_at ASC, id ASC LIMIT ${limit} OFFSET ${offset}`,
      params,
    );
  }

  async deleteAuthentication(id: string): Promise<boolean> {
    const affected = await this.write(`DELETE FROM ${this.authTable} WHERE id = ?`, [id]);
    return affected > 0;
  }

  async expireAuthentication(
    id: string,
    expiresAt: Timestamp,
    updatedAt: Timestamp,
  ): Promise<boolean> {
    const affected = await this.write(
      `UPDATE ${this.authTable} SET expires_at = ?, updated_at = ? WHERE id = ?`,
      [this.ts(expiresAt), this.ts(updatedAt), id],
    );
    return affected > 0;
  }

  async existsAuthentication(method: AuthMethod): Promise<boolean> {
    const records = await this.run(async (runner) => {
      const result = await runner.query(
        this.sql(`SELECT 1 AS found FROM ${this.authTable} WHERE method = ? LIMIT 1`),
        [methodNumber(method)],
        true,
      );
      return (result.records ?? []) as unknown[];
    });
    return records.length > 0;
  }

  async deleteExpiredAuthentications(method: AuthMethod, before: Timestamp): Promise<number> {
    return this.write(
      `DELETE FROM ${this.authTable} WHERE method = ? AND expires_at IS NOT NULL AND ${this.earlier('expires_at')}`,
      [methodNumber(method), this.ts(before)],
    );
  }

  async tryAcquireLock(operation: string, now: Timestamp, until: Timestamp): Promise<LockAttempt> {
    try {
      // Taking over a free or lapsed lease: the row lock and the re-checked condition let only
      // one concurrent UPDATE match.
      const taken = await this.write(
        `UPDATE ${this.lockTable} SET version = version + 1, last_acquired_at = ?, acquired_until = ?` +
          ` WHERE operation = ? AND (acquired_until IS NULL OR ${this.earlier('acquired_until')})`,
        [this.ts(now), this.ts(until), operation, this.ts(now)],
      );
      if (taken > 0) return { acquired: true, acquiredUntil: until };
      // No row yet: the primary key lets only one concurrent INSERT through.
      try {
        await this.write(
          `INSERT INTO ${this.lockTable} (operation, version, last_acquired_at, acquired_until)` +
            ` VALUES (?, 1, ?, ?)`,
          [operation, this.ts(now), this.ts(until)],
        );
        return { acquired: true, acquiredUntil: until };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    } catch (error) {
      if (!isRetryable(error)) throw translate(error, this.dialect);
    }
    const held = await this.run(async (runner) => {
      const result = await runner.query(
        this.sql(
          `SELECT ${this.tsText('acquired_until')} AS acquired_until FROM ${this.lockTable} WHERE operation = ?`,
        ),
        [operation],
        true,
      );
      return (result.records ?? []) as Array<{ acquired_until: string | null }>;
    });
    const current = held[0]?.acquired_until;
    const acquiredUntil = current == null ? undefined : normalizeTimestamp(String(current));
    return acquiredUntil === undefined ? { acquired: false } : { acquired: false, acquiredUntil };
  }

  // --- bootstrap -------------------------------------------------------------------------

  /** SQLite runs one writer at a time, so a single conditional INSERT is atomic across processes. */
  private async insertFirstSqlite(
    runner: QueryRunner,
    input: NewAuthentication,
    method: number,
  ): Promise<boolean> {
    const a = input.authentication;
    const result = await runner.query(
      `INSERT INTO ${this.authTable} (id, hashed_client_token, method, metadata, expires_at, created_at, updated_at)` +
        ` SELECT ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM ${this.authTable} WHERE method = ?)`,
      [
        a.id,
        input.hashedClientToken,
        method,
        JSON.stringify(a.metadata),
        a.expiresAt === undefined ? null : this.ts(a.expiresAt),
        this.ts(a.createdAt),
        this.ts(a.updatedAt),
        method,
      ],
      true,
    );
    return (result.affected ?? 0) > 0;
  }

  /**
   * Server databases: in one transaction, lock the `bootstrap_auth_token` row of operation_lock
   * (created on first use), then insert only if no row of the method exists. A second instance
   * waits on the row lock and then sees the first one's insert.
   */
  private async insertFirstLocked(input: NewAuthentication, method: number): Promise<boolean> {
    return this.run((runner) => this.insertFirstInTransaction(runner, input, method));
  }

  private async insertFirstInTransaction(
    runner: QueryRunner,
    input: NewAuthentication,
    method: number,
  ): Promise<boolean> {
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query(this.sql(this.insertLockRowIfMissing()), [TOKEN_BOOTSTRAP_OPERATION]);
      await runner.query(
        this.sql(`SELECT operation FROM ${this.lockTable} WHERE operation = ? FOR UPDATE`),
        [TOKEN_BOOTSTRAP_OPERATION],
      );
      const existing = await runner.query(
        this.sql(`SELECT 1 AS found FROM ${this.authTable} WHERE method = ? LIMIT 1`),
        [method],
        true,
      );
      if ((existing.records ?? []).length > 0) {
        await runner.rollbackTransaction();
        return false;
      }
      await this.insertAuthentication(runner, input);
      await runner.commitTransaction();
      return true;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      throw error;
    }
  }

  private insertLockRowIfMissing(): string {
    const columns = `${this.lockTable} (operation, version, last_acquired_at, acquired_until)`;
    switch (this.dialect) {
      case 'mysql':
        return `INSERT IGNORE INTO ${columns} VALUES (?, 0, NULL, NULL)`;
      case 'sqlite':
        return `INSERT OR IGNORE INTO ${columns} VALUES (?, 0, NULL, NULL)`;
      default:
        return `INSERT INTO ${columns} VALUES (?, 0, NULL, NULL) ON CONFLICT (operation) DO NOTHING`;
    }
  }

  // --- helpers ---------------------------------------------------------------------------

  private async insertAuthentication(runner: QueryRunner, input: NewAuthentication): Promise<void> {
    const a = input.authentication;
    await runner.query(
      this.sql(
        `INSERT INTO ${this.authTable} (id, hashed_client_token, method, metadata, expires_at, created_at, updated_at)` +
          ` VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      [
        a.id,
        input.hashedClientToken,
        methodNumber(a.method),
        JSON.stringify(a.metadata),
        a.expiresAt === undefined ? null : this.ts(a.expiresAt),
        this.ts(a.createdAt),
        this.ts(a.updatedAt),
      ],
    );
  }

  /** What was written, with timestamps canonical (as a read would return them). */
  private stored(a: Authentication): Authentication {
    const canon = (ts: Timestamp): Timestamp => normalizeTimestamp(ts) ?? ts;
    return {
      id: a.id,
      method: a.method,
      ...(a.expiresAt === undefined ? {} : { expiresAt: canon(a.expiresAt) }),
      createdAt: canon(a.createdAt),
      updatedAt: canon(a.updatedAt),
      metadata: { ...a.metadata },
    };
  }

  private selectAuth(): string {
    return (
      `SELECT id, method, metadata, ${this.tsText('expires_at')} AS expires_at,` +
      ` ${this.tsText('created_at')} AS created_at, ${this.tsText('updated_at')} AS updated_at` +
      ` FROM ${this.authTable}`
    );
  }

  /** A timestamp column as text with its full precision. */
  private tsText(column: string): string {
    switch (this.dialect) {
      case 'postgres':
      case 'cockroachdb':
        return `CAST(${column} AS TEXT)`;
      case 'mysql':
        return `CAST(${column} AS CHAR)`;
      default:
        return column;
    }
  }

  /**
   * `column < ?` for a timestamp. SQLite compares text: a database Flipt wrote holds
   * `2024-05-01 09:10:00.5+00:00` beside Vexil's `2024-05-01T09:10:00.500000Z`, and on one day
   * every text with the space sorts first. With the space made a `T` the texts order as the
   * times do, to the microsecond: a shorter fraction ends in `+`, which sorts before any digit.
   */
  private earlier(column: string): string {
    return this.dialect === 'sqlite' ? `replace(${column}, ' ', 'T') < ?` : `${column} < ?`;
  }

  /** A domain Timestamp as the dialect stores it (UTC, six digits). */
  private ts(value: Timestamp): string {
    const canonical = normalizeTimestamp(value);
    if (canonical === undefined) throw new InvalidArgumentError(`invalid timestamp ${value}`);
    return this.dialect === 'mysql' ? canonical.replace('T', ' ').replace(/Z$/, '') : canonical;
  }

  /** `?` placeholders become `$n` where the driver wants those. */
  private sql(text: string): string {
    if (this.dialect !== 'postgres' && this.dialect !== 'cockroachdb') return text;
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  }

  private async select(text: string, params: unknown[]): Promise<Authentication[]> {
    try {
      const rows = await this.run(async (runner) => {
        const result = await runner.query(this.sql(text), params, true);
        return (result.records ?? []) as AuthenticationRow[];
      });
      return rows.map(toAuthentication);
    } catch (error) {
      throw translate(error, this.dialect);
    }
  }

  private async write(text: string, params: unknown[]): Promise<number> {
    return this.run(async (runner) => {
      const result = await runner.query(this.sql(text), params, true);
      return result.affected ?? 0;
    });
  }

  private async run<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return await work(runner);
    } catch (error) {
      throw translate(error, this.dialect);
    } finally {
      await runner.release();
    }
  }
}

const methodNumber = (method: AuthMethod): number => AUTH_METHODS.indexOf(method);

function safeCount(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('invalid page bounds');
  return n;
}

function toAuthentication(row: AuthenticationRow): Authentication {
  const time = (value: string): Timestamp => normalizeTimestamp(String(value)) ?? String(value);
  let metadata: Record<string, string> = {};
  if (row.metadata !== null && row.metadata !== '') {
    const parsed: unknown = JSON.parse(row.metadata);
    if (typeof parsed === 'object' && parsed !== null) metadata = parsed as Record<string, string>;
  }
  return {
    id: row.id,
    method: AUTH_METHODS[Number(row.method)] ?? 'METHOD_NONE',
    ...(row.expires_at === null ? {} : { expiresAt: time(row.expires_at) }),
    createdAt: time(row.created_at),
    updatedAt: time(row.updated_at),
    metadata,
  };
}
