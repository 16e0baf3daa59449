import type { DataSource } from 'typeorm';
import { MemoryTokenRepository } from '../../src/adapters/storage/memory/memory-token-repository';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { runMigrations } from '../../src/adapters/storage/typeorm/run-migrations';
import { TypeormTokenRepository } from '../../src/adapters/storage/typeorm/typeorm-token-repository';
import {
  createIsolatedDatabase,
  enabledSqlBackends,
  type IsolatedDatabase,
} from '../support/databases';
import {
  describeTokenRepositoryContract,
  type MakeHarness,
  type TokenHarness,
} from './token-repository-contract';

/* The token contract kit over the in-memory repository and TypeORM on every enabled SQL backend. */

function memoryHarness(): TokenHarness {
  const shared = new MemoryTokenRepository();
  return {
    repository: async () => shared,
    dump: async () => JSON.stringify(shared.dump()),
    close: async () => undefined,
  };
}

function sqlHarness(db: IsolatedDatabase): TokenHarness {
  const open: DataSource[] = [];
  let migrated = false;
  const connect = async (): Promise<DataSource> => {
    const ds = createDataSource(db.url);
    open.push(ds);
    if (!migrated) {
      await runMigrations(ds);
      migrated = true;
    } else {
      await ds.initialize();
    }
    return ds;
  };
  return {
    repository: async () => new TypeormTokenRepository(await connect()),
    dump: async () => {
      const ds = open[0] ?? (await connect());
      const auth: unknown = await ds.query('SELECT * FROM authentications');
      const locks: unknown = await ds.query('SELECT * FROM operation_lock');
      return JSON.stringify({ auth, locks });
    },
    close: async () => {
      for (const ds of open.splice(0)) if (ds.isInitialized) await ds.destroy();
    },
  };
}

const backends: Array<[string, MakeHarness]> = [
  ['memory', async () => ({ harness: memoryHarness(), drop: async () => undefined })],
  ...enabledSqlBackends().map(
    (b) =>
      [
        b.name,
        async () => {
          const db = await createIsolatedDatabase(b, 'tokens');
          return { harness: sqlHarness(db), drop: () => db.drop() };
        },
      ] as [string, MakeHarness],
  ),
];

for (const [name, make] of backends) describeTokenRepositoryContract(name, make);
