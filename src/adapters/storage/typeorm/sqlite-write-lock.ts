import type { DataSource } from 'typeorm';

/*
 * better-sqlite3 is synchronous: a connection that waits for SQLite's file lock blocks the
 * whole event loop, so two connections of ONE process contending for the lock would wait on
 * each other until busy_timeout and fail with SQLITE_BUSY. Transactions on the same file are
 * therefore queued in-process first; SQLite's own lock (BEGIN IMMEDIATE + busy_timeout) then
 * only arbitrates between processes. The queue also keeps transactions of one connection from
 * interleaving at their awaits.
 */
/**
 * One file's queue. Reads go before writes that are still waiting (after the transaction
 * that runs): a namespace reload after a write, which evaluations wait for, then waits for
 * one write at most instead of every write queued by concurrent clients. A read cannot miss
 * a write that was acknowledged before it was asked for: that write has committed.
 */
class Queue {
  private busy = false;
  /** Reads let through in a row while writes waited: bounded, so writes never starve. */
  private readsInARow = 0;
  private readonly reads: Array<() => void> = [];
  private readonly writes: Array<() => void> = [];

  get idle(): boolean {
    return !this.busy && this.reads.length === 0 && this.writes.length === 0;
  }

  async run<T>(kind: 'read' | 'write', fn: () => Promise<T>): Promise<T> {
    if (this.busy) {
      await new Promise<void>((resolve) =>
        (kind === 'read' ? this.reads : this.writes).push(resolve),
      );
    } else {
      this.busy = true;
    }
    try {
      return await fn();
    } finally {
      const readFirst = this.reads.length > 0 && (this.writes.length === 0 || this.readsInARow < 8);
      this.readsInARow = readFirst && this.writes.length > 0 ? this.readsInARow + 1 : 0;
      const next = readFirst ? this.reads.shift() : this.writes.shift();
      if (next === undefined) this.busy = false;
      else next();
    }
  }
}

const queues = new Map<unknown, Queue>();

export async function withSqliteWriteLock<T>(
  key: unknown,
  fn: () => Promise<T>,
  kind: 'read' | 'write' = 'write',
): Promise<T> {
  let queue = queues.get(key);
  if (queue === undefined) {
    queue = new Queue();
    queues.set(key, queue);
  }
  try {
    return await queue.run(kind, fn);
  } finally {
    if (queue.idle && queues.get(key) === queue) queues.delete(key);
  }
}

/** The queue key of a SQLite data source: its file, or the data source for :memory:. */
export function sqliteLockKey(dataSource: DataSource, fileKey: string | undefined): unknown {
  return fileKey ?? dataSource;
}
