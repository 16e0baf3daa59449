import { UnavailableError } from '../../../domain/errors';
import type { DatabaseDialect } from './database-url';
import { redactSecrets } from './database-url';

/*
 * Driver error classification at the adapter edge. TypeORM wraps query errors in
 * QueryFailedError with the driver's error in `driverError`; connection errors may arrive raw.
 */

interface DriverErrorShape {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  driverError?: unknown;
  errors?: unknown;
}

function driverError(err: unknown): DriverErrorShape {
  if (typeof err !== 'object' || err === null) return {};
  const shape = err as DriverErrorShape;
  if (typeof shape.driverError === 'object' && shape.driverError !== null) {
    return shape.driverError as DriverErrorShape;
  }
  return shape;
}

const codeOf = (err: unknown): string => {
  const code = driverError(err).code;
  return typeof code === 'string' ? code : '';
};
const errnoOf = (err: unknown): number => {
  const errno = driverError(err).errno;
  return typeof errno === 'number' ? errno : 0;
};

/** A unique or primary-key violation, in any of the drivers. */
export function isUniqueViolation(err: unknown): boolean {
  const code = codeOf(err);
  return (
    code === '23505' ||
    code === 'ER_DUP_ENTRY' ||
    errnoOf(err) === 1062 ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** A foreign-key violation (missing parent, or a RESTRICT-ed parent being deleted). */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = codeOf(err);
  const errno = errnoOf(err);
  return (
    code === '23503' ||
    code === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    errno === 1451 ||
    errno === 1452 ||
    errno === 1216 ||
    errno === 1217
  );
}

/**
 * PostgreSQL refusing text it cannot hold: a NUL character in a parameter (22021), or a
 * \u0000 escape in JSON it must parse (22P05). Such text can neither be stored nor match.
 */
export function isUnstorableText(err: unknown): boolean {
  const code = codeOf(err);
  return code === '22021' || code === '22P05';
}

/** A deadlock or serialization failure: the transaction may simply be run again. */
export function isRetryableConflict(err: unknown): boolean {
  const code = codeOf(err);
  const errno = errnoOf(err);
  return code === '40001' || code === '40P01' || errno === 1213 || errno === 1205;
}

/** The server was reached but has no database of the name in db.url. */
export function isMissingDatabase(err: unknown): boolean {
  const code = codeOf(err);
  return code === '3D000' || code === 'ER_BAD_DB_ERROR' || errnoOf(err) === 1049;
}

/** The database is reached but cannot be used as it is: start-up does not retry it. */
export class UnusableDatabaseError extends Error {}

/**
 * Start-up found no database of the configured name. Waiting does not make one appear, so it
 * is not retried: the message says to create it.
 */
export class MissingDatabaseError extends UnusableDatabaseError {
  constructor(
    dialect: Exclude<DatabaseDialect, 'sqlite'>,
    host: string,
    port: number,
    database: string,
  ) {
    const quoted = dialect === 'mysql' ? `\`${database}\`` : `"${database}"`;
    super(
      `database ${quoted} does not exist on the ${dialect} server at ${host}:${port}: ` +
        `create it first (CREATE DATABASE ${quoted};) or correct db.url; ` +
        'Vexil creates the tables, not the database',
    );
    this.name = 'MissingDatabaseError';
  }
}

/** A Flipt database that Vexil cannot take over as it is (migrations dirty or unfinished). */
export class FliptSchemaError extends UnusableDatabaseError {
  constructor(message: string) {
    super(message);
    this.name = 'FliptSchemaError';
  }
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_ACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
  // PostgreSQL: admin/crash shutdown, cannot connect now, too many connections,
  // invalid password, unknown database
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '28P01',
  '28000',
  '3D000',
  'SQLITE_CANTOPEN',
  'SQLITE_NOTADB',
  'SQLITE_FULL',
]);

const CONNECTION_MESSAGES =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|connection lost|server closed the connection|cannot use a pool after calling end|pool is closed|database connection is not open|connection is not established|not connected|ECONNREFUSED|ECONNRESET/i;

/** True when the database could not be reached (as opposed to a query being wrong). */
export function isConnectionError(err: unknown): boolean {
  const shape = driverError(err);
  const code = codeOf(err);
  if (CONNECTION_CODES.has(code) || code.startsWith('08') || code.startsWith('SQLITE_IOERR')) {
    return true;
  }
  if (Array.isArray(shape.errors) && shape.errors.some((e) => isConnectionError(e))) {
    return true;
  }
  const message = typeof shape.message === 'string' ? shape.message : '';
  const outer = err instanceof Error ? err.message : '';
  const name = err instanceof Error ? err.name : '';
  return (
    CONNECTION_MESSAGES.test(message) ||
    CONNECTION_MESSAGES.test(outer) ||
    name === 'CannotExecuteNotConnectedError' ||
    name === 'ConnectionIsNotSetError'
  );
}

function describe(err: unknown): string {
  const shape = driverError(err);
  let message = typeof shape.message === 'string' ? shape.message : '';
  // Node reports a refused dual-stack connect as an AggregateError with an empty message.
  if (message === '' && Array.isArray(shape.errors)) {
    message = shape.errors
      .map((e: unknown) => (e instanceof Error ? e.message : String(e)))
      .filter((m) => m !== '')
      .join('; ');
  }
  if (message === '' && err instanceof Error) message = err.message;
  if (message === '') message = codeOf(err) || String(err);
  return redactSecrets(message);
}

/** `storage unavailable: postgres: connect ECONNREFUSED 127.0.0.1:5432` (never a password). */
export function unavailable(
  dialect: DatabaseDialect,
  err: unknown,
  secret?: string,
): UnavailableError {
  let message = describe(err);
  if (secret) message = message.split(secret).join('***');
  return new UnavailableError(`storage unavailable: ${dialect}: ${message}`);
}
