import type { Repositories } from './repositories';

/** What a write's work learns from the unit of work before it starts. */
export interface WriteScope {
  /** Whether the namespace the write was opened on exists (its version was bumped). */
  readonly namespaceExists: boolean;
  /** The version the write will commit as, when the namespace exists and the store tells. */
  readonly version?: number;
}

/**
 * Runs work over the repositories in one transaction: everything it wrote is kept when it
 * resolves and nothing when it throws. Implementations may run `work` again from the start
 * after a transient conflict (deadlock, serialization failure), so work must not keep state
 * between runs.
 */
export interface UnitOfWork {
  /** One consistent read. */
  read<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  /**
   * A write to one namespace. Before `work` runs, the namespace's version is bumped once
   * (when it exists), which also serializes the writers of the namespace: a check the work
   * makes still holds when it writes. The version moves with every write that commits, even
   * one that changed nothing, and never with one that fails. A namespace created in `work`
   * starts above the last version its key ever had.
   */
  write<T>(
    namespaceKey: string,
    work: (repos: Repositories, scope: WriteScope) => Promise<T>,
  ): Promise<T>;
  /**
   * A write to several namespaces at once (an import): one transaction, in which each listed
   * namespace's version is bumped once before `work` runs, in key order so that two such
   * writes lock alike. `scopes` has an entry for every listed key.
   */
  writeNamespaces<T>(
    namespaceKeys: readonly string[],
    work: (repos: Repositories, scopes: ReadonlyMap<string, WriteScope>) => Promise<T>,
  ): Promise<T>;
}
