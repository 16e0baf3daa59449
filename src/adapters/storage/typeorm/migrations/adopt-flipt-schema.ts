import type { QueryRunner } from 'typeorm';
import type { DatabaseDialect } from '../database-url';
import { FliptSchemaError } from '../storage-errors';

/*
 * A database that Flipt v1 created and migrated (golang-migrate's `schema_migrations` table) is
 * taken over in place: Vexil adds only what it needs beside Flipt's schema and changes nothing of
 * Flipt's, so Flipt v1.61 can be started on the database again. Flipt's queries name their
 * columns, so an added column with a default is invisible to it, and an added table or index
 * is ignored. `schema_migrations` is only read.
 */

/** Flipt v1.61's tables and columns (reference §11), all of which Vexil reads or writes. */
export const FLIPT_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  namespaces: [
    'key',
    'name',
    'description',
    'protected',
    'created_at',
    'updated_at',
    'state_modified_at',
  ],
  flags: [
    'namespace_key',
    'key',
    'name',
    'description',
    'enabled',
    'type',
    'default_variant_id',
    'metadata',
    'created_at',
    'updated_at',
  ],
  variants: [
    'id',
    'namespace_key',
    'flag_key',
    'key',
    'name',
    'description',
    'attachment',
    'created_at',
    'updated_at',
  ],
  segments: [
    'namespace_key',
    'key',
    'name',
    'description',
    'match_type',
    'created_at',
    'updated_at',
  ],
  constraints: [
    'id',
    'namespace_key',
    'segment_key',
    'type',
    'property',
    'operator',
    'value',
    'description',
    'created_at',
    'updated_at',
  ],
  rules: [
    'id',
    'namespace_key',
    'flag_key',
    'rank',
    'segment_operator',
    'created_at',
    'updated_at',
  ],
  rule_segments: ['rule_id', 'namespace_key', 'segment_key'],
  distributions: ['id', 'rule_id', 'variant_id', 'rollout', 'created_at', 'updated_at'],
  rollouts: [
    'id',
    'namespace_key',
    'flag_key',
    'type',
    'description',
    'rank',
    'created_at',
    'updated_at',
  ],
  rollout_thresholds: ['id', 'namespace_key', 'rollout_id', 'percentage', 'value'],
  rollout_segments: ['id', 'rollout_id', 'value', 'segment_operator'],
  rollout_segment_references: ['rollout_segment_id', 'namespace_key', 'segment_key'],
  authentications: [
    'id',
    'hashed_client_token',
    'method',
    'metadata',
    'expires_at',
    'created_at',
    'updated_at',
  ],
  operation_lock: ['operation', 'version', 'last_acquired_at', 'acquired_until'],
};

interface Addition {
  /** `table.column`, or `table` for a whole table: skipped when the database has it. */
  readonly what: string;
  readonly sql: string;
}

const SQL_INDEXES = [
  'flags_default_variant_id_idx ON flags (default_variant_id)',
  'constraints_segment_idx ON constraints (namespace_key, segment_key)',
  'rules_flag_idx ON rules (namespace_key, flag_key, "rank")',
  'rule_segments_segment_idx ON rule_segments (namespace_key, segment_key)',
  'distributions_rule_id_idx ON distributions (rule_id)',
  'distributions_variant_id_idx ON distributions (variant_id)',
  'rollouts_flag_idx ON rollouts (namespace_key, flag_key, "rank")',
  'rollout_segments_rollout_id_idx ON rollout_segments (rollout_id)',
  'rollout_segment_references_segment_idx ON rollout_segment_references (namespace_key, segment_key)',
].map((index) => `CREATE INDEX IF NOT EXISTS ${index}`);

function additions(dialect: DatabaseDialect): Addition[] {
  const version = dialect === 'sqlite' ? 'INTEGER' : 'BIGINT';
  // The database's own character set and collation, as Flipt's tables have: namespace keys
  // then compare alike in both tables.
  const tableSuffix = dialect === 'mysql' ? ' ENGINE=InnoDB' : '';
  const q = (name: string): string => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const list: Addition[] = [
    {
      what: 'namespaces.version',
      sql: `ALTER TABLE namespaces ADD COLUMN ${q('version')} ${version} NOT NULL DEFAULT 1`,
    },
    {
      what: 'rule_segments.position',
      sql: `ALTER TABLE rule_segments ADD COLUMN position INTEGER NOT NULL DEFAULT 0`,
    },
    {
      what: 'rollout_segment_references.position',
      sql: `ALTER TABLE rollout_segment_references ADD COLUMN position INTEGER NOT NULL DEFAULT 0`,
    },
    {
      what: 'namespace_tombstones',
      sql: `CREATE TABLE namespace_tombstones (
        ${q('key')} VARCHAR(255) NOT NULL PRIMARY KEY,
        ${q('version')} ${version} NOT NULL
      )${tableSuffix}`,
    },
  ];
  // MySQL indexes every foreign key itself and has no CREATE INDEX IF NOT EXISTS.
  if (dialect !== 'mysql') {
    for (const sql of SQL_INDEXES) list.push({ what: '', sql });
  }
  return list;
}

function columnsQuery(dialect: DatabaseDialect): string {
  switch (dialect) {
    case 'sqlite':
      return `SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p
              WHERE m.type = 'table'`;
    case 'mysql':
      return `SELECT table_name AS t, column_name AS c FROM information_schema.columns
              WHERE table_schema = DATABASE()`;
    case 'postgres':
    case 'cockroachdb':
      return `SELECT table_name AS t, column_name AS c FROM information_schema.columns
              WHERE table_schema = current_schema()`;
  }
}

/** `table` and `table.column` for every column of the database's current schema. */
async function schemaOf(runner: QueryRunner, dialect: DatabaseDialect): Promise<Set<string>> {
  const rows = (await runner.query(columnsQuery(dialect))) as Array<Record<string, unknown>>;
  const names = new Set<string>();
  for (const row of rows) {
    // MySQL 8 may hand the aliases back upper-cased.
    const table = String(row['t'] ?? row['T']).toLowerCase();
    const column = String(row['c'] ?? row['C']).toLowerCase();
    names.add(table);
    names.add(`${table}.${column}`);
  }
  return names;
}

const truthy = (v: unknown): boolean =>
  v === true ||
  v === 1 ||
  v === '1' ||
  v === 't' ||
  v === 'true' ||
  (Buffer.isBuffer(v) && v[0] === 1);

/**
 * When the database is Flipt's, brings it to Vexil's schema by additions only and returns true;
 * returns false when there is no Flipt schema to adopt (the caller creates Vexil's own).
 * Throws FliptSchemaError for a Flipt database Vexil cannot take over as it is.
 */
export async function adoptFliptSchema(
  runner: QueryRunner,
  dialect: DatabaseDialect,
): Promise<boolean> {
  const schema = await schemaOf(runner, dialect);
  if (!schema.has('schema_migrations')) return false;
  const rows = (await runner.query('SELECT version, dirty FROM schema_migrations')) as Array<
    Record<string, unknown>
  >;
  const versions = rows.map((r) => String(r['version'])).join(', ') || 'none';
  if (rows.some((r) => truthy(r['dirty']))) {
    throw new FliptSchemaError(
      `the database's Flipt migrations stopped half-way (schema_migrations version ${versions} ` +
        'is marked dirty): let Flipt v1.61 repair and finish them (flipt migrate) before Vexil ' +
        'takes the database over',
    );
  }
  const missing = Object.entries(FLIPT_COLUMNS).flatMap(([table, columns]) =>
    schema.has(table)
      ? columns.filter((c) => !schema.has(`${table}.${c}`)).map((c) => `${table}.${c}`)
      : [table],
  );
  if (missing.length > 0) {
    throw new FliptSchemaError(
      `the database has Flipt's schema_migrations (version ${versions}) but not Flipt ` +
        `v1.61's schema (missing: ${missing.join(', ')}): run Flipt v1.61 on it once ` +
        '(flipt migrate) so that its migrations finish, then start Vexil',
    );
  }
  for (const addition of additions(dialect)) {
    if (addition.what !== '' && schema.has(addition.what)) continue;
    await runner.query(addition.sql);
  }
  return true;
}

/** Undoing Vexil's first migration drops every table: never on a database that is Flipt's. */
export async function refuseOnFliptSchema(
  runner: QueryRunner,
  dialect: DatabaseDialect,
): Promise<void> {
  if ((await schemaOf(runner, dialect)).has('schema_migrations')) {
    throw new FliptSchemaError(
      "the database is Flipt's (it has schema_migrations): Vexil's first migration is not " +
        "undone on it, since that would drop Flipt's tables",
    );
  }
}
