import type { MigrationInterface, QueryRunner } from 'typeorm';
import { adoptFliptSchema, refuseOnFliptSchema } from './adopt-flipt-schema';
import { DEFAULT_NAMESPACE, seedTimestamp } from './seed-timestamp';

// Timestamps are TEXT in the domain format, which sorts chronologically.
const TS = `TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f000Z', 'now'))`;

/** The final Flipt v1 schema (reference §11) for SQLite, plus `namespaces.version`. */
const STATEMENTS = [
  `CREATE TABLE namespaces (
    "key" VARCHAR(255) PRIMARY KEY NOT NULL,
    name VARCHAR(255) NOT NULL,
    description TEXT NOT NULL,
    protected BOOLEAN NOT NULL DEFAULT FALSE,
    version INTEGER NOT NULL DEFAULT 1,
    created_at ${TS},
    updated_at ${TS},
    state_modified_at TEXT NULL
  )`,
  `CREATE TABLE flags (
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default'
      REFERENCES namespaces ("key") ON DELETE CASCADE,
    "key" VARCHAR(255) NOT NULL,
    name VARCHAR(255) NOT NULL,
    description TEXT NOT NULL,
    enabled BOOLEAN NOT NULL DEFAULT FALSE,
    type INTEGER NOT NULL DEFAULT 0,
    default_variant_id VARCHAR(255) NULL REFERENCES variants (id) ON DELETE SET NULL,
    metadata TEXT NULL,
    created_at ${TS},
    updated_at ${TS},
    PRIMARY KEY (namespace_key, "key")
  )`,
  `CREATE INDEX flags_default_variant_id_idx ON flags (default_variant_id)`,
  `CREATE TABLE variants (
    id VARCHAR(255) PRIMARY KEY NOT NULL,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default'
      REFERENCES namespaces ("key") ON DELETE CASCADE,
    flag_key VARCHAR(255) NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    name VARCHAR(255) NOT NULL,
    description TEXT NOT NULL,
    attachment TEXT NULL,
    created_at ${TS},
    updated_at ${TS},
    UNIQUE (namespace_key, flag_key, "key"),
    FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, "key") ON DELETE CASCADE
  )`,
  `CREATE TABLE segments (
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default'
      REFERENCES namespaces ("key") ON DELETE CASCADE,
    "key" VARCHAR(255) NOT NULL,
    name VARCHAR(255) NOT NULL,
    description TEXT NOT NULL,
    match_type INTEGER NOT NULL DEFAULT 0,
    created_at ${TS},
    updated_at ${TS},
    PRIMARY KEY (namespace_key, "key")
  )`,
  `CREATE TABLE constraints (
    id VARCHAR(255) PRIMARY KEY NOT NULL,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default',
    segment_key VARCHAR(255) NOT NULL,
    type INTEGER NOT NULL DEFAULT 0,
    property VARCHAR(255) NOT NULL,
    operator VARCHAR(255) NOT NULL,
    value TEXT NOT NULL,
    description TEXT NULL,
    created_at ${TS},
    updated_at ${TS},
    FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, "key") ON DELETE CASCADE
  )`,
  `CREATE INDEX constraints_segment_idx ON constraints (namespace_key, segment_key)`,
  `CREATE TABLE rules (
    id VARCHAR(255) PRIMARY KEY NOT NULL,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default',
    flag_key VARCHAR(255) NOT NULL,
    rank INTEGER NOT NULL DEFAULT 1,
    segment_operator INTEGER NOT NULL DEFAULT 0,
    created_at ${TS},
    updated_at ${TS},
    FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, "key") ON DELETE CASCADE
  )`,
  `CREATE INDEX rules_flag_idx ON rules (namespace_key, flag_key, rank)`,
  `CREATE TABLE rule_segments (
    rule_id VARCHAR(255) NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
    namespace_key VARCHAR(255) NOT NULL,
    segment_key VARCHAR(255) NOT NULL,
    position INTEGER NOT NULL DEFAULT 0,
    UNIQUE (rule_id, namespace_key, segment_key),
    FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, "key") ON DELETE RESTRICT
  )`,
  `CREATE INDEX rule_segments_segment_idx ON rule_segments (namespace_key, segment_key)`,
  `CREATE TABLE distributions (
    id VARCHAR(255) PRIMARY KEY NOT NULL,
    rule_id VARCHAR(255) NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
    variant_id VARCHAR(255) NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
    rollout REAL NOT NULL DEFAULT 0,
    created_at ${TS},
    updated_at ${TS}
  )`,
  `CREATE INDEX distributions_rule_id_idx ON distributions (rule_id)`,
  `CREATE INDEX distributions_variant_id_idx ON distributions (variant_id)`,
  `CREATE TABLE rollouts (
    id VARCHAR(255) PRIMARY KEY NOT NULL,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default'
      REFERENCES namespaces ("key") ON DELETE CASCADE,
    flag_key VARCHAR(255) NOT NULL,
    type INTEGER NOT NULL DEFAULT 0,
    description TEXT NOT NULL,
    rank INTEGER NOT NULL DEFAULT 1,
    created_at ${TS},
    updated_at ${TS},
    FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, "key") ON DELETE CASCADE
  )`,
  `CREATE INDEX rollouts_flag_idx ON rollouts (namespace_key, flag_key, rank)`,
  `CREATE TABLE rollout_thresholds (
    id VARCHAR(255) PRIMARY KEY NOT NULL,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default'
      REFERENCES namespaces ("key") ON DELETE CASCADE,
    rollout_id VARCHAR(255) UNIQUE NOT NULL REFERENCES rollouts (id) ON DELETE CASCADE,
    percentage REAL NOT NULL DEFAULT 0,
    value BOOLEAN NOT NULL DEFAULT FALSE
  )`,
  `CREATE TABLE rollout_segments (
    id VARCHAR(255) PRIMARY KEY NOT NULL,
    rollout_id VARCHAR(255) NOT NULL REFERENCES rollouts (id) ON DELETE CASCADE,
    value BOOLEAN NOT NULL DEFAULT FALSE,
    segment_operator INTEGER NOT NULL DEFAULT 0
  )`,
  `CREATE INDEX rollout_segments_rollout_id_idx ON rollout_segments (rollout_id)`,
  `CREATE TABLE rollout_segment_references (
    rollout_segment_id VARCHAR(255) NOT NULL REFERENCES rollout_segments (id) ON DELETE CASCADE,
    namespace_key VARCHAR(255) NOT NULL,
    segment_key VARCHAR(255) NOT NULL,
    position INTEGER NOT NULL DEFAULT 0,
    UNIQUE (rollout_segment_id, namespace_key, segment_key),
    FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, "key") ON DELETE RESTRICT
  )`,
  `CREATE INDEX rollout_segment_references_segment_idx
    ON rollout_segment_references (namespace_key, segment_key)`,
  `CREATE TABLE authentications (
    id VARCHAR(255) PRIMARY KEY NOT NULL,
    hashed_client_token VARCHAR(255) UNIQUE NOT NULL,
    method INTEGER NOT NULL DEFAULT 0,
    metadata TEXT NULL,
    expires_at TEXT NULL,
    created_at ${TS},
    updated_at ${TS}
  )`,
  // Last version of a deleted namespace, so a re-created one continues above it and a
  // (namespace, version) pair never names two different contents.
  `CREATE TABLE namespace_tombstones (
    "key" VARCHAR(255) PRIMARY KEY NOT NULL,
    version INTEGER NOT NULL
  )`,
  `CREATE TABLE operation_lock (
    operation VARCHAR(255) PRIMARY KEY NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    last_acquired_at TEXT NULL,
    acquired_until TEXT NULL
  )`,
];

const DROP = [
  'rollout_segment_references',
  'rollout_segments',
  'rollout_thresholds',
  'rollouts',
  'distributions',
  'rule_segments',
  'rules',
  'constraints',
  'segments',
  'variants',
  'flags',
  'namespaces',
  'authentications',
  'operation_lock',
  'namespace_tombstones',
];

export class SqliteInitialSchema1732147200000 implements MigrationInterface {
  readonly name = 'InitialSchema1732147200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (await adoptFliptSchema(queryRunner, 'sqlite')) return;
    for (const statement of STATEMENTS) {
      await queryRunner.query(statement);
    }
    const now = seedTimestamp();
    await queryRunner.query(
      `INSERT INTO namespaces ("key", name, description, protected, version, created_at, updated_at, state_modified_at)
       VALUES (?, ?, ?, 1, 1, ?, ?, ?)`,
      [DEFAULT_NAMESPACE.key, DEFAULT_NAMESPACE.name, DEFAULT_NAMESPACE.description, now, now, now],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await refuseOnFliptSchema(queryRunner, 'sqlite');
    for (const table of DROP) {
      await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
