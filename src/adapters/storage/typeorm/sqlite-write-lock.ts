import type { DataSource } from 'typeorm';

/*
 * better-sqlite3 is synchronous: a connection that waits for SQLite's file lock blocks the
 * whole event loop, so two connections of ONE process contending for the lock would wait on
 * each other until busy_timeout and fail with SQLITE_BUSY. Transactions on the same file are
 * therefore queued in-process first; SQLite's own lock (BEGIN IMMEDIATE + busy_timeout) then
 * only arbitrates between processes. The queue also keeps transactions of one connection from
 * interleaving at their awaits.
 */
const tails = new Map<unknown, Promise<unknown>>();

export async function withSqliteWriteLock<T>(key: unknown, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => current);
  tails.set(key, tail);
  await previous.catch(() => undefined);
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}

/** The queue key of a SQLite data source: its file, or the data source for :memory:. */
export function sqliteLockKey(dataSource: DataSource, fileKey: string | undefined): unknown {
  return fileKey ?? dataSource;
}
