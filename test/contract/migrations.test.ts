import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';
import {
  createIsolatedDatabase,
  enabledSqlBackends,
  type IsolatedDatabase,
  type SqlBackend,
} from '../support/databases';

const TABLES = [
  'namespaces',
  'flags',
  'variants',
  'segments',
  'constraints',
  'rules',
  'rule_segments',
  'distributions',
  'rollouts',
  'rollout_thresholds',
  'rollout_segments',
  'rollout_segment_references',
  'authentications',
  'operation_lock',
  'namespace_tombstones',
];

async function tablesOf(ds: DataSource): Promise<string[]> {
  const runner = ds.createQueryRunner();
  try {
    const tables = await runner.getTables(TABLES);
    return tables.map((t) => t.name.replace(/^.*\./, '')).sort();
  } finally {
    await runner.release();
  }
}

async function defaultNamespaceRows(ds: DataSource): Promise<unknown[]> {
  return (await ds.query(
    `SELECT name, description, protected, version FROM namespaces WHERE name = 'Default'`,
  )) as unknown[];
}

async function migrationRows(ds: DataSource): Promise<number> {
  const rows = (await ds.query('SELECT COUNT(*) AS n FROM vexil_migrations')) as Array<{
    n: unknown;
  }>;
  return Number(rows[0]?.n);
}

describe.each(enabledSqlBackends().map((b) => [b.name, b] as [string, SqlBackend]))(
  'migrations on %s',
  (_name, backend) => {
    let db: IsolatedDatabase | undefined;
    const open: DataSource[] = [];
    const dataSource = (): DataSource => {
      if (!db) throw new Error('database not created');
      const ds = createDataSource(db.url);
      open.push(ds);
      return ds;
    };

    beforeEach(async () => {
      db = await createIsolatedDatabase(backend, 'migrations');
    });

    afterEach(async () => {
      for (const ds of open.splice(0)) {
        if (ds.isInitialized) await ds.destroy();
      }
      await db?.drop();
      db = undefined;
    });

    test('applying on an empty database creates every table and the default namespace', async () => {
      const ds = dataSource();
      const applied = await runMigrations(ds);
      expect(applied).toEqual(['InitialSchema1732147200000']);
      expect(await tablesOf(ds)).toEqual([...TABLES].sort());
      const [row] = (await defaultNamespaceRows(ds)) as Array<Record<string, unknown>>;
      expect(row).toBeDefined();
      expect(row?.['description']).toBe('Default namespace');
      expect(Boolean(Number(row?.['protected']) || row?.['protected'] === true)).toBe(true);
      expect(Number(row?.['version'])).toBe(1);
    });

    test('applying again is a no-op', async () => {
      const ds = dataSource();
      await runMigrations(ds);
      expect(await runMigrations(ds)).toEqual([]);
      const other = dataSource();
      expect(await runMigrations(other)).toEqual([]);
      expect(await migrationRows(ds)).toBe(1);
      expect(await defaultNamespaceRows(ds)).toHaveLength(1);
    });

    test('two concurrent runs both succeed and leave one consistent schema', async () => {
      const a = dataSource();
      const b = dataSource();
      await Promise.all([a.initialize(), b.initialize()]);
      const results = await Promise.all([runMigrations(a), runMigrations(b)]);
      expect(results.flat()).toEqual(['InitialSchema1732147200000']);
      expect(await tablesOf(a)).toEqual([...TABLES].sort());
      expect(await migrationRows(b)).toBe(1);
      expect(await defaultNamespaceRows(b)).toHaveLength(1);
    });

    test('foreign keys are enforced', async () => {
      const ds = dataSource();
      await runMigrations(ds);
      await expect(
        ds.query(
          backend.name === 'postgres'
            ? `INSERT INTO segments (namespace_key, "key", name, description) VALUES ('nope', 's', 's', '')`
            : backend.name === 'mysql'
              ? "INSERT INTO segments (namespace_key, `key`, name, description) VALUES ('nope', 's', 's', '')"
              : `INSERT INTO segments (namespace_key, "key", name, description) VALUES ('nope', 's', 's', '')`,
        ),
      ).rejects.toThrow();
    });
  },
);
