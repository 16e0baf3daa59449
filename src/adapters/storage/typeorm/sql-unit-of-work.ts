import type { Clock, IdGenerator, Repositories, UnitOfWork, WriteScope } from '../../../ports';
import { RowMapper } from './row-mappers';
import { SqlFlagRepository } from './sql-flag-repository';
import { SqlNamespaceRepository } from './sql-namespace-repository';
import { SqlRolloutRepository } from './sql-rollout-repository';
import { SqlRuleRepository } from './sql-rule-repository';
import { SqlSegmentRepository } from './sql-segment-repository';
import type { SqlSession, Tx } from './sql-session';

export interface SqlUnitOfWorkDeps {
  /** Stamps `namespaces.state_modified_at`. */
  readonly clock: Clock;
  /** Names rows that only this adapter sees (a rollout's segment and threshold rows). */
  readonly ids: IdGenerator;
}

/**
 * A unit of work is one transaction. A write's first statement bumps the namespace's
 * version: the row lock this takes serializes the writers of a namespace, which is what makes
 * the domain's check-then-write rules (rank uniqueness, "in use") safe under concurrency.
 */
export class SqlUnitOfWork implements UnitOfWork {
  private readonly map: RowMapper;

  constructor(
    private readonly session: SqlSession,
    private readonly deps: SqlUnitOfWorkDeps,
  ) {
    this.map = new RowMapper(session.dialect);
  }

  read<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
    return this.session.read((tx) => work(this.repositories(tx)));
  }

  write<T>(
    namespaceKey: string,
    work: (repos: Repositories, scope: WriteScope) => Promise<T>,
  ): Promise<T> {
    return this.session.write(async (tx) => {
      return work(this.repositories(tx), await this.bump(tx, namespaceKey));
    });
  }

  writeNamespaces<T>(
    namespaceKeys: readonly string[],
    work: (repos: Repositories, scopes: ReadonlyMap<string, WriteScope>) => Promise<T>,
  ): Promise<T> {
    return this.session.write(async (tx) => {
      const scopes = new Map<string, WriteScope>();
      for (const key of [...new Set(namespaceKeys)].sort()) {
        scopes.set(key, await this.bump(tx, key));
      }
      return work(this.repositories(tx), scopes);
    });
  }

  /** Bumps the namespace's version and reads it back, under the row lock the bump took. */
  private async bump(tx: Tx, namespaceKey: string): Promise<WriteScope> {
    const sql = `UPDATE namespaces SET "version" = "version" + 1, state_modified_at = ? WHERE "key" = ?`;
    const params = [tx.dialect.timestampToDb(this.deps.clock.now()), namespaceKey];
    let rows;
    if (tx.dialect.name === 'mysql') {
      if ((await tx.run(sql, params)) === 0) return { namespaceExists: false };
      rows = await tx.all(`SELECT "version" FROM namespaces WHERE "key" = ?`, [namespaceKey]);
    } else {
      // One round trip where the database can return what it updated.
      rows = await tx.all(`${sql} RETURNING "version"`, params);
      if (rows.length === 0) return { namespaceExists: false };
    }
    const version = Number(rows[0]?.['version']);
    return Number.isSafeInteger(version)
      ? { namespaceExists: true, version }
      : { namespaceExists: true };
  }

  private repositories(tx: Tx): Repositories {
    const map = this.map;
    return {
      namespaces: new SqlNamespaceRepository(tx, map),
      flags: new SqlFlagRepository(tx, map),
      segments: new SqlSegmentRepository(tx, map),
      rules: new SqlRuleRepository(tx, map),
      rollouts: new SqlRolloutRepository(tx, map, this.deps.ids),
    };
  }
}
