import type { MigrationInterface, QueryRunner } from 'typeorm';
import { adoptFliptSchema, refuseOnFliptSchema } from './adopt-flipt-schema';
import { DEFAULT_NAMESPACE, seedTimestamp } from './seed-timestamp';

const TS = 'DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)';
// utf8mb4_bin: keys compare case- and accent-sensitively, as on PostgreSQL and SQLite.
const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/**
 * The final Flipt v1 schema (reference §11) for MySQL/MariaDB, plus `namespaces.version`.
 * Attachment and metadata are LONGTEXT: MySQL 8's JSON type rewrites the text, MariaDB's is
 * LONGTEXT anyway, and the service validates the JSON before it reaches storage.
 */
const STATEMENTS = [
  `CREATE TABLE namespaces (
    \`key\` VARCHAR(255) NOT NULL PRIMARY KEY,
    name VARCHAR(255) NOT NULL,
    description TEXT NOT NULL,
    protected BOOLEAN NOT NULL DEFAULT FALSE,
    version BIGINT NOT NULL DEFAULT 1,
    created_at ${TS},
    updated_at ${TS},
    state_modified_at DATETIME(6) NULL
  ) ${TABLE}`,
  `CREATE TABLE flags (
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default',
    \`key\` VARCHAR(255) NOT NULL,
    name VARCHAR(255) NOT NULL,
    description TEXT NOT NULL,
    enabled BOOLEAN NOT NULL DEFAULT FALSE,
    type INTEGER NOT NULL DEFAULT 0,
    default_variant_id VARCHAR(255) NULL,
    metadata LONGTEXT NULL,
    created_at ${TS},
    updated_at ${TS},
    PRIMARY KEY (namespace_key, \`key\`),
    KEY flags_default_variant_id_idx (default_variant_id),
    CONSTRAINT flags_namespace_key_fkey FOREIGN KEY (namespace_key)
      REFERENCES namespaces (\`key\`) ON DELETE CASCADE
  ) ${TABLE}`,
  `CREATE TABLE variants (
    id VARCHAR(255) NOT NULL PRIMARY KEY,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default',
    flag_key VARCHAR(255) NOT NULL,
    \`key\` VARCHAR(255) NOT NULL,
    name VARCHAR(255) NOT NULL,
    description TEXT NOT NULL,
    attachment LONGTEXT NULL,
    created_at ${TS},
    updated_at ${TS},
    UNIQUE KEY variants_namespace_key_flag_key_key_key (namespace_key, flag_key, \`key\`),
    CONSTRAINT variants_namespace_key_fkey FOREIGN KEY (namespace_key)
      REFERENCES namespaces (\`key\`) ON DELETE CASCADE,
    CONSTRAINT variants_flag_fkey FOREIGN KEY (namespace_key, flag_key)
      REFERENCES flags (namespace_key, \`key\`) ON DELETE CASCADE
  ) ${TABLE}`,
  `ALTER TABLE flags ADD CONSTRAINT flags_default_variant_id_fkey
    FOREIGN KEY (default_variant_id) REFERENCES variants (id) ON DELETE SET NULL`,
  `CREATE TABLE segments (
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default',
    \`key\` VARCHAR(255) NOT NULL,
    name VARCHAR(255) NOT NULL,
    description TEXT NOT NULL,
    match_type INTEGER NOT NULL DEFAULT 0,
    created_at ${TS},
    updated_at ${TS},
    PRIMARY KEY (namespace_key, \`key\`),
    CONSTRAINT segments_namespace_key_fkey FOREIGN KEY (namespace_key)
      REFERENCES namespaces (\`key\`) ON DELETE CASCADE
  ) ${TABLE}`,
  `CREATE TABLE constraints (
    id VARCHAR(255) NOT NULL PRIMARY KEY,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default',
    segment_key VARCHAR(255) NOT NULL,
    type INTEGER NOT NULL DEFAULT 0,
    property VARCHAR(255) NOT NULL,
    operator VARCHAR(255) NOT NULL,
    value TEXT NOT NULL,
    description TEXT NULL,
    created_at ${TS},
    updated_at ${TS},
    KEY constraints_segment_idx (namespace_key, segment_key),
    CONSTRAINT constraints_segment_fkey FOREIGN KEY (namespace_key, segment_key)
      REFERENCES segments (namespace_key, \`key\`) ON DELETE CASCADE
  ) ${TABLE}`,
  `CREATE TABLE rules (
    id VARCHAR(255) NOT NULL PRIMARY KEY,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default',
    flag_key VARCHAR(255) NOT NULL,
    \`rank\` INTEGER NOT NULL DEFAULT 1,
    segment_operator INTEGER NOT NULL DEFAULT 0,
    created_at ${TS},
    updated_at ${TS},
    KEY rules_flag_idx (namespace_key, flag_key, \`rank\`),
    CONSTRAINT rules_flag_fkey FOREIGN KEY (namespace_key, flag_key)
      REFERENCES flags (namespace_key, \`key\`) ON DELETE CASCADE
  ) ${TABLE}`,
  `CREATE TABLE rule_segments (
    rule_id VARCHAR(255) NOT NULL,
    namespace_key VARCHAR(255) NOT NULL,
    segment_key VARCHAR(255) NOT NULL,
    position INTEGER NOT NULL DEFAULT 0,
    UNIQUE KEY rule_segments_rule_id_namespace_key_segment_key_key (rule_id, namespace_key, segment_key),
    KEY rule_segments_segment_idx (namespace_key, segment_key),
    CONSTRAINT rule_segments_rule_id_fkey FOREIGN KEY (rule_id)
      REFERENCES rules (id) ON DELETE CASCADE,
    CONSTRAINT rule_segments_segment_fkey FOREIGN KEY (namespace_key, segment_key)
      REFERENCES segments (namespace_key, \`key\`) ON DELETE RESTRICT
  ) ${TABLE}`,
  `CREATE TABLE distributions (
    id VARCHAR(255) NOT NULL PRIMARY KEY,
    rule_id VARCHAR(255) NOT NULL,
    variant_id VARCHAR(255) NOT NULL,
    rollout DOUBLE NOT NULL DEFAULT 0,
    created_at ${TS},
    updated_at ${TS},
    CONSTRAINT distributions_rule_id_fkey FOREIGN KEY (rule_id)
      REFERENCES rules (id) ON DELETE CASCADE,
    CONSTRAINT distributions_variant_id_fkey FOREIGN KEY (variant_id)
      REFERENCES variants (id) ON DELETE CASCADE
  ) ${TABLE}`,
  `CREATE TABLE rollouts (
    id VARCHAR(255) NOT NULL PRIMARY KEY,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default',
    flag_key VARCHAR(255) NOT NULL,
    type INTEGER NOT NULL DEFAULT 0,
    description TEXT NOT NULL,
    \`rank\` INTEGER NOT NULL DEFAULT 1,
    created_at ${TS},
    updated_at ${TS},
    KEY rollouts_flag_idx (namespace_key, flag_key, \`rank\`),
    CONSTRAINT rollouts_namespace_key_fkey FOREIGN KEY (namespace_key)
      REFERENCES namespaces (\`key\`) ON DELETE CASCADE,
    CONSTRAINT rollouts_flag_fkey FOREIGN KEY (namespace_key, flag_key)
      REFERENCES flags (namespace_key, \`key\`) ON DELETE CASCADE
  ) ${TABLE}`,
  `CREATE TABLE rollout_thresholds (
    id VARCHAR(255) NOT NULL PRIMARY KEY,
    namespace_key VARCHAR(255) NOT NULL DEFAULT 'default',
    rollout_id VARCHAR(255) NOT NULL,
    percentage DOUBLE NOT NULL DEFAULT 0,
    value BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE KEY rollout_thresholds_rollout_id_key (rollout_id),
    CONSTRAINT rollout_thresholds_namespace_key_fkey FOREIGN KEY (namespace_key)
      REFERENCES namespaces (\`key\`) ON DELETE CASCADE,
    CONSTRAINT rollout_thresholds_rollout_id_fkey FOREIGN KEY (rollout_id)
      REFERENCES rollouts (id) ON DELETE CASCADE
  ) ${TABLE}`,
  `CREATE TABLE rollout_segments (
    id VARCHAR(255) NOT NULL PRIMARY KEY,
    rollout_id VARCHAR(255) NOT NULL,
    value BOOLEAN NOT NULL DEFAULT FALSE,
    segment_operator INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT rollout_segments_rollout_id_fkey FOREIGN KEY (rollout_id)
      REFERENCES rollouts (id) ON DELETE CASCADE
  ) ${TABLE}`,
  `CREATE TABLE rollout_segment_references (
    rollout_segment_id VARCHAR(255) NOT NULL,
    namespace_key VARCHAR(255) NOT NULL,
    segment_key VARCHAR(255) NOT NULL,
    position INTEGER NOT NULL DEFAULT 0,
    UNIQUE KEY rollout_segment_references_unique (rollout_segment_id, namespace_key, segment_key),
    KEY rollout_segment_references_segment_idx (namespace_key, segment_key),
    CONSTRAINT rollout_segment_references_rollout_segment_id_fkey FOREIGN KEY (rollout_segment_id)
      REFERENCES rollout_segments (id) ON DELETE CASCADE,
    CONSTRAINT rollout_segment_references_segment_fkey FOREIGN KEY (namespace_key, segment_key)
      REFERENCES segments (namespace_key, \`key\`) ON DELETE RESTRICT
  ) ${TABLE}`,
  `CREATE TABLE authentications (
    id VARCHAR(255) NOT NULL PRIMARY KEY,
    hashed_client_token VARCHAR(255) NOT NULL,
    method INTEGER NOT NULL DEFAULT 0,
    metadata TEXT NULL,
    expires_at DATETIME(6) NULL,
    created_at ${TS},
    updated_at ${TS},
    UNIQUE KEY authentications_hashed_client_token_key (hashed_client_token)
  ) ${TABLE}`,
  // Last version of a deleted namespace, so a re-created one continues above it and a
  // (namespace, version) pair never names two different contents.
  `CREATE TABLE namespace_tombstones (
    \`key\` VARCHAR(255) NOT NULL PRIMARY KEY,
    version BIGINT NOT NULL
  ) ${TABLE}`,
  `CREATE TABLE operation_lock (
    operation VARCHAR(255) NOT NULL PRIMARY KEY,
    version INTEGER NOT NULL DEFAULT 0,
    last_acquired_at DATETIME(6) NULL,
    acquired_until DATETIME(6) NULL
  ) ${TABLE}`,
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

const toMysqlDatetime = (ts: string): string => ts.replace('T', ' ').replace(/Z$/, '');

export class MysqlInitialSchema1732147200000 implements MigrationInterface {
  readonly name = 'InitialSchema1732147200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (await adoptFliptSchema(queryRunner, 'mysql')) return;
    for (const statement of STATEMENTS) {
      await queryRunner.query(statement);
    }
    const now = toMysqlDatetime(seedTimestamp());
    await queryRunner.query(
      `INSERT INTO namespaces (\`key\`, name, description, protected, version, created_at, updated_at, state_modified_at)
       VALUES (?, ?, ?, TRUE, 1, ?, ?, ?)`,
      [DEFAULT_NAMESPACE.key, DEFAULT_NAMESPACE.name, DEFAULT_NAMESPACE.description, now, now, now],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await refuseOnFliptSchema(queryRunner, 'mysql');
    await queryRunner.query('SET FOREIGN_KEY_CHECKS = 0');
    try {
      for (const table of DROP) {
        await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
      }
    } finally {
      await queryRunner.query('SET FOREIGN_KEY_CHECKS = 1');
    }
  }
}
