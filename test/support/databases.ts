import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createConnection } from 'mysql2/promise';

/*
 * Which databases the tests run on. SQLite always; PostgreSQL, MySQL and Redis when their
 * URL is set (scripts/test-dbs.sh starts throwaway servers and prints the variables):
 *
 *   VEXIL_TEST_POSTGRES_URL=postgres://vexil:vexil@127.0.0.1:25432/vexil_test?sslmode=disable
 *   VEXIL_TEST_MYSQL_URL=mysql://vexil:vexil@127.0.0.1:23306/vexil_test
 *   VEXIL_TEST_REDIS_URL=redis://127.0.0.1:26379/0
 *
 * VEXIL_TEST_REQUIRE=sqlite,postgres,mysql,redis (CI) makes a listed backend whose URL is
 * missing or whose server is unreachable fail its tests instead of being left out.
 */

export type SqlBackendName = 'sqlite' | 'postgres' | 'mysql';
export type BackendName = SqlBackendName | 'redis';

export interface Backend<N extends BackendName = BackendName> {
  readonly name: N;
  /** The server URL, or '' when the backend is required but its variable is not set. */
  readonly url: string;
}
export type SqlBackend = Backend<SqlBackendName>;

export const BACKEND_ENV: Readonly<Record<Exclude<BackendName, 'sqlite'>, string>> = {
  postgres: 'VEXIL_TEST_POSTGRES_URL',
  mysql: 'VEXIL_TEST_MYSQL_URL',
  redis: 'VEXIL_TEST_REDIS_URL',
};
const KNOWN: readonly BackendName[] = ['sqlite', 'postgres', 'mysql', 'redis'];

/** Backends listed in VEXIL_TEST_REQUIRE. An unknown name is an error, not a silent no-op. */
export function requiredBackends(): ReadonlySet<BackendName> {
  const raw = process.env['VEXIL_TEST_REQUIRE'] ?? '';
  const names = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  for (const name of names) {
    if (!KNOWN.includes(name as BackendName)) {
      throw new Error(`VEXIL_TEST_REQUIRE: unknown backend "${name}" (known: ${KNOWN.join(', ')})`);
    }
  }
  return new Set(names as BackendName[]);
}

function backend<N extends Exclude<BackendName, 'sqlite'>>(name: N): Backend<N> | undefined {
  const url = process.env[BACKEND_ENV[name]]?.trim() ?? '';
  if (url !== '' || requiredBackends().has(name)) return { name, url };
  return undefined;
}

/** SQL backends to run storage tests on; required-but-unset ones come with url ''. */
export function enabledSqlBackends(): SqlBackend[] {
  const list: SqlBackend[] = [{ name: 'sqlite', url: 'sqlite' }];
  for (const name of ['postgres', 'mysql'] as const) {
    const b = backend(name);
    if (b) list.push(b);
  }
  return list;
}

/** The Redis backend when enabled (url '' when required but unset; see requireUrl). */
export function enabledRedisBackend(): Backend<'redis'> | undefined {
  return backend('redis');
}

/** The backend's URL, or a clear failure when it is required and not configured. */
export function requireUrl(b: Backend): string {
  if (b.name === 'sqlite') return b.url;
  if (b.url === '') {
    throw new Error(
      `${b.name} is listed in VEXIL_TEST_REQUIRE but ${BACKEND_ENV[b.name]} is not set ` +
        `(run: bash scripts/test-dbs.sh start; eval "$(bash scripts/test-dbs.sh env)")`,
    );
  }
  return b.url;
}

const redact = (url: string): string => url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');

/** A database of its own for one test file, so files can run in parallel. */
export interface IsolatedDatabase {
  readonly backend: SqlBackendName;
  /** A `db.url` for the store: `file:` path, or a server URL naming the new database. */
  readonly url: string;
  /** Removes the database (and for SQLite its directory). */
  drop(): Promise<void>;
}

function uniqueName(label: string): string {
  const safe = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 20);
  return `vexil_t_${safe}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export async function createIsolatedDatabase(
  b: SqlBackend,
  label = 'test',
): Promise<IsolatedDatabase> {
  const serverUrl = requireUrl(b);
  const name = uniqueName(label);
  if (b.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'vexil-sqlite-'));
    return {
      backend: 'sqlite',
      url: `file:${join(dir, `${name}.db`)}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const envName = BACKEND_ENV[b.name];
  const admin = new URL(serverUrl);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${name}`;
  const fail = (err: unknown): never => {
    throw new Error(
      `${b.name} test server unreachable at ${redact(serverUrl)} (${envName}): ` +
        `${err instanceof Error ? err.message || String(err) : String(err)}`,
    );
  };
  if (b.name === 'postgres') {
    const run = async (sql: string): Promise<void> => {
      const client = new Client({
        connectionString: admin.toString(),
        connectionTimeoutMillis: 5000,
      });
      await client.connect().catch(fail);
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    await run(`CREATE DATABASE ${name}`);
    return {
      backend: 'postgres',
      url: dbUrl.toString(),
      drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  const run = async (sql: string): Promise<void> => {
    const conn = await createConnection({
      host: admin.hostname,
      port: Number(admin.port || 3306),
      user: decodeURIComponent(admin.username),
      password: decodeURIComponent(admin.password),
      connectTimeout: 5000,
    }).catch(fail);
    try {
      await conn.query(sql);
    } finally {
      await conn.end();
    }
  };
  await run(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  return {
    backend: 'mysql',
    url: dbUrl.toString(),
    drop: () => run(`DROP DATABASE IF EXISTS \`${name}\``),
  };
}
