import type { Clock, IdGenerator, Logger, Storage } from '../../ports';

/** What every storage adapter is opened with: the `db.*` keys and the process's clock and ids. */
export interface StorageOpenOptions {
  /** `db.url`, already accepted by the adapter's `check`. */
  readonly url: string;
  /** `db.max_open_conn`, `db.max_idle_conn`, `db.conn_max_lifetime`, for adapters with a pool. */
  readonly pool: {
    readonly maxOpenConn?: number;
    readonly maxIdleConn?: number;
    readonly connMaxLifetimeMs?: number;
  };
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger?: Logger;
  /**
   * The loaded SQLite addon (better-sqlite3's `nativeBinding`), for a program that carries its
   * own copy (the single executable); by default better-sqlite3 finds the one it was built with.
   */
  readonly sqliteBinding?: object;
}

/** A storage adapter as it registers itself in ./registry.ts. */
export interface StorageAdapter {
  /** Names it in docs and errors. */
  readonly name: string;
  /**
   * The `db.url` schemes it accepts, lower case, without the colon. '' claims a URL without a
   * scheme (a plain file path).
   */
  readonly schemes: readonly string[];
  /** Checks a URL without connecting; throws one line naming the fault, never a password. */
  check(url: string): void;
  /** Connects, brings the schema up to date and hands over the ports; retried while it throws. */
  open(options: StorageOpenOptions): Promise<Storage>;
}
