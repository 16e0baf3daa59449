import 'reflect-metadata';
import { resolve } from 'node:path';
import type { types as PgTypes } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { ALL_ENTITIES } from './entities';
import { MIGRATIONS, MIGRATIONS_TABLE } from './migrations';
import {
  parseDatabaseUrl,
  type DatabaseDialect,
  type NetworkDatabaseUrl,
  type ParsedDatabaseUrl,
} from './database-url';
import { isMissingDatabase, MissingDatabaseError, unavailable } from './storage-errors';

/** Flipt's `db.max_open_conn`, `db.max_idle_conn`, `db.conn_max_lifetime`. */
export interface PoolOptions {
  /** Upper bound of open connections (default 10). Ignored by SQLite (one connection). */
  readonly maxOpenConn?: number;
  /** Idle connections kept open (MySQL only; pg closes idle ones after 10 s). */
  readonly maxIdleConn?: number;
  /** A connection is closed after this long (pg: lifetime; MySQL: idle timeout). 0 = forever. */
  readonly connMaxLifetimeMs?: number;
}

export interface SqliteOptions {
  /** How long a writer waits for another process's lock before SQLITE_BUSY (default 5000). */
  readonly busyTimeoutMs?: number;
  /** better-sqlite3's addon, already loaded; by default better-sqlite3 loads its own build. */
  readonly nativeBinding?: object;
}

export type DataSourceFactoryOptions = PoolOptions & SqliteOptions;

const DEFAULT_MAX_OPEN = 10;
const CONNECT_TIMEOUT_MS = 5000;

// Timestamps, JSON and BIGINT come back as text: the store maps them itself, exactly
// (pg's default Date parsing would drop the microseconds and reformat JSON).
const RAW_PG_TYPES = new Set([20, 114, 1114, 1184, 3802]);
// pg is required when a PostgreSQL database is used, not by every process that loads this.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pgTypes = (): typeof PgTypes => (require('pg') as typeof import('pg')).types;
const pgTypeParsers = {
  getTypeParser: ((oid: number, format?: string) =>
    RAW_PG_TYPES.has(oid)
      ? (value: string) => value
      : (pgTypes().getTypeParser as (o: number, f?: string) => unknown)(
          oid,
          format,
        )) as typeof PgTypes.getTypeParser,
};

const dialects = new WeakMap<DataSource, ParsedDatabaseUrl>();

/** The parsed URL a data source was made from (dialect, path or host; with the password). */
export function databaseOf(dataSource: DataSource): ParsedDatabaseUrl {
  const parsed = dialects.get(dataSource);
  if (!parsed) throw new Error('data source was not created by createDataSource');
  return parsed;
}

export function dialectOf(dataSource: DataSource): DatabaseDialect {
  return databaseOf(dataSource).dialect;
}

/** A stable identity of the database file for in-process write serialization. */
export function sqliteFileKey(parsed: ParsedDatabaseUrl): string | undefined {
  if (parsed.dialect !== 'sqlite' || parsed.path === ':memory:') return undefined;
  return resolve(parsed.path);
}

/** A TypeORM DataSource (not yet initialized) for a `db.url`. Throws DatabaseUrlError. */
export function createDataSource(
  url: string | ParsedDatabaseUrl,
  options: DataSourceFactoryOptions = {},
): DataSource {
  const parsed = typeof url === 'string' ? parseDatabaseUrl(url) : url;
  const common = {
    entities: ALL_ENTITIES,
    migrations: [...MIGRATIONS[parsed.dialect]],
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsRun: false,
    synchronize: false,
    logging: false,
  };
  let dsOptions: DataSourceOptions;
  if (parsed.dialect === 'sqlite') {
    const busyTimeout = options.busyTimeoutMs ?? 5000;
    dsOptions = {
      ...common,
      type: 'better-sqlite3',
      database: parsed.path,
      timeout: busyTimeout,
      // TypeORM types it as a path; better-sqlite3 also takes the loaded addon itself.
      ...(options.nativeBinding === undefined
        ? {}
        : { nativeBinding: options.nativeBinding as unknown as string }),
      prepareDatabase: (db: { pragma(source: string): unknown }) => {
        db.pragma(`busy_timeout = ${busyTimeout}`);
        if (parsed.path !== ':memory:') db.pragma('journal_mode = WAL');
        // Safe with WAL: a crash may lose the last commits, never corrupt the file.
        db.pragma('synchronous = NORMAL');
        db.pragma('foreign_keys = ON');
      },
    };
  } else if (parsed.dialect === 'mysql') {
    dsOptions = {
      ...common,
      type: 'mysql',
      host: parsed.host,
      port: parsed.port,
      username: parsed.username,
      password: parsed.password,
      database: parsed.database,
      charset: 'utf8mb4_bin',
      timezone: 'Z',
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      poolSize: options.maxOpenConn || DEFAULT_MAX_OPEN,
      extra: {
        ...(options.maxIdleConn ? { maxIdle: options.maxIdleConn } : {}),
        ...(options.connMaxLifetimeMs ? { idleTimeout: options.connMaxLifetimeMs } : {}),
      },
    };
  } else {
    const network = {
      ...common,
      host: parsed.host,
      port: parsed.port,
      username: parsed.username,
      password: parsed.password,
      database: parsed.database,
      ssl: pgSsl(parsed),
      poolSize: options.maxOpenConn || DEFAULT_MAX_OPEN,
      extra: {
        types: pgTypeParsers,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        ...(options.connMaxLifetimeMs
          ? { maxLifetimeSeconds: Math.max(1, Math.round(options.connMaxLifetimeMs / 1000)) }
          : {}),
      },
    };
    dsOptions =
      parsed.dialect === 'cockroachdb'
        ? { ...network, type: 'cockroachdb', timeTravelQueries: false }
        : { ...network, type: 'postgres' };
  }
  const dataSource = new DataSource(dsOptions);
  dialects.set(dataSource, parsed);
  return dataSource;
}

function pgSsl(parsed: NetworkDatabaseUrl): boolean | { rejectUnauthorized: boolean } {
  switch (parsed.params['sslmode']) {
    case undefined:
    case 'disable':
      return false;
    case 'verify-ca':
    case 'verify-full':
      return true;
    default:
      // require / prefer / allow: encrypted, certificate not verified (libpq semantics)
      return { rejectUnauthorized: false };
  }
}

/** Creates and initializes; an unreachable database becomes UnavailableError. */
export async function openDataSource(
  url: string | ParsedDatabaseUrl,
  options: DataSourceFactoryOptions = {},
): Promise<DataSource> {
  const dataSource = createDataSource(url, options);
  const parsed = databaseOf(dataSource);
  try {
    await dataSource.initialize();
  } catch (err) {
    if (parsed.dialect !== 'sqlite' && isMissingDatabase(err)) {
      throw new MissingDatabaseError(parsed.dialect, parsed.host, parsed.port, parsed.database);
    }
    throw unavailable(
      parsed.dialect,
      err,
      parsed.dialect === 'sqlite' ? undefined : parsed.password,
    );
  }
  return dataSource;
}
