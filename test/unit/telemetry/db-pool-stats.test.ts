import {
  mysql2PoolStats,
  pgPoolStats,
  sqlitePoolStats,
} from '../../../src/adapters/telemetry/db-pool-stats';

describe('database pool figures', () => {
  it('reads a pg pool: in use is total minus idle', () => {
    expect(
      pgPoolStats({ totalCount: 7, idleCount: 2, waitingCount: 1, options: { max: 10 } }),
    ).toEqual({ maxOpen: 10, idle: 2, inUse: 5, waiting: 1 });
  });

  it('reads a mysql2 pool from its queues', () => {
    expect(
      mysql2PoolStats({
        _allConnections: { length: 4 },
        _freeConnections: { length: 1 },
        _connectionQueue: { length: 0 },
        config: { connectionLimit: 10 },
      }),
    ).toEqual({ maxOpen: 10, idle: 1, inUse: 3, waiting: 0 });
  });

  it('leaves figures out instead of failing when a driver hides them', () => {
    expect(pgPoolStats({})).toEqual({
      maxOpen: undefined,
      idle: undefined,
      inUse: undefined,
      waiting: undefined,
    });
    expect(mysql2PoolStats({}).inUse).toBeUndefined();
    expect(sqlitePoolStats()).toEqual({ maxOpen: 1, inUse: 1, idle: 0, waiting: 0 });
  });
});
