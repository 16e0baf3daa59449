import { storageAdapterFor } from '../adapters/storage';
import { RandomIdGenerator, SystemClock } from '../adapters/system';
import type { Logger, Storage } from '../ports';
import type { VexilConfig } from './config';
import { packagedAssets } from './packaged';

/**
 * Opens the storage adapter that `db.url` names, with its schema brought up to date. In the
 * single executable, SQLite runs on the addon it carries (./packaged.ts).
 */
export function openStorage(config: VexilConfig, logger: Logger): Promise<Storage> {
  const sqliteBinding = packagedAssets()?.sqliteBinding;
  return storageAdapterFor(config.db.url).open({
    url: config.db.url,
    pool: {
      maxOpenConn: config.db.max_open_conn === 0 ? undefined : config.db.max_open_conn,
      maxIdleConn: config.db.max_idle_conn,
      connMaxLifetimeMs: config.db.conn_max_lifetime,
    },
    clock: new SystemClock(),
    ids: new RandomIdGenerator(),
    logger,
    ...(sqliteBinding === undefined ? {} : { sqliteBinding }),
  });
}
