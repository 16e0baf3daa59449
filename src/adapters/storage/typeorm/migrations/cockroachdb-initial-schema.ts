import type { MigrationInterface, QueryRunner } from 'typeorm';
import { adoptFliptSchema, refuseOnFliptSchema } from './adopt-flipt-schema';
import { POSTGRES_DROP, postgresSchema, seedDefaultNamespace } from './postgres-initial-schema';

/**
 * CockroachDB speaks the PostgreSQL dialect; its JSON type is JSONB (which reorders keys), so the
 * JSON text columns are TEXT here. Untested: no CockroachDB server runs in our CI.
 */
export class CockroachdbInitialSchema1732147200000 implements MigrationInterface {
  readonly name = 'InitialSchema1732147200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (await adoptFliptSchema(queryRunner, 'cockroachdb')) return;
    for (const statement of postgresSchema('TEXT')) {
      await queryRunner.query(statement);
    }
    await seedDefaultNamespace(
      queryRunner,
      `INSERT INTO namespaces ("key", name, description, protected, version, created_at, updated_at, state_modified_at)
       VALUES ($1, $2, $3, TRUE, 1, $4, $5, $6)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await refuseOnFliptSchema(queryRunner, 'cockroachdb');
    await queryRunner.query(
      'ALTER TABLE flags DROP CONSTRAINT IF EXISTS flags_default_variant_id_fkey',
    );
    for (const table of POSTGRES_DROP) {
      await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
