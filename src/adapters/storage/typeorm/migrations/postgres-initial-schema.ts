import type { MigrationInterface, QueryRunner } from 'typeorm';
import { adoptFliptSchema, refuseOnFliptSchema } from './adopt-flipt-schema';
import { DEFAULT_NAMESPACE, seedTimestamp } from './seed-timestamp';

const TS = `TIMESTAMP(6) NOT NULL DEFAULT (now() AT TIME ZONE 'utc')`;

/**
 * The final Flipt v1 schema (reference §11) for PostgreSQL, plus `namespaces.version`.
 * JSON (not JSONB) keeps attachment and metadata text byte for byte, key order included.
 * Also used for CockroachDB with `jsonType` TEXT (CockroachDB's JSON is JSONB).
 */
export function postgresSchema(jsonType: 'JSON' | 'TEXT'): string[] {
  return [
    `CREATE TABLE namespaces (
      "key" VARCHAR(255) PRIMARY KEY,
      name VARCHAR(255) NOT NULL,
      description TEXT NOT NULL,
      protected BOOLEAN NOT NULL DEFAULT FALSE,
      version BIGINT NOT NULL DEFAULT 1,
      created_at ${TS},
      updated_at ${TS},
      state_modified_at TIMESTAMP(6) NULL
    )`,
    `CREATE TABLE flags (
      namespace_key VARCHAR(255) NOT NULL DEFAULT 'default'
        REFERENCES namespaces ("key") ON DELETE CASCADE,
      "key" VARCHAR(255) NOT NULL,
      name VARCHAR(255) NOT NULL,
      description TEXT NOT NULL,
      enabled BOOLEAN NOT NULL DEFAULT FALSE,
      type INTEGER NOT NULL DEFAULT 0,
      default_variant_id VARCHAR(255) NULL,
      metadata ${jsonType} NULL,
      created_at ${TS},
      updated_at ${TS},
      PRIMARY KEY (namespace_key, "key")
    )`,
    `CREATE TABLE variants (
      id VARCHAR(255) PRIMARY KEY,
      namespace_key VARCHAR(255) NOT NULL DEFAULT 'default'
        REFERENCES namespaces ("key") ON DELETE CASCADE,
      flag_key VARCHAR(255) NOT NULL,
      "key" VARCHAR(255) NOT NULL,
      name VARCHAR(255) NOT NULL,
      description TEXT NOT NULL,
      attachment ${jsonType} NULL,
      created_at ${TS},
      updated_at ${TS},
      CONSTRAINT variants_namespace_key_flag_key_key_key UNIQUE (namespace_key, flag_key, "key"),
      FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, "key") ON DELETE CASCADE
    )`,
    `ALTER TABLE flags ADD CONSTRAINT flags_default_variant_id_fkey
      FOREIGN KEY (default_variant_id) REFERENCES variants (id) ON DELETE SET NULL`,
    `CREATE INDEX flags_default_variant_id_idx ON flags (default_variant_id)`,
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
      id VARCHAR(255) PRIMARY KEY,
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
      id VARCHAR(255) PRIMARY KEY,
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
      CONSTRAINT rule_segments_rule_id_namespace_key_segment_key_key
        UNIQUE (rule_id, namespace_key, segment_key),
      FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, "key") ON DELETE RESTRICT
    )`,
    `CREATE INDEX rule_segments_segment_idx ON rule_segments (namespace_key, segment_key)`,
    `CREATE TABLE distributions (
      id VARCHAR(255) PRIMARY KEY,
      rule_id VARCHAR(255) NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
      variant_id VARCHAR(255) NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
      rollout DOUBLE PRECISION NOT NULL DEFAULT 0,
      created_at ${TS},
      updated_at ${TS}
    )`,
    `CREATE INDEX distributions_rule_id_idx ON distributions (rule_id)`,
    `CREATE INDEX distributions_variant_id_idx ON distributions (variant_id)`,
    `CREATE TABLE rollouts (
      id VARCHAR(255) PRIMARY KEY,
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
      id VARCHAR(255) PRIMARY KEY,
      namespace_key VARCHAR(255) NOT NULL DEFAULT 'default'
        REFERENCES namespaces ("key") ON DELETE CASCADE,
      rollout_id VARCHAR(255) UNIQUE NOT NULL REFERENCES rollouts (id) ON DELETE CASCADE,
      percentage DOUBLE PRECISION NOT NULL DEFAULT 0,
      value BOOLEAN NOT NULL DEFAULT FALSE
    )`,
    `CREATE TABLE rollout_segments (
      id VARCHAR(255) PRIMARY KEY,
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
      CONSTRAINT rollout_segment_references_unique
        UNIQUE (rollout_segment_id, namespace_key, segment_key),
      FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, "key") ON DELETE RESTRICT
    )`,
    `CREATE INDEX rollout_segment_references_segment_idx
      ON rollout_segment_references (namespace_key, segment_key)`,
    `CREATE TABLE authentications (
      id VARCHAR(255) PRIMARY KEY,
      hashed_client_token VARCHAR(255) UNIQUE NOT NULL,
      method INTEGER NOT NULL DEFAULT 0,
      metadata TEXT NULL,
      expires_at TIMESTAMP(6) NULL,
      created_at ${TS},
      updated_at ${TS}
    )`,
    // Last version of a deleted namespace, so a re-created one continues above it and a
    // (namespace, version) pair never names two different contents.
    `CREATE TABLE namespace_tombstones (
      "key" VARCHAR(255) PRIMARY KEY,
      version BIGINT NOT NULL
    )`,
    `CREATE TABLE operation_lock (
      operation VARCHAR(255) PRIMARY KEY,
      version INTEGER NOT NULL DEFAULT 0,
      last_acquired_at TIMESTAMP(6) NULL,
      acquired_until TIMESTAMP(6) NULL
    )`,
  ];
}

export const POSTGRES_DROP = [
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

export async function seedDefaultNamespace(queryRunner: QueryRunner, sql: string): Promise<void> {
  const now = seedTimestamp();
  await queryRunner.query(sql, [
    DEFAULT_NAMESPACE.key,
    DEFAULT_NAMESPACE.name,
    DEFAULT_NAMESPACE.description,
    now,
    now,
    now,
  ]);
}

export class PostgresInitialSchema1732147200000 implements MigrationInterface {
  readonly name = 'InitialSchema1732147200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (await adoptFliptSchema(queryRunner, 'postgres')) return;
    for (const statement of postgresSchema('JSON')) {
      await queryRunner.query(statement);
    }
    await seedDefaultNamespace(
      queryRunner,
      `INSERT INTO namespaces ("key", name, description, protected, version, created_at, updated_at, state_modified_at)
       VALUES ($1, $2, $3, TRUE, 1, $4, $5, $6)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await refuseOnFliptSchema(queryRunner, 'postgres');
    await queryRunner.query(
      'ALTER TABLE flags DROP CONSTRAINT IF EXISTS flags_default_variant_id_fkey',
    );
    for (const table of POSTGRES_DROP) {
      await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
