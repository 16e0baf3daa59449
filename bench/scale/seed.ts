import { randomUUID } from 'node:crypto';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';

/*
 * The scale namespace, written straight into a migrated SQLite file: 10 000 variant flags with
 * two variants, 5 rules per flag with two 50/50 distributions, 50 segments of two constraints.
 * Ids are UUIDs and every row has a timestamp of its own (created = updated), as rows written
 * one by one through the API have: shared strings in the fixture would flatter the memory figure.
 */

export const NAMESPACE = 'scale';
export const RULES_PER_FLAG = 5;
export const SEGMENTS = 50;

interface SqliteDatabase {
  prepare(sql: string): { run(...params: unknown[]): unknown };
  transaction(fn: () => void): () => void;
}

const BASE_MS = Date.parse('2024-05-01T10:00:00Z');

/** Distinct domain-format timestamps, one per call, microseconds apart. */
function timestamps(): () => string {
  let micros = 0;
  return () => {
    micros += 137;
    const ms = BASE_MS + Math.floor(micros / 1000);
    const iso = new Date(ms).toISOString();
    return `${iso.slice(0, 19)}.${String(ms % 1000).padStart(3, '0')}${String(micros % 1000).padStart(3, '0')}Z`;
  };
}

export async function seedScaleDatabase(path: string, flags: number): Promise<void> {
  const dataSource = createDataSource(`file:${path}`);
  await dataSource.initialize();
  await runMigrations(dataSource);
  // The better-sqlite3 handle under TypeORM: synchronous statements, one transaction.
  const db = (dataSource.driver as unknown as { databaseConnection: SqliteDatabase })
    .databaseConnection;
  const ts = timestamps();
  const insert = (table: string, cols: readonly string[]) =>
    db.prepare(
      `INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    );
  const ns = insert('namespaces', ['key', 'name', 'description', 'created_at', 'updated_at']);
  const segment = insert('segments', [
    'namespace_key',
    'key',
    'name',
    'description',
    'match_type',
    'created_at',
    'updated_at',
  ]);
  const constraint = insert('constraints', [
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
  ]);
  const flag = insert('flags', [
    'namespace_key',
    'key',
    'name',
    'description',
    'enabled',
    'type',
    'created_at',
    'updated_at',
  ]);
  const variant = insert('variants', [
    'id',
    'namespace_key',
    'flag_key',
    'key',
    'name',
    'description',
    'attachment',
    'created_at',
    'updated_at',
  ]);
  const rule = insert('rules', [
    'id',
    'namespace_key',
    'flag_key',
    'rank',
    'segment_operator',
    'created_at',
    'updated_at',
  ]);
  const ruleSegment = insert('rule_segments', [
    'rule_id',
    'namespace_key',
    'segment_key',
    'position',
  ]);
  const distribution = insert('distributions', [
    'id',
    'rule_id',
    'variant_id',
    'rollout',
    'created_at',
    'updated_at',
  ]);

  db.transaction(() => {
    let t = ts();
    ns.run(NAMESPACE, NAMESPACE, '', t, t);
    for (let s = 0; s < SEGMENTS; s += 1) {
      const key = `seg-${s}`;
      t = ts();
      segment.run(NAMESPACE, key, key, '', 0, t, t);
      t = ts();
      // STRING_COMPARISON_TYPE = 1, NUMBER_COMPARISON_TYPE = 2.
      constraint.run(randomUUID(), NAMESPACE, key, 1, 'plan', 'eq', `p${s}`, '', t, t);
      t = ts();
      constraint.run(randomUUID(), NAMESPACE, key, 2, 'age', 'gte', String(s), '', t, t);
    }
    for (let f = 0; f < flags; f += 1) {
      const key = `flag-${f}`;
      t = ts();
      // VARIANT_FLAG_TYPE = 0.
      flag.run(NAMESPACE, key, key, '', 1, 0, t, t);
      const variantIds = ['a', 'b'].map((v) => {
        const id = randomUUID();
        t = ts();
        variant.run(id, NAMESPACE, key, v, v, '', null, t, t);
        return id;
      });
      for (let r = 0; r < RULES_PER_FLAG; r += 1) {
        const id = randomUUID();
        t = ts();
        rule.run(id, NAMESPACE, key, r + 1, 0, t, t);
        ruleSegment.run(id, NAMESPACE, `seg-${(f + r) % SEGMENTS}`, 0);
        for (const variantId of variantIds) {
          t = ts();
          distribution.run(randomUUID(), id, variantId, 50, t, t);
        }
      }
    }
  })();
  await dataSource.destroy();
}
