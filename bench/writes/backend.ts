/*
 * Where the writes benchmark's server keeps its data: the seeded SQLite file itself, or (with
 * BENCH_BACKEND=postgres) a fresh PostgreSQL database filled from it by `vexil export` and
 * `vexil import`, served with caching on the Redis backend under a prefix of its own.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { ROOT } from '../http/processes';
import { NAMESPACE } from '../scale/seed';

export interface Backend {
  readonly label: string;
  readonly env: NodeJS.ProcessEnv;
  drop(): Promise<void>;
}

const cli = (args: readonly string[], dbUrl: string): void => {
  execFileSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'app', 'cli.js'), ...args], {
    env: { ...process.env, VEXIL_DB_URL: dbUrl, VEXIL_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
    maxBuffer: 1 << 30,
  });
};

async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function prepareBackend(
  name: string,
  work: string,
  seededSqlite: string,
  flags: number,
): Promise<Backend> {
  if (name === 'sqlite') {
    return { label: 'SQLite', env: { VEXIL_DB_URL: `file:${seededSqlite}` }, drop: async () => {} };
  }
  if (name !== 'postgres') throw new Error(`BENCH_BACKEND: sqlite or postgres, not ${name}`);
  const server = process.env['VEXIL_TEST_POSTGRES_URL'];
  const redis = process.env['VEXIL_TEST_REDIS_URL'];
  if (server === undefined || redis === undefined) {
    throw new Error(
      'BENCH_BACKEND=postgres needs VEXIL_TEST_POSTGRES_URL and VEXIL_TEST_REDIS_URL',
    );
  }
  const db = `bench_writes_${process.pid}_${flags}`;
  const url = new URL(server);
  url.pathname = `/${db}`;
  await admin(server, `CREATE DATABASE ${db}`);
  const exported = path.join(work, `export-${flags}.yml`);
  cli(['export', '--namespaces', NAMESPACE, '-o', exported], `file:${seededSqlite}`);
  cli(['import', exported], url.toString());
  return {
    label: 'PostgreSQL + Redis cache',
    env: {
      VEXIL_DB_URL: url.toString(),
      VEXIL_CACHING_ENABLED: 'true',
      VEXIL_CACHING_BACKEND: 'redis',
      VEXIL_CACHING_REDIS_URL: redis,
      VEXIL_CACHING_REDIS_PREFIX: `bench-writes-${process.pid}-${flags}:`,
    },
    drop: () => admin(server, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`),
  };
}
