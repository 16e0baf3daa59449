import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { createConnection } from 'mysql2/promise';
import {
  createIsolatedDatabase,
  type IsolatedDatabase,
  type SqlBackend,
  type SqlBackendName,
} from './databases';

/*
 * A database as Flipt v1.61 leaves it: its final schema (test/fixtures/flipt-schema, from
 * Flipt's migration files), golang-migrate's schema_migrations row, and rows written the way
 * Flipt's SQL store writes them (UTC timestamps with microseconds in each driver's text form,
 * booleans as each driver sends them, JSON as text, enums as proto numbers).
 */

export type Row = Record<string, unknown>;

/** Runs SQL on a Flipt fixture database with the plain driver, outside Vexil. */
export interface RawDatabase {
  exec(sql: string): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

interface SqliteHandle {
  exec(sql: string): void;
  prepare(sql: string): { all(...params: unknown[]): Row[]; run(...params: unknown[]): unknown };
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sqlite = require('better-sqlite3') as new (path: string) => SqliteHandle;

export async function openRaw(backend: SqlBackendName, url: string): Promise<RawDatabase> {
  if (backend === 'sqlite') {
    const db = new Sqlite(url.replace(/^file:/, ''));
    db.exec('PRAGMA foreign_keys = ON');
    return {
      exec: async (sql) => db.exec(sql),
      query: async (sql, params = []) => {
        const statement = db.prepare(sql);
        return /^\s*(SELECT|PRAGMA)/i.test(sql)
          ? statement.all(...params)
          : (statement.run(...params), []);
      },
      close: async () => db.close(),
    };
  }
  if (backend === 'postgres') {
    const client = new Client({ connectionString: url });
    await client.connect();
    return {
      exec: async (sql) => {
        await client.query(sql);
      },
      query: async (sql, params = []) => {
        let n = 0;
        return (
          await client.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows as Row[];
      },
      close: () => client.end(),
    };
  }
  const u = new URL(url);
  const conn = await createConnection({
    host: u.hostname,
    port: Number(u.port),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.slice(1),
    multipleStatements: true,
    dateStrings: true,
  });
  return {
    exec: async (sql) => {
      await conn.query(sql);
    },
    query: async (sql, params = []) => {
      const [rows] = await conn.query(sql, params);
      return Array.isArray(rows) ? (rows as Row[]) : [];
    },
    close: () => conn.end(),
  };
}

export const fliptSchemaSql = (backend: SqlBackendName): string =>
  readFileSync(join(__dirname, '../fixtures/flipt-schema', backend, 'schema.sql'), 'utf8');

/** A client token as Flipt issues it, and the hash Flipt stores for it. */
export const FLIPT_TOKEN = 'kJd1Zt3oQ2sNmWq8bY6cR4vX0uE7pL9hA5gF2jK8wT0=';
const hashToken = (token: string): string =>
  createHash('sha256').update(token).digest('base64').replace(/\+/g, '-').replace(/\//g, '_');

/** Timestamp number n as Flipt's driver for the backend writes a UTC time with microseconds. */
function fliptTime(backend: SqlBackendName, n: number): string {
  const second = String(n % 60).padStart(2, '0');
  // Go drops trailing zeros of the fraction (and the dot of a zero fraction) on SQLite.
  const fraction = n % 3 === 0 ? '500000' : String(123456 + n * 1111);
  const base = `2024-05-01 09:${String(10 + Math.floor(n / 60)).padStart(2, '0')}:${second}`;
  if (backend !== 'sqlite') return `${base}.${fraction}`;
  const trimmed = fraction.replace(/0+$/, '');
  return `${base}${trimmed === '' ? '' : `.${trimmed}`}+00:00`;
}

/** The rows Flipt would have written for the configuration described in the tests. */
function fliptRows(backend: SqlBackendName): Array<[string, Row]> {
  const b = (v: boolean): unknown => (backend === 'postgres' ? v : v ? 1 : 0);
  let clock = 0;
  const stamp = (): Row => {
    const t = fliptTime(backend, ++clock);
    return { created_at: t, updated_at: t };
  };
  const segment = (ns: string, key: string, matchType: number): [string, Row] => [
    'segments',
    { namespace_key: ns, key, name: key, description: '', match_type: matchType, ...stamp() },
  ];
  const constraint = (
    id: string,
    segmentKey: string,
    type: number,
    property: string,
    operator: string,
    value: string,
  ): [string, Row] => [
    'constraints',
    {
      id,
      namespace_key: 'default',
      segment_key: segmentKey,
      type,
      property,
      operator,
      value,
      description: '',
      ...stamp(),
    },
  ];
  const flag = (ns: string, key: string, type: number, enabled: boolean, extra: Row = {}) =>
    [
      'flags',
      {
        namespace_key: ns,
        key,
        name: key,
        description: '',
        enabled: b(enabled),
        type,
        ...stamp(),
        ...extra,
      },
    ] as [string, Row];
  const variant = (
    id: string,
    ns: string,
    flagKey: string,
    key: string,
    attachment: string | null,
  ) =>
    [
      'variants',
      {
        id,
        namespace_key: ns,
        flag_key: flagKey,
        key,
        name: key,
        description: '',
        attachment,
        ...stamp(),
      },
    ] as [string, Row];
  const rule = (id: string, ns: string, flagKey: string, rank: number, op: number) =>
    [
      'rules',
      { id, namespace_key: ns, flag_key: flagKey, rank, segment_operator: op, ...stamp() },
    ] as [string, Row];
  const ruleSegment = (ruleId: string, ns: string, segmentKey: string): [string, Row] => [
    'rule_segments',
    { rule_id: ruleId, namespace_key: ns, segment_key: segmentKey },
  ];
  const distribution = (id: string, ruleId: string, variantId: string, rollout: number) =>
    ['distributions', { id, rule_id: ruleId, variant_id: variantId, rollout, ...stamp() }] as [
      string,
      Row,
    ];
  const team = fliptTime(backend, 0);
  return [
    [
      'namespaces',
      {
        key: 'team',
        name: 'Team',
        description: 'the team',
        protected: b(false),
        created_at: team,
        updated_at: team,
        state_modified_at: team,
      },
    ],
    segment('default', 'users', 0),
    constraint('c0000000-0000-4000-8000-000000000001', 'users', 1, 'plan', 'eq', 'pro'),
    constraint('c0000000-0000-4000-8000-000000000002', 'users', 2, 'age', 'gte', '18'),
    segment('default', 'beta', 1),
    constraint('c0000000-0000-4000-8000-000000000003', 'beta', 3, 'beta', 'true', ''),
    constraint(
      'c0000000-0000-4000-8000-000000000004',
      'beta',
      5,
      'entityId',
      'isoneof',
      '["u-7","u-8"]',
    ),
    constraint(
      'c0000000-0000-4000-8000-000000000005',
      'beta',
      4,
      'signup',
      'lt',
      '2024-01-01T00:00:00Z',
    ),
    segment('default', 'everyone', 0),
    segment('team', 'everyone', 0),
    flag('default', 'checkout', 0, true, { metadata: '{"team":"web"}' }),
    variant(
      'a0000000-0000-4000-8000-000000000001',
      'default',
      'checkout',
      'blue',
      '{"n":1,"color":"blue"}',
    ),
    variant('a0000000-0000-4000-8000-000000000002', 'default', 'checkout', 'green', null),
    rule('b0000000-0000-4000-8000-000000000001', 'default', 'checkout', 1, 0),
    ruleSegment('b0000000-0000-4000-8000-000000000001', 'default', 'users'),
    distribution(
      'd0000000-0000-4000-8000-000000000001',
      'b0000000-0000-4000-8000-000000000001',
      'a0000000-0000-4000-8000-000000000001',
      100,
    ),
    rule('b0000000-0000-4000-8000-000000000002', 'default', 'checkout', 2, 1),
    ruleSegment('b0000000-0000-4000-8000-000000000002', 'default', 'everyone'),
    ruleSegment('b0000000-0000-4000-8000-000000000002', 'default', 'beta'),
    distribution(
      'd0000000-0000-4000-8000-000000000002',
      'b0000000-0000-4000-8000-000000000002',
      'a0000000-0000-4000-8000-000000000001',
      30,
    ),
    distribution(
      'd0000000-0000-4000-8000-000000000003',
      'b0000000-0000-4000-8000-000000000002',
      'a0000000-0000-4000-8000-000000000002',
      70,
    ),
    flag('default', 'banner', 0, false),
    variant('a0000000-0000-4000-8000-000000000003', 'default', 'banner', 'on', null),
    flag('default', 'dark-mode', 1, false),
    [
      'rollouts',
      {
        id: 'e0000000-0000-4000-8000-000000000001',
        namespace_key: 'default',
        flag_key: 'dark-mode',
        type: 1,
        description: 'beta testers',
        rank: 1,
        ...stamp(),
      },
    ],
    [
      'rollout_segments',
      {
        id: 'f0000000-0000-4000-8000-000000000001',
        rollout_id: 'e0000000-0000-4000-8000-000000000001',
        value: b(true),
        segment_operator: 0,
      },
    ],
    [
      'rollout_segment_references',
      {
        rollout_segment_id: 'f0000000-0000-4000-8000-000000000001',
        namespace_key: 'default',
        segment_key: 'beta',
      },
    ],
    [
      'rollouts',
      {
        id: 'e0000000-0000-4000-8000-000000000002',
        namespace_key: 'default',
        flag_key: 'dark-mode',
        type: 2,
        description: '',
        rank: 2,
        ...stamp(),
      },
    ],
    [
      'rollout_thresholds',
      {
        id: 'f1000000-0000-4000-8000-000000000001',
        namespace_key: 'default',
        rollout_id: 'e0000000-0000-4000-8000-000000000002',
        percentage: 50,
        value: b(true),
      },
    ],
    flag('default', 'kill-switch', 1, true),
    flag('team', 'search', 0, true),
    variant('a0000000-0000-4000-8000-000000000004', 'team', 'search', 'new', null),
    rule('b0000000-0000-4000-8000-000000000003', 'team', 'search', 1, 0),
    ruleSegment('b0000000-0000-4000-8000-000000000003', 'team', 'everyone'),
    distribution(
      'd0000000-0000-4000-8000-000000000004',
      'b0000000-0000-4000-8000-000000000003',
      'a0000000-0000-4000-8000-000000000004',
      100,
    ),
    [
      'authentications',
      {
        id: '90000000-0000-4000-8000-000000000001',
        hashed_client_token: hashToken(FLIPT_TOKEN),
        method: 1,
        metadata:
          '{"io.flipt.auth.token.description":"made by Flipt","io.flipt.auth.token.name":"ci"}',
        expires_at: null,
        ...stamp(),
      },
    ],
  ];
}

const quote = (backend: SqlBackendName, name: string): string =>
  backend === 'mysql' ? `\`${name}\`` : `"${name}"`;

export interface FliptDatabaseOptions {
  /** golang-migrate's row; Vexil reads only `dirty`. */
  readonly migration?: { readonly version: number; readonly dirty: boolean };
  /** SQL run after the schema, to make an older or damaged Flipt schema. */
  readonly alter?: string;
}

/** A new database holding Flipt v1.61's schema and the rows Flipt wrote for the test setup. */
export async function createFliptDatabase(
  backend: SqlBackend,
  label: string,
  options: FliptDatabaseOptions = {},
): Promise<IsolatedDatabase> {
  const db = await createIsolatedDatabase(backend, label);
  const raw = await openRaw(backend.name, db.url);
  try {
    // Flipt's tables take the server's default collation, commonly a case-insensitive one.
    if (backend.name === 'mysql') {
      await raw.exec('ALTER DATABASE CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci');
    }
    await raw.exec(fliptSchemaSql(backend.name));
    const migration = options.migration ?? { version: 16, dirty: false };
    await raw.query('INSERT INTO schema_migrations (version, dirty) VALUES (?, ?)', [
      migration.version,
      backend.name === 'postgres' ? migration.dirty : migration.dirty ? 1 : 0,
    ]);
    for (const [table, row] of fliptRows(backend.name)) {
      const columns = Object.keys(row);
      await raw.query(
        `INSERT INTO ${table} (${columns.map((c) => quote(backend.name, c)).join(', ')}) ` +
          `VALUES (${columns.map(() => '?').join(', ')})`,
        Object.values(row),
      );
    }
    // Flipt sets a default variant by updating the flag once the variant exists.
    for (const [flagKey, variantId] of [
      ['checkout', 'a0000000-0000-4000-8000-000000000002'],
      ['banner', 'a0000000-0000-4000-8000-000000000003'],
    ]) {
      await raw.query(
        `UPDATE flags SET default_variant_id = ? WHERE namespace_key = 'default' AND ${quote(backend.name, 'key')} = ?`,
        [variantId, flagKey],
      );
    }
    if (options.alter) await raw.exec(options.alter);
  } finally {
    await raw.close();
  }
  return db;
}

/** Column name -> declared type, nullability and default, per table. */
export async function describeTables(
  backend: SqlBackendName,
  raw: RawDatabase,
  tables: readonly string[],
): Promise<Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, string>> = {};
  for (const table of tables) {
    const columns: Record<string, string> = {};
    if (backend === 'sqlite') {
      for (const c of await raw.query(`PRAGMA table_info("${table}")`)) {
        columns[String(c['name'])] =
          `${String(c['type'])} notnull=${String(c['notnull'])} default=${String(c['dflt_value'])}`;
      }
    } else {
      const rows = await raw.query(
        backend === 'postgres'
          ? `SELECT column_name AS c, data_type AS t, is_nullable AS n, column_default AS d
             FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`
          : `SELECT column_name AS c, column_type AS t, is_nullable AS n, column_default AS d
             FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?`,
        [table],
      );
      for (const c of rows) {
        columns[String(c['c'])] =
          `${String(c['t'])} nullable=${String(c['n'])} default=${String(c['d'])}`;
      }
    }
    out[table] = columns;
  }
  return out;
}
