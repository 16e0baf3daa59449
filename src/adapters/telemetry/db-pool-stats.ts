import type { DbPoolStats } from './metrics';

/**
 * Pool figures from the driver pools TypeORM creates, read structurally so telemetry does
 * not depend on the drivers. Each returns undefined-valued fields rather than throwing when
 * a driver changes its internals: a scrape must never fail because of a pool.
 */

/** A `pg` Pool (TypeORM: `(dataSource.driver as PostgresDriver).master`). */
export interface PgPoolLike {
  readonly totalCount?: number;
  readonly idleCount?: number;
  readonly waitingCount?: number;
  readonly options?: { readonly max?: number };
}

export function pgPoolStats(pool: PgPoolLike): DbPoolStats {
  const total = pool.totalCount;
  const idle = pool.idleCount;
  return {
    maxOpen: pool.options?.max,
    idle,
    inUse: total !== undefined && idle !== undefined ? total - idle : undefined,
    waiting: pool.waitingCount,
  };
}

interface LengthLike {
  readonly length?: number;
}

/** A `mysql2` Pool (TypeORM: `(dataSource.driver as MysqlDriver).pool`); its counts are internal fields. */
export interface Mysql2PoolLike {
  readonly _allConnections?: LengthLike;
  readonly _freeConnections?: LengthLike;
  readonly _connectionQueue?: LengthLike;
  readonly config?: { readonly connectionLimit?: number };
}

export function mysql2PoolStats(pool: Mysql2PoolLike): DbPoolStats {
  const total = pool._allConnections?.length;
  const idle = pool._freeConnections?.length;
  return {
    maxOpen: pool.config?.connectionLimit,
    idle,
    inUse: total !== undefined && idle !== undefined ? total - idle : undefined,
    waiting: pool._connectionQueue?.length,
  };
}

/** The embedded SQLite database: one connection, always open. */
export function sqlitePoolStats(): DbPoolStats {
  return { maxOpen: 1, inUse: 1, idle: 0, waiting: 0 };
}
