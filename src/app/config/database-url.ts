export type DatabaseKind = 'sqlite' | 'postgres' | 'mysql' | 'cockroachdb';

const SCHEMES: Record<string, DatabaseKind> = {
  file: 'sqlite',
  sqlite: 'sqlite',
  sqlite3: 'sqlite',
  postgres: 'postgres',
  postgresql: 'postgres',
  mysql: 'mysql',
  cockroach: 'cockroachdb',
  cockroachdb: 'cockroachdb',
  crdb: 'cockroachdb',
};

/**
 * Checks the shape of db.url and says which database it names. A value without a
 * scheme is a SQLite file path. Throws a one-line reason for anything else.
 */
export function checkDatabaseUrl(url: string): DatabaseKind {
  if (url.trim() === '') throw new Error('must not be empty');
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  if (!m || m[1] === undefined || /^[a-zA-Z]:[\\/]/.test(url)) return 'sqlite';
  const kind = SCHEMES[m[1].toLowerCase()];
  if (kind === undefined) {
    throw new Error(`unsupported database scheme "${m[1]}:" (use file:, sqlite:, postgres://, mysql:// or cockroach://)`);
  }
  if (kind === 'sqlite') {
    if (url.slice(m[0].length).replace(/^\/\/\/?/, '/').split('?')[0] === '') {
      throw new Error('names no database file');
    }
    return kind;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`is not a valid ${kind} URL`);
  }
  if (parsed.hostname === '') throw new Error(`${kind} URL has no host`);
  if (parsed.pathname.replace(/^\//, '') === '' && kind !== 'cockroachdb') {
    throw new Error(`${kind} URL names no database`);
  }
  return kind;
}

/** The URL with any password replaced, safe to log. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)([^@]*)@/, '$1***@');
}
