import type { MigrationInterface } from 'typeorm';
import type { DatabaseDialect } from '../database-url';
import { CockroachdbInitialSchema1732147200000 } from './cockroachdb-initial-schema';
import { MysqlInitialSchema1732147200000 } from './mysql-initial-schema';
import { PostgresInitialSchema1732147200000 } from './postgres-initial-schema';
import { SqliteInitialSchema1732147200000 } from './sqlite-initial-schema';

/** Migration classes per dialect, oldest first. Never edit a released migration: add one. */
export const MIGRATIONS: Readonly<
  Record<DatabaseDialect, ReadonlyArray<new () => MigrationInterface>>
> = {
  sqlite: [SqliteInitialSchema1732147200000],
  postgres: [PostgresInitialSchema1732147200000],
  mysql: [MysqlInitialSchema1732147200000],
  cockroachdb: [CockroachdbInitialSchema1732147200000],
};

export const MIGRATIONS_TABLE = 'vexil_migrations';
