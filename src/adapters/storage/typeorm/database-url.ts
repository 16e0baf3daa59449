/**
 * The `db.url` forms Flipt v1 accepts (reference §8.3), parsed once so that a bad URL fails the
 * start-up with one line. The parsed value never carries the password into error messages.
 */
export type DatabaseDialect = 'sqlite' | 'postgres' | 'mysql' | 'cockroachdb';

export interface SqliteDatabaseUrl {
  readonly dialect: 'sqlite';
  /** A file path (absolute or relative to the working directory) or ':memory:'. */
  readonly path: string;
}

export interface NetworkDatabaseUrl {
  readonly dialect: 'postgres' | 'mysql' | 'cockroachdb';
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly database: string;
  /** Query parameters, e.g. `sslmode`. */
  readonly params: Readonly<Record<string, string>>;
}

export type ParsedDatabaseUrl = SqliteDatabaseUrl | NetworkDatabaseUrl;

export class DatabaseUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUrlError';
  }
}

const SQLITE_SCHEMES = new Set(['file', 'sqlite', 'sqlite3']);
const NETWORK_SCHEMES: Readonly<Record<string, NetworkDatabaseUrl['dialect']>> = {
  postgres: 'postgres',
  postgresql: 'postgres',
  pgx: 'postgres',
  mysql: 'mysql',
  mariadb: 'mysql',
  cockroach: 'cockroachdb',
  cockroachdb: 'cockroachdb',
  crdb: 'cockroachdb',
};
const DEFAULT_PORTS: Readonly<Record<NetworkDatabaseUrl['dialect'], number>> = {
  postgres: 5432,
  mysql: 3306,
  cockroachdb: 26257,
};
const SUPPORTED = 'file:, sqlite:, postgres://, postgresql://, mysql://, cockroach://, a file path';

/** The schemes this adapter accepts ('' for a plain file path). */
export const SQL_SCHEMES: readonly string[] = [
  '',
  ...SQLITE_SCHEMES,
  ...Object.keys(NETWORK_SCHEMES),
];

/** Replaces the password of any `scheme://user:password@` in `text` with `***`. */
export function redactSecrets(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1***@');
}

export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const raw = url.trim();
  if (raw === '') {
    throw new DatabaseUrlError('invalid database url: must not be empty');
  }
  if (raw === ':memory:') {
    return { dialect: 'sqlite', path: ':memory:' };
  }
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw);
  // "C:\..." style drive letters are paths, not schemes.
  if (!schemeMatch || /^[a-zA-Z]:[\\/]/.test(raw)) {
    return { dialect: 'sqlite', path: raw };
  }
  const scheme = (schemeMatch[1] ?? '').toLowerCase();
  if (SQLITE_SCHEMES.has(scheme)) {
    return { dialect: 'sqlite', path: sqlitePath(raw, raw.slice(schemeMatch[0].length)) };
  }
  const dialect = NETWORK_SCHEMES[scheme];
  if (dialect === undefined) {
    throw new DatabaseUrlError(
      `invalid database url "${redactSecrets(raw)}": unsupported scheme "${scheme}:" (supported: ${SUPPORTED})`,
    );
  }
  return parseNetworkUrl(raw, dialect);
}

function sqlitePath(raw: string, rest: string): string {
  // Flipt's connection parameters (cache=shared&mode=rwc&_fk=true) are implied; drop them.
  let path = rest.split('?')[0] ?? '';
  if (path.startsWith('//')) {
    // sqlite:///abs/path -> /abs/path; sqlite://relative/path -> relative/path
    path = path.slice(2);
    if (path.startsWith('/')) {
      // keep the absolute path as is
    } else if (path.startsWith('localhost/')) {
      path = path.slice('localhost'.length);
    }
  }
  try {
    path = decodeURIComponent(path);
  } catch {
    throw new DatabaseUrlError(`invalid database url "${raw}": bad percent-encoding in path`);
  }
  if (path === ':memory:' || path === '') {
    if (path === '') {
      throw new DatabaseUrlError(`invalid database url "${raw}": no database file path`);
    }
    return ':memory:';
  }
  return path;
}

function parseNetworkUrl(raw: string, dialect: NetworkDatabaseUrl['dialect']): NetworkDatabaseUrl {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new DatabaseUrlError(`invalid database url "${redactSecrets(raw)}": not a valid URL`);
  }
  const shown = redactSecrets(raw);
  if (parsed.hostname === '') {
    throw new DatabaseUrlError(`invalid database url "${shown}": no host`);
  }
  let port = DEFAULT_PORTS[dialect];
  if (parsed.port !== '') {
    port = Number(parsed.port);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      throw new DatabaseUrlError(`invalid database url "${shown}": bad port`);
    }
  }
  let database: string;
  let username: string;
  let password: string;
  try {
    database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    username = decodeURIComponent(parsed.username);
    password = decodeURIComponent(parsed.password);
  } catch {
    throw new DatabaseUrlError(`invalid database url "${shown}": bad percent-encoding`);
  }
  if (database === '' && dialect === 'cockroachdb') {
    database = 'defaultdb';
  }
  if (database === '' || database.includes('/')) {
    throw new DatabaseUrlError(`invalid database url "${shown}": no database name in the path`);
  }
  const params: Record<string, string> = {};
  parsed.searchParams.forEach((value, key) => {
    params[key] = value;
  });
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { dialect, host, port, username, password, database, params };
}

/** A URL safe to log: the password, if any, is replaced by `***`. */
export function describeDatabaseUrl(parsed: ParsedDatabaseUrl): string {
  if (parsed.dialect === 'sqlite') {
    return `sqlite:${parsed.path}`;
  }
  const user = parsed.username === '' ? '' : `${parsed.username}${parsed.password ? ':***' : ''}@`;
  return `${parsed.dialect}://${user}${parsed.host}:${parsed.port}/${parsed.database}`;
}
