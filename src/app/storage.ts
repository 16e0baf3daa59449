import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSource } from 'typeorm';
import {
  describeDatabaseUrl,
  parseDatabaseUrl,
  type ParsedDatabaseUrl,
} from '../adapters/storage/typeorm/database-url';
import { openDataSource } from '../adapters/storage/typeorm/data-source';
import { runMigrations } from '../adapters/storage/typeorm/run-migrations';
import { TypeormStore } from '../adapters/storage/typeorm/typeorm-store';
import { TypeormTokenRepository } from '../adapters/storage/typeorm/typeorm-token-repository';
import { RandomIdGenerator, SystemClock } from '../adapters/system';
import type { Logger } from '../ports';
import type { VexilConfig } from './config';
import type { StoreHandle } from './container';

function ensureSqliteDirectory(parsed: ParsedDatabaseUrl): void {
  if (parsed.dialect === 'sqlite' && parsed.path !== ':memory:') {
    mkdirSync(dirname(parsed.path), { recursive: true });
  }
}

/** Opens the configured database and applies pending migrations. */
export async function openMigratedDataSource(
  config: VexilConfig,
  logger: Logger,
): Promise<{ dataSource: DataSource; parsed: ParsedDatabaseUrl }> {
  const parsed = parseDatabaseUrl(config.db.url);
  ensureSqliteDirectory(parsed);
  const dataSource = await openDataSource(parsed, {
    maxOpenConn: config.db.max_open_conn === 0 ? undefined : config.db.max_open_conn,
    maxIdleConn: config.db.max_idle_conn,
    connMaxLifetimeMs: config.db.conn_max_lifetime,
  });
  try {
    const applied = await runMigrations(dataSource);
    if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw err;
  }
  return { dataSource, parsed };
}

export async function openStore(config: VexilConfig, logger: Logger): Promise<StoreHandle> {
  const { dataSource, parsed } = await openMigratedDataSource(config, logger);
  const store = new TypeormStore(dataSource, {
    clock: new SystemClock(),
    ids: new RandomIdGenerator(),
  });
  return {
    store,
    tokens: new TypeormTokenRepository(dataSource),
    shared: parsed.dialect !== 'sqlite',
    description: describeDatabaseUrl(parsed),
  };
}
