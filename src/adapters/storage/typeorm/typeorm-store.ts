import type { DataSource, QueryRunner } from 'typeorm';
import { InvalidArgumentError, NotFoundError, isDomainError } from '../../../domain/errors';
import type {
  Constraint,
  CreateConstraintRequest,
  CreateDistributionRequest,
  CreateFlagRequest,
  CreateNamespaceRequest,
  CreateRolloutRequest,
  CreateRuleRequest,
  CreateSegmentRequest,
  CreateVariantRequest,
  DeleteConstraintRequest,
  DeleteDistributionRequest,
  DeleteFlagRequest,
  DeleteNamespaceRequest,
  DeleteRolloutRequest,
  DeleteRuleRequest,
  DeleteSegmentRequest,
  DeleteVariantRequest,
  Distribution,
  Flag,
  ListFlagsRequest,
  ListRequest,
  ListNamespacesRequest,
  ListRolloutsRequest,
  ListRulesRequest,
  ListSegmentsRequest,
  Namespace,
  NamespaceData,
  OrderRolloutsRequest,
  OrderRulesRequest,
  Page,
  Rollout,
  RolloutType,
  Rule,
  Segment,
  UpdateConstraintRequest,
  UpdateDistributionRequest,
  UpdateFlagRequest,
  UpdateNamespaceRequest,
  UpdateRolloutRequest,
  UpdateRuleRequest,
  UpdateSegmentRequest,
  UpdateVariantRequest,
  Variant,
} from '../../../domain/model';
import type { Store } from '../../../ports/store';
import type { Clock, IdGenerator } from '../../../ports/system';
import { pageOf, pageWindow, type PageWindow } from '../page-token';
import { databaseOf, sqliteFileKey } from './data-source';
import type { DatabaseDialect } from './database-url';
import {
  RowMapper,
  comparisonTypeNumber,
  flagTypeNumber,
  groupBy,
  matchTypeNumber,
  num,
  rolloutTypeName,
  rolloutTypeNumber,
  segmentOperatorNumber,
  type Row,
} from './row-mappers';
import { sqlDialect, type SqlDialect } from './sql-dialect';
import { sqliteLockKey, withSqliteWriteLock } from './sqlite-write-lock';
import {
  isConnectionError,
  isForeignKeyViolation,
  isRetryableConflict,
  isUniqueViolation,
  unavailable,
} from './storage-errors';

export interface TypeormStoreDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** One transaction's statements, in the store's SQL ("quoted" identifiers, ? placeholders). */
interface Tx {
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Returns the number of affected rows. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

const NS_COLS = `"key", name, description, "protected", created_at, updated_at`;
const FLAG_COLS = `namespace_key, "key", name, description, enabled, "type", default_variant_id, metadata, created_at, updated_at`;
const VARIANT_COLS = `id, namespace_key, flag_key, "key", name, description, attachment, created_at, updated_at`;
const SEGMENT_COLS = `namespace_key, "key", name, description, match_type, created_at, updated_at`;
const CONSTRAINT_COLS = `id, namespace_key, segment_key, "type", property, operator, "value", description, created_at, updated_at`;
const RULE_COLS = `id, namespace_key, flag_key, "rank", segment_operator, created_at, updated_at`;
const DIST_COLS = `id, rule_id, variant_id, rollout, created_at, updated_at`;
const ROLLOUT_COLS = `id, namespace_key, flag_key, "type", description, "rank", created_at, updated_at`;

/** Keeps IN lists well below every driver's bound-parameter limit. */
const IN_CHUNK = 500;
const WRITE_ATTEMPTS = 4;

/**
 * The Store port over TypeORM data sources (SQLite, PostgreSQL, MySQL, CockroachDB).
 *
 * Statements are explicit SQL run through TypeORM query runners: timestamps must keep their
 * microseconds and JSON its exact text, which TypeORM's entity hydration (via Date) would not.
 * Every write is one transaction whose first statement bumps the namespace's version; the row
 * lock this takes serializes writers of a namespace, which is what makes check-then-write
 * sequences (rollout rank uniqueness, in-use checks) safe under concurrency.
 */
/** A table read with its child rows (flags/variants, segments/constraints). */
interface ParentTable<T> {
  readonly table: string;
  readonly cols: string;
  readonly children: string;
  readonly childCols: string;
  readonly childKey: string;
  readonly notFound: (namespaceKey: string, key: string) => string;
  readonly build: (row: Row, children: readonly Row[]) => T;
}

export class TypeormStore implements Store {
  private readonly dialect: DatabaseDialect;
  private readonly d: SqlDialect;
  private readonly map: RowMapper;
  private readonly secret: string | undefined;
  private readonly sqliteKey: unknown;

  constructor(
    private readonly dataSource: DataSource,
    private readonly deps: TypeormStoreDeps,
  ) {
    const parsed = databaseOf(dataSource);
    this.dialect = parsed.dialect;
    this.d = sqlDialect(parsed.dialect);
    this.map = new RowMapper(this.d);
    this.secret = parsed.dialect === 'sqlite' ? undefined : parsed.password;
    this.sqliteKey =
      parsed.dialect === 'sqlite' ? sqliteLockKey(dataSource, sqliteFileKey(parsed)) : undefined;
  }

  // ---------------------------------------------------------------- infrastructure

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      if (!this.dataSource.isInitialized) await this.dataSource.initialize();
      return await fn();
    } catch (err) {
      throw this.translate(err);
    }
  }

  private translate(err: unknown): unknown {
    if (isDomainError(err)) return err;
    if (isConnectionError(err)) return unavailable(this.dialect, err, this.secret);
    // Flipt's generic fallbacks for constraint errors no specific check anticipated.
    if (isUniqueViolation(err)) return new InvalidArgumentError('not unique');
    if (isForeignKeyViolation(err)) return new NotFoundError('associated resource not found');
    return err;
  }

  private tx(runner: QueryRunner): Tx {
    const params = (list: readonly unknown[]): unknown[] =>
      list.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
    return {
      all: async (sql, list = []) => {
        const result = await runner.query(this.d.sql(sql), params(list), true);
        return (result.records ?? []) as Row[];
      },
      run: async (sql, list = []) => {
        const result = await runner.query(this.d.sql(sql), params(list), true);
        return result.affected ?? 0;
      },
    };
  }

  private async transaction<T>(kind: 'read' | 'write', fn: (tx: Tx) => Promise<T>): Promise<T> {
    const attempt = async (): Promise<T> => {
      const runner = this.dataSource.createQueryRunner();
      let open = false;
      try {
        if (this.dialect === 'sqlite') {
          // IMMEDIATE takes the write lock up front: no upgrade deadlock, no SQLITE_BUSY mid-way.
          await runner.query(kind === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN');
        } else {
          await runner.connect();
          await runner.startTransaction(kind === 'write' ? 'READ COMMITTED' : 'REPEATABLE READ');
        }
        open = true;
        const result = await fn(this.tx(runner));
        open = false;
        if (kind === 'read') await this.rollback(runner);
        else await this.commit(runner);
        return result;
      } catch (err) {
        if (open) await this.rollback(runner).catch(() => undefined);
        throw err;
      } finally {
        await runner.release();
      }
    };
    const run = async (): Promise<T> => {
      for (let n = 1; ; n++) {
        try {
          return await attempt();
        } catch (err) {
          if (n >= WRITE_ATTEMPTS || !isRetryableConflict(err)) throw err;
        }
      }
    };
    return this.dialect === 'sqlite' ? withSqliteWriteLock(this.sqliteKey, run) : run();
  }

  private async commit(runner: QueryRunner): Promise<void> {
    if (this.dialect === 'sqlite') await runner.query('COMMIT');
    else await runner.commitTransaction();
  }

  private async rollback(runner: QueryRunner): Promise<void> {
    if (this.dialect === 'sqlite') await runner.query('ROLLBACK');
    else await runner.rollbackTransaction();
  }

  private read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.guard(() => this.transaction('read', fn));
  }

  private write<T>(fn: (tx: Tx, now: string) => Promise<T>): Promise<T> {
    return this.guard(() => this.transaction('write', (tx) => fn(tx, this.deps.clock.now())));
  }

  /** Bumps the namespace version (and takes its row lock); false when it does not exist. */
  private async bump(tx: Tx, namespaceKey: string, now: string): Promise<boolean> {
    const affected = await tx.run(
      `UPDATE namespaces SET "version" = "version" + 1, state_modified_at = ? WHERE "key" = ?`,
      [this.d.timestampToDb(now), namespaceKey],
    );
    return affected > 0;
  }

  private async exists(tx: Tx, sql: string, params: readonly unknown[]): Promise<boolean> {
    return (await tx.all(sql, params)).length > 0;
  }

  /** Runs `fn` for chunks of `values` and concatenates the rows. */
  private async inChunks(
    tx: Tx,
    values: readonly string[],
    fn: (placeholders: string, chunk: readonly string[]) => Promise<Row[]>,
  ): Promise<Row[]> {
    const rows: Row[] = [];
    for (let i = 0; i < values.length; i += IN_CHUNK) {
      const chunk = values.slice(i, i + IN_CHUNK);
      rows.push(...(await fn(chunk.map(() => '?').join(', '), chunk)));
    }
    return rows;
  }

  // Flags with their variants and segments with their constraints are read the same way:
  // the parent row(s), then their children in creation order, grouped by parent key.
  private readonly flagTable: ParentTable<Flag> = {
    table: 'flags',
    cols: FLAG_COLS,
    children: 'variants',
    childCols: VARIANT_COLS,
    childKey: 'flag_key',
    notFound: (ns, key) => `flag "${ns}/${key}" not found`,
    build: (row, children) =>
      this.map.flag(
        row,
        children.map((v) => this.map.variant(v)),
      ),
  };

  private readonly segmentTable: ParentTable<Segment> = {
    table: 'segments',
    cols: SEGMENT_COLS,
    children: 'constraints',
    childCols: CONSTRAINT_COLS,
    childKey: 'segment_key',
    notFound: (ns, key) => `segment "${ns}/${key}" not found`,
    build: (row, children) =>
      this.map.segment(
        row,
        children.map((c) => this.map.constraint(c)),
      ),
  };

  private async parentIn<T>(
    tx: Tx,
    t: ParentTable<T>,
    namespaceKey: string,
    key: string,
  ): Promise<T> {
    const rows = await tx.all(
      `SELECT ${t.cols} FROM ${t.table} WHERE namespace_key = ? AND "key" = ?`,
      [namespaceKey, key],
    );
    const row = rows[0];
    if (!row) throw new NotFoundError(t.notFound(namespaceKey, key));
    const children = await tx.all(
      `SELECT ${t.childCols} FROM ${t.children} WHERE namespace_key = ? AND ${t.childKey} = ? ORDER BY created_at, id`,
      [namespaceKey, key],
    );
    return t.build(row, children);
  }

  private async parentPage<T extends { readonly key: string }>(
    tx: Tx,
    t: ParentTable<T>,
    req: ListRequest & { readonly namespaceKey: string },
  ): Promise<Page<T>> {
    const window = pageWindow(req);
    const p = [req.namespaceKey];
    const total = await this.count(
      tx,
      `SELECT COUNT(*) AS n FROM ${t.table} WHERE namespace_key = ?`,
      p,
    );
    const rows = await tx.all(
      `SELECT ${t.cols} FROM ${t.table} WHERE namespace_key = ? ORDER BY created_at, "key"${this.windowSql(window)}`,
      p,
    );
    const keys = rows.map((r) => String(r['key']));
    const childRows = await this.inChunks(tx, keys, (ph, chunk) =>
      tx.all(
        `SELECT ${t.childCols} FROM ${t.children} WHERE namespace_key = ? AND ${t.childKey} IN (${ph}) ORDER BY created_at, id`,
        [req.namespaceKey, ...chunk],
      ),
    );
    const byParent = groupBy(childRows, t.childKey);
    const items = rows.map((r) => t.build(r, byParent.get(String(r['key'])) ?? []));
    return pageOf(items, window, (item) => item.key, total);
  }

  private async count(tx: Tx, sql: string, params: readonly unknown[]): Promise<number> {
    const rows = await tx.all(sql, params);
    return num(rows[0]?.['n'] ?? 0);
  }

  private windowSql(w: PageWindow): string {
    return this.d.window(w.limit > 0 ? w.limit + 1 : 0, w.offset);
  }

  private ts(t: string): string {
    return this.d.timestampToDb(t);
  }

  // ---------------------------------------------------------------- evaluation source

  async ping(): Promise<void> {
    await this.guard(async () => {
      if (this.dialect === 'sqlite') {
        await withSqliteWriteLock(this.sqliteKey, () => this.dataSource.query('SELECT 1'));
      } else {
        await this.dataSource.query('SELECT 1');
      }
    });
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  async getNamespaceVersion(namespaceKey: string): Promise<number | undefined> {
    return this.guard(async () => {
      const sql = this.d.sql(`SELECT "version" FROM namespaces WHERE "key" = ?`);
      const query = (): Promise<Row[]> => this.dataSource.query(sql, [namespaceKey]);
      const rows =
        this.dialect === 'sqlite'
          ? await withSqliteWriteLock(this.sqliteKey, query)
          : await query();
      const row = rows[0];
      return row === undefined ? undefined : num(row['version']);
    });
  }

  async loadNamespace(namespaceKey: string): Promise<NamespaceData | undefined> {
    return this.read(async (tx) => {
      const nsRows = await tx.all(`SELECT ${NS_COLS}, "version" FROM namespaces WHERE "key" = ?`, [
        namespaceKey,
      ]);
      const nsRow = nsRows[0];
      if (!nsRow) return undefined;
      const p = [namespaceKey];
      // One table of key strings for the whole load: every rule and distribution repeats the
      // namespace key, its flag key, rule and variant ids. Each result set is mapped as soon
      // as it arrives so that the raw rows of one query are garbage before the next is read.
      const map = this.map.forNamespaceLoad();
      const variantsByFlag = groupBy(
        await tx.all(
          `SELECT ${VARIANT_COLS} FROM variants WHERE namespace_key = ? ORDER BY created_at, id`,
          p,
        ),
        'flag_key',
        (v) => map.variant(v),
      );
      const flags = (
        await tx.all(
          `SELECT ${FLAG_COLS} FROM flags WHERE namespace_key = ? ORDER BY created_at, "key"`,
          p,
        )
      ).map((f) => map.flag(f, variantsByFlag.get(String(f['key'])) ?? []));
      const constraintsBySegment = groupBy(
        await tx.all(
          `SELECT ${CONSTRAINT_COLS} FROM constraints WHERE namespace_key = ? ORDER BY created_at, id`,
          p,
        ),
        'segment_key',
        (c) => map.constraint(c),
      );
      const segments = (
        await tx.all(
          `SELECT ${SEGMENT_COLS} FROM segments WHERE namespace_key = ? ORDER BY created_at, "key"`,
          p,
        )
      ).map((s) => map.segment(s, constraintsBySegment.get(String(s['key'])) ?? []));
      const scope = { where: 'r.namespace_key = ?', params: p };
      const rules = await this.assembleRules(
        tx,
        await tx.all(
          `SELECT ${RULE_COLS} FROM rules WHERE namespace_key = ? ORDER BY flag_key, "rank", created_at, id`,
          p,
        ),
        scope,
        map,
      );
      const rollouts = await this.assembleRollouts(
        tx,
        await tx.all(
          `SELECT ${ROLLOUT_COLS} FROM rollouts WHERE namespace_key = ? ORDER BY flag_key, "rank", created_at, id`,
          p,
        ),
        scope,
        map,
      );
      return {
        namespace: map.namespace(nsRow),
        version: num(nsRow['version']),
        flags,
        segments,
        rules,
        rollouts,
      };
    });
  }

  // ---------------------------------------------------------------- namespaces

  async getNamespace(key: string): Promise<Namespace> {
    return this.read((tx) => this.namespaceIn(tx, key));
  }

  private async namespaceIn(tx: Tx, key: string): Promise<Namespace> {
    const rows = await tx.all(`SELECT ${NS_COLS} FROM namespaces WHERE "key" = ?`, [key]);
    const row = rows[0];
    if (!row) throw new NotFoundError(`namespace "${key}" not found`);
    return this.map.namespace(row);
  }

  async listNamespaces(req: ListNamespacesRequest): Promise<Page<Namespace>> {
    const window = pageWindow(req);
    return this.read(async (tx) => {
      const total = await this.count(tx, `SELECT COUNT(*) AS n FROM namespaces`, []);
      const rows = await tx.all(
        `SELECT ${NS_COLS} FROM namespaces ORDER BY created_at, "key"${this.windowSql(window)}`,
      );
      return pageOf(
        rows.map((r) => this.map.namespace(r)),
        window,
        (n) => n.key,
        total,
      );
    });
  }

  async createNamespace(req: CreateNamespaceRequest): Promise<Namespace> {
    return this.write(async (tx, now) => {
      const tombstone = await tx.all(`SELECT "version" FROM namespace_tombstones WHERE "key" = ?`, [
        req.key,
      ]);
      const version = num(tombstone[0]?.['version'] ?? 0) + 1;
      try {
        await tx.run(
          `INSERT INTO namespaces ("key", name, description, "protected", "version", created_at, updated_at, state_modified_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            req.key,
            req.name,
            req.description,
            false,
            version,
            this.ts(now),
            this.ts(now),
            this.ts(now),
          ],
        );
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw new InvalidArgumentError(`namespace "${req.key}" is not unique`);
        }
        throw err;
      }
      return {
        key: req.key,
        name: req.name,
        description: req.description,
        protected: false,
        createdAt: now,
        updatedAt: now,
      };
    });
  }

  async updateNamespace(req: UpdateNamespaceRequest): Promise<Namespace> {
    return this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.key, now))) {
        throw new NotFoundError(`namespace "${req.key}" not found`);
      }
      await tx.run(
        `UPDATE namespaces SET name = ?, description = ?, updated_at = ? WHERE "key" = ?`,
        [req.name, req.description, this.ts(now), req.key],
      );
      return this.namespaceIn(tx, req.key);
    });
  }

  async deleteNamespace(req: DeleteNamespaceRequest): Promise<void> {
    await this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.key, now))) {
        throw new NotFoundError(`namespace "${req.key}" not found`);
      }
      const ns = await this.namespaceIn(tx, req.key);
      if (!req.force) {
        if (ns.protected) throw new InvalidArgumentError(`namespace "${req.key}" is protected`);
        if (
          await this.exists(tx, `SELECT 1 FROM flags WHERE namespace_key = ? LIMIT 1`, [req.key])
        ) {
          throw new InvalidArgumentError(
            `namespace "${req.key}" cannot be deleted; flags must be deleted first`,
          );
        }
      }
      // Flags first: their rules release the segments that RESTRICT would otherwise protect,
      // and clearing default variants avoids MySQL's same-table SET NULL during the cascade.
      await tx.run(`UPDATE flags SET default_variant_id = NULL WHERE namespace_key = ?`, [req.key]);
      await tx.run(`DELETE FROM flags WHERE namespace_key = ?`, [req.key]);
      await tx.run(`DELETE FROM namespace_tombstones WHERE "key" = ?`, [req.key]);
      await tx.run(
        `INSERT INTO namespace_tombstones ("key", "version") SELECT "key", "version" FROM namespaces WHERE "key" = ?`,
        [req.key],
      );
      await tx.run(`DELETE FROM namespaces WHERE "key" = ?`, [req.key]);
    });
  }

  // ---------------------------------------------------------------- flags & variants

  async getFlag(namespaceKey: string, key: string): Promise<Flag> {
    return this.read((tx) => this.flagIn(tx, namespaceKey, key));
  }

  private flagIn(tx: Tx, namespaceKey: string, key: string): Promise<Flag> {
    return this.parentIn(tx, this.flagTable, namespaceKey, key);
  }

  async listFlags(req: ListFlagsRequest): Promise<Page<Flag>> {
    return this.read((tx) => this.parentPage(tx, this.flagTable, req));
  }

  async createFlag(req: CreateFlagRequest): Promise<Flag> {
    return this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) {
        throw new NotFoundError(`namespace "${req.namespaceKey}" not found`);
      }
      try {
        await tx.run(
          `INSERT INTO flags (namespace_key, "key", name, description, enabled, "type", metadata, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            req.namespaceKey,
            req.key,
            req.name,
            req.description,
            req.enabled,
            flagTypeNumber(req.type),
            // An empty object means "none", as on update; the answer still echoes it.
            req.metadata === undefined || Object.keys(req.metadata).length === 0
              ? null
              : JSON.stringify(req.metadata),
            this.ts(now),
            this.ts(now),
          ],
        );
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw new InvalidArgumentError(`flag "${req.namespaceKey}/${req.key}" is not unique`);
        }
        throw err;
      }
      return {
        namespaceKey: req.namespaceKey,
        key: req.key,
        name: req.name,
        description: req.description,
        enabled: req.enabled,
        type: req.type,
        createdAt: now,
        updatedAt: now,
        variants: [],
        ...(req.metadata !== undefined ? { metadata: req.metadata } : {}),
      };
    });
  }

  async updateFlag(req: UpdateFlagRequest): Promise<Flag> {
    return this.write(async (tx, now) => {
      const notFound = (): NotFoundError =>
        new NotFoundError(`flag "${req.namespaceKey}/${req.key}" not found`);
      if (!(await this.bump(tx, req.namespaceKey, now))) throw notFound();
      if (
        !(await this.exists(tx, `SELECT 1 FROM flags WHERE namespace_key = ? AND "key" = ?`, [
          req.namespaceKey,
          req.key,
        ]))
      ) {
        throw notFound();
      }
      if (
        req.defaultVariantId !== '' &&
        !(await this.exists(
          tx,
          `SELECT 1 FROM variants WHERE id = ? AND namespace_key = ? AND flag_key = ?`,
          [req.defaultVariantId, req.namespaceKey, req.key],
        ))
      ) {
        throw new InvalidArgumentError(
          `variant "${req.defaultVariantId}" not found for flag "${req.namespaceKey}/${req.key}"`,
        );
      }
      const sets = ['name = ?', 'description = ?', 'enabled = ?', 'default_variant_id = ?'];
      const params: unknown[] = [
        req.name,
        req.description,
        req.enabled,
        req.defaultVariantId === '' ? null : req.defaultVariantId,
      ];
      if (req.metadata !== undefined) {
        sets.push('metadata = ?');
        params.push(Object.keys(req.metadata).length === 0 ? null : JSON.stringify(req.metadata));
      }
      sets.push('updated_at = ?');
      params.push(this.ts(now), req.namespaceKey, req.key);
      await tx.run(
        `UPDATE flags SET ${sets.join(', ')} WHERE namespace_key = ? AND "key" = ?`,
        params,
      );
      return this.flagIn(tx, req.namespaceKey, req.key);
    });
  }

  async deleteFlag(req: DeleteFlagRequest): Promise<void> {
    await this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) return;
      // Clearing the default first keeps MySQL from a same-table SET NULL inside the cascade.
      await tx.run(
        `UPDATE flags SET default_variant_id = NULL WHERE namespace_key = ? AND "key" = ?`,
        [req.namespaceKey, req.key],
      );
      await tx.run(`DELETE FROM flags WHERE namespace_key = ? AND "key" = ?`, [
        req.namespaceKey,
        req.key,
      ]);
    });
  }

  async createVariant(req: CreateVariantRequest): Promise<Variant> {
    return this.write(async (tx, now) => {
      const flagNotFound = (): NotFoundError =>
        new NotFoundError(`flag "${req.namespaceKey}/${req.flagKey}" not found`);
      if (!(await this.bump(tx, req.namespaceKey, now))) throw flagNotFound();
      if (
        !(await this.exists(tx, `SELECT 1 FROM flags WHERE namespace_key = ? AND "key" = ?`, [
          req.namespaceKey,
          req.flagKey,
        ]))
      ) {
        throw flagNotFound();
      }
      const id = this.deps.ids.uuid();
      try {
        await tx.run(
          `INSERT INTO variants (id, namespace_key, flag_key, "key", name, description, attachment, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            id,
            req.namespaceKey,
            req.flagKey,
            req.key,
            req.name,
            req.description,
            req.attachment === '' ? null : req.attachment,
            this.ts(now),
            this.ts(now),
          ],
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw this.variantNotUnique(req);
        if (isForeignKeyViolation(err)) throw flagNotFound();
        throw err;
      }
      return {
        id,
        namespaceKey: req.namespaceKey,
        flagKey: req.flagKey,
        key: req.key,
        name: req.name,
        description: req.description,
        attachment: req.attachment,
        createdAt: now,
        updatedAt: now,
      };
    });
  }

  private variantNotUnique(req: CreateVariantRequest): InvalidArgumentError {
    return new InvalidArgumentError(
      `variant "${req.key}" is not unique for flag "${req.namespaceKey}/${req.flagKey}"`,
    );
  }

  async updateVariant(req: UpdateVariantRequest): Promise<Variant> {
    return this.write(async (tx, now) => {
      const notFound = (): NotFoundError => new NotFoundError(`variant "${req.key}" not found`);
      if (!(await this.bump(tx, req.namespaceKey, now))) throw notFound();
      const where = `id = ? AND namespace_key = ? AND flag_key = ?`;
      const keys = [req.id, req.namespaceKey, req.flagKey];
      if (!(await this.exists(tx, `SELECT 1 FROM variants WHERE ${where}`, keys))) throw notFound();
      try {
        await tx.run(
          `UPDATE variants SET "key" = ?, name = ?, description = ?, attachment = ?, updated_at = ? WHERE ${where}`,
          [
            req.key,
            req.name,
            req.description,
            req.attachment === '' ? null : req.attachment,
            this.ts(now),
            ...keys,
          ],
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw this.variantNotUnique(req);
        throw err;
      }
      const rows = await tx.all(`SELECT ${VARIANT_COLS} FROM variants WHERE ${where}`, keys);
      const row = rows[0];
      if (!row) throw notFound();
      return this.map.variant(row);
    });
  }

  async deleteVariant(req: DeleteVariantRequest): Promise<void> {
    await this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) return;
      await tx.run(`DELETE FROM variants WHERE id = ? AND namespace_key = ? AND flag_key = ?`, [
        req.id,
        req.namespaceKey,
        req.flagKey,
      ]);
    });
  }

  // ---------------------------------------------------------------- segments & constraints

  async getSegment(namespaceKey: string, key: string): Promise<Segment> {
    return this.read((tx) => this.segmentIn(tx, namespaceKey, key));
  }

  private segmentIn(tx: Tx, namespaceKey: string, key: string): Promise<Segment> {
    return this.parentIn(tx, this.segmentTable, namespaceKey, key);
  }

  async listSegments(req: ListSegmentsRequest): Promise<Page<Segment>> {
    return this.read((tx) => this.parentPage(tx, this.segmentTable, req));
  }

  async createSegment(req: CreateSegmentRequest): Promise<Segment> {
    return this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) {
        throw new NotFoundError(`namespace "${req.namespaceKey}" not found`);
      }
      try {
        await tx.run(
          `INSERT INTO segments (namespace_key, "key", name, description, match_type, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [
            req.namespaceKey,
            req.key,
            req.name,
            req.description,
            matchTypeNumber(req.matchType),
            this.ts(now),
            this.ts(now),
          ],
        );
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw new InvalidArgumentError(`segment "${req.namespaceKey}/${req.key}" is not unique`);
        }
        throw err;
      }
      return {
        namespaceKey: req.namespaceKey,
        key: req.key,
        name: req.name,
        description: req.description,
        matchType: req.matchType,
        createdAt: now,
        updatedAt: now,
        constraints: [],
      };
    });
  }

  async updateSegment(req: UpdateSegmentRequest): Promise<Segment> {
    return this.write(async (tx, now) => {
      const notFound = (): NotFoundError =>
        new NotFoundError(`segment "${req.namespaceKey}/${req.key}" not found`);
      if (!(await this.bump(tx, req.namespaceKey, now))) throw notFound();
      if (
        !(await this.exists(tx, `SELECT 1 FROM segments WHERE namespace_key = ? AND "key" = ?`, [
          req.namespaceKey,
          req.key,
        ]))
      ) {
        throw notFound();
      }
      await tx.run(
        `UPDATE segments SET name = ?, description = ?, match_type = ?, updated_at = ?
         WHERE namespace_key = ? AND "key" = ?`,
        [
          req.name,
          req.description,
          matchTypeNumber(req.matchType),
          this.ts(now),
          req.namespaceKey,
          req.key,
        ],
      );
      return this.segmentIn(tx, req.namespaceKey, req.key);
    });
  }

  async deleteSegment(req: DeleteSegmentRequest): Promise<void> {
    await this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) return;
      const keys = [req.namespaceKey, req.key];
      const inUse = (): InvalidArgumentError =>
        new InvalidArgumentError(`segment "${req.namespaceKey}/${req.key}" is in use`);
      if (
        (await this.exists(
          tx,
          `SELECT 1 FROM rule_segments WHERE namespace_key = ? AND segment_key = ? LIMIT 1`,
          keys,
        )) ||
        (await this.exists(
          tx,
          `SELECT 1 FROM rollout_segment_references WHERE namespace_key = ? AND segment_key = ? LIMIT 1`,
          keys,
        ))
      ) {
        throw inUse();
      }
      try {
        await tx.run(`DELETE FROM segments WHERE namespace_key = ? AND "key" = ?`, keys);
      } catch (err) {
        if (isForeignKeyViolation(err)) throw inUse();
        throw err;
      }
    });
  }

  async createConstraint(req: CreateConstraintRequest): Promise<Constraint> {
    return this.write(async (tx, now) => {
      const notFound = (): NotFoundError =>
        new NotFoundError(`segment "${req.namespaceKey}/${req.segmentKey}" not found`);
      if (!(await this.bump(tx, req.namespaceKey, now))) throw notFound();
      if (
        !(await this.exists(tx, `SELECT 1 FROM segments WHERE namespace_key = ? AND "key" = ?`, [
          req.namespaceKey,
          req.segmentKey,
        ]))
      ) {
        throw notFound();
      }
      const id = this.deps.ids.uuid();
      await tx.run(
        `INSERT INTO constraints (id, namespace_key, segment_key, "type", property, operator, "value", description, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          id,
          req.namespaceKey,
          req.segmentKey,
          comparisonTypeNumber(req.type),
          req.property,
          req.operator,
          req.value,
          req.description,
          this.ts(now),
          this.ts(now),
        ],
      );
      return {
        id,
        namespaceKey: req.namespaceKey,
        segmentKey: req.segmentKey,
        type: req.type,
        property: req.property,
        operator: req.operator,
        value: req.value,
        description: req.description,
        createdAt: now,
        updatedAt: now,
      };
    });
  }

  async updateConstraint(req: UpdateConstraintRequest): Promise<Constraint> {
    return this.write(async (tx, now) => {
      const notFound = (): NotFoundError => new NotFoundError(`constraint "${req.id}" not found`);
      if (!(await this.bump(tx, req.namespaceKey, now))) throw notFound();
      const where = `id = ? AND namespace_key = ? AND segment_key = ?`;
      const keys = [req.id, req.namespaceKey, req.segmentKey];
      if (!(await this.exists(tx, `SELECT 1 FROM constraints WHERE ${where}`, keys))) {
        throw notFound();
      }
      await tx.run(
        `UPDATE constraints SET "type" = ?, property = ?, operator = ?, "value" = ?, description = ?, updated_at = ?
         WHERE ${where}`,
        [
          comparisonTypeNumber(req.type),
          req.property,
          req.operator,
          req.value,
          req.description,
          this.ts(now),
          ...keys,
        ],
      );
      const rows = await tx.all(`SELECT ${CONSTRAINT_COLS} FROM constraints WHERE ${where}`, keys);
      const row = rows[0];
      if (!row) throw notFound();
      return this.map.constraint(row);
    });
  }

  async deleteConstraint(req: DeleteConstraintRequest): Promise<void> {
    await this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) return;
      await tx.run(
        `DELETE FROM constraints WHERE id = ? AND namespace_key = ? AND segment_key = ?`,
        [req.id, req.namespaceKey, req.segmentKey],
      );
    });
  }

  // ---------------------------------------------------------------- rules & distributions

  /**
   * Rules with their segments and distributions. `scope` selects (as a superset) the rules
   * whose children to load, aliased `r`, so that children come in two queries, not 2 per rule.
   */
  private async assembleRules(
    tx: Tx,
    ruleRows: readonly Row[],
    scope: { where: string; params: readonly unknown[] },
    map: RowMapper = this.map,
  ): Promise<Rule[]> {
    if (ruleRows.length === 0) return [];
    const segments = groupBy(
      await tx.all(
        `SELECT rs.rule_id, rs.segment_key FROM rule_segments rs JOIN rules r ON r.id = rs.rule_id
       WHERE ${scope.where} ORDER BY rs.rule_id, rs.position`,
        scope.params,
      ),
      'rule_id',
      (s) => map.keyOf(s['segment_key']),
    );
    const dists = groupBy(
      await tx.all(
        `SELECT d.id, d.rule_id, d.variant_id, d.rollout, d.created_at, d.updated_at
       FROM distributions d JOIN rules r ON r.id = d.rule_id
       WHERE ${scope.where} ORDER BY d.created_at, d.id`,
        scope.params,
      ),
      'rule_id',
      (d) => map.distribution(d),
    );
    return ruleRows.map((r) => {
      const id = String(r['id']);
      return map.rule(r, segments.get(id) ?? [], dists.get(id) ?? []);
    });
  }

  async getRule(namespaceKey: string, id: string): Promise<Rule> {
    return this.read((tx) => this.ruleIn(tx, namespaceKey, id));
  }

  private async ruleIn(tx: Tx, namespaceKey: string, id: string): Promise<Rule> {
    const rows = await tx.all(`SELECT ${RULE_COLS} FROM rules WHERE id = ? AND namespace_key = ?`, [
      id,
      namespaceKey,
    ]);
    const [rule] = await this.assembleRules(tx, rows, {
      where: 'r.id = ? AND r.namespace_key = ?',
      params: [id, namespaceKey],
    });
    if (!rule) throw new NotFoundError(`rule "${namespaceKey}/${id}" not found`);
    return rule;
  }

  async listRules(req: ListRulesRequest): Promise<Page<Rule>> {
    const window = pageWindow(req);
    return this.read(async (tx) => {
      const p = [req.namespaceKey, req.flagKey];
      const total = await this.count(
        tx,
        `SELECT COUNT(*) AS n FROM rules WHERE namespace_key = ? AND flag_key = ?`,
        p,
      );
      const rows = await tx.all(
        `SELECT ${RULE_COLS} FROM rules WHERE namespace_key = ? AND flag_key = ?
         ORDER BY "rank", created_at, id${this.windowSql(window)}`,
        p,
      );
      const rules = await this.assembleRules(tx, rows, {
        where: 'r.namespace_key = ? AND r.flag_key = ?',
        params: p,
      });
      return pageOf(rules, window, (r) => r.id, total);
    });
  }

  /** The first of `keys` (in request order) that is not a segment of the namespace. */
  private async missingSegment(
    tx: Tx,
    namespaceKey: string,
    keys: readonly string[],
  ): Promise<string | undefined> {
    const unique = [...new Set(keys)];
    const found = await this.inChunks(tx, unique, (ph, chunk) =>
      tx.all(`SELECT "key" FROM segments WHERE namespace_key = ? AND "key" IN (${ph})`, [
        namespaceKey,
        ...chunk,
      ]),
    );
    const present = new Set(found.map((r) => String(r['key'])));
    return unique.find((k) => !present.has(k));
  }

  private async segmentsExist(
    tx: Tx,
    namespaceKey: string,
    keys: readonly string[],
  ): Promise<boolean> {
    return (await this.missingSegment(tx, namespaceKey, keys)) === undefined;
  }

  private segmentNotFound(namespaceKey: string, key: string): NotFoundError {
    return new NotFoundError(`segment "${namespaceKey}/${key}" not found`);
  }

  private async flagExists(tx: Tx, namespaceKey: string, key: string): Promise<boolean> {
    return this.exists(tx, `SELECT 1 FROM flags WHERE namespace_key = ? AND "key" = ?`, [
      namespaceKey,
      key,
    ]);
  }

  private async insertRuleSegments(
    tx: Tx,
    ruleId: string,
    namespaceKey: string,
    keys: readonly string[],
  ): Promise<void> {
    for (const [position, key] of keys.entries()) {
      await tx.run(
        `INSERT INTO rule_segments (rule_id, namespace_key, segment_key, position) VALUES (?, ?, ?, ?)`,
        [ruleId, namespaceKey, key, position],
      );
    }
  }

  /** Flipt names the segment only when the request used the single `segmentKey` form. */
  private ruleRefsNotFound(namespaceKey: string, flagKey: string, keys: readonly string[]) {
    const segmentKey = keys.length === 1 ? (keys[0] ?? '') : '';
    return new NotFoundError(
      `flag "${namespaceKey}/${flagKey}" or segment "${namespaceKey}/${segmentKey}" not found`,
    );
  }

  async createRule(req: CreateRuleRequest): Promise<Rule> {
    return this.write(async (tx, now) => {
      const notFound = (): NotFoundError =>
        this.ruleRefsNotFound(req.namespaceKey, req.flagKey, req.segmentKeys);
      if (!(await this.bump(tx, req.namespaceKey, now))) throw notFound();
      if (
        !(await this.flagExists(tx, req.namespaceKey, req.flagKey)) ||
        !(await this.segmentsExist(tx, req.namespaceKey, req.segmentKeys))
      ) {
        throw notFound();
      }
      const id = this.deps.ids.uuid();
      try {
        await tx.run(
          `INSERT INTO rules (id, namespace_key, flag_key, "rank", segment_operator, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [
            id,
            req.namespaceKey,
            req.flagKey,
            req.rank,
            segmentOperatorNumber(req.segmentOperator),
            this.ts(now),
            this.ts(now),
          ],
        );
        await this.insertRuleSegments(tx, id, req.namespaceKey, req.segmentKeys);
      } catch (err) {
        if (isForeignKeyViolation(err)) throw notFound();
        throw err;
      }
      return {
        id,
        namespaceKey: req.namespaceKey,
        flagKey: req.flagKey,
        segmentKeys: [...req.segmentKeys],
        segmentOperator: req.segmentOperator,
        rank: req.rank,
        distributions: [],
        createdAt: now,
        updatedAt: now,
      };
    });
  }

  async updateRule(req: UpdateRuleRequest): Promise<Rule> {
    return this.write(async (tx, now) => {
      const notFound = (): NotFoundError =>
        new NotFoundError(`rule "${req.namespaceKey}/${req.id}" not found`);
      if (!(await this.bump(tx, req.namespaceKey, now))) throw notFound();
      if (
        !(await this.exists(
          tx,
          `SELECT 1 FROM rules WHERE id = ? AND namespace_key = ? AND flag_key = ?`,
          [req.id, req.namespaceKey, req.flagKey],
        ))
      ) {
        throw notFound();
      }
      const missing = await this.missingSegment(tx, req.namespaceKey, req.segmentKeys);
      if (missing !== undefined) throw this.segmentNotFound(req.namespaceKey, missing);
      await tx.run(`UPDATE rules SET segment_operator = ?, updated_at = ? WHERE id = ?`, [
        segmentOperatorNumber(req.segmentOperator),
        this.ts(now),
        req.id,
      ]);
      await tx.run(`DELETE FROM rule_segments WHERE rule_id = ?`, [req.id]);
      await this.insertRuleSegments(tx, req.id, req.namespaceKey, req.segmentKeys);
      return this.ruleIn(tx, req.namespaceKey, req.id);
    });
  }

  /** Renumbers the flag's rules or rollouts 1..n in their current order. */
  private async renumber(
    tx: Tx,
    table: 'rules' | 'rollouts',
    namespaceKey: string,
    flagKey: string,
  ): Promise<void> {
    const rows = await tx.all(
      `SELECT id, "rank" FROM ${table} WHERE namespace_key = ? AND flag_key = ? ORDER BY "rank", created_at, id`,
      [namespaceKey, flagKey],
    );
    for (const [i, row] of rows.entries()) {
      if (num(row['rank']) !== i + 1) {
        await tx.run(`UPDATE ${table} SET "rank" = ? WHERE id = ?`, [i + 1, row['id']]);
      }
    }
  }

  private async deleteRanked(
    table: 'rules' | 'rollouts',
    req: { namespaceKey: string; flagKey: string; id: string },
  ): Promise<void> {
    await this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) return;
      await tx.run(`DELETE FROM ${table} WHERE id = ? AND namespace_key = ? AND flag_key = ?`, [
        req.id,
        req.namespaceKey,
        req.flagKey,
      ]);
      // Renumbered even when nothing was deleted, as Flipt does.
      await this.renumber(tx, table, req.namespaceKey, req.flagKey);
    });
  }

  private async orderRanked(
    table: 'rules' | 'rollouts',
    namespaceKey: string,
    flagKey: string,
    ids: readonly string[],
  ): Promise<void> {
    await this.write(async (tx, now) => {
      if (!(await this.bump(tx, namespaceKey, now))) return;
      for (const [i, id] of ids.entries()) {
        await tx.run(
          `UPDATE ${table} SET "rank" = ?, updated_at = ? WHERE id = ? AND namespace_key = ? AND flag_key = ?`,
          [i + 1, this.ts(now), id, namespaceKey, flagKey],
        );
      }
    });
  }

  async deleteRule(req: DeleteRuleRequest): Promise<void> {
    await this.deleteRanked('rules', req);
  }

  async orderRules(req: OrderRulesRequest): Promise<void> {
    await this.orderRanked('rules', req.namespaceKey, req.flagKey, req.ruleIds);
  }

  private async distributionRefsExist(tx: Tx, req: CreateDistributionRequest): Promise<boolean> {
    return this.exists(
      tx,
      `SELECT 1 FROM rules r, variants v, flags f
       WHERE r.id = ? AND r.namespace_key = ? AND v.id = ? AND v.namespace_key = ?
         AND f."key" = ? AND f.namespace_key = ?`,
      [
        req.ruleId,
        req.namespaceKey,
        req.variantId,
        req.namespaceKey,
        req.flagKey,
        req.namespaceKey,
      ],
    );
  }

  private distributionRefsNotFound(req: CreateDistributionRequest): NotFoundError {
    return new NotFoundError(
      `variant "${req.variantId}", rule "${req.ruleId}", flag "${req.flagKey}" in namespace "${req.namespaceKey}" not found`,
    );
  }

  async createDistribution(req: CreateDistributionRequest): Promise<Distribution> {
    return this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) throw this.distributionRefsNotFound(req);
      if (!(await this.distributionRefsExist(tx, req))) throw this.distributionRefsNotFound(req);
      const id = this.deps.ids.uuid();
      await tx.run(
        `INSERT INTO distributions (id, rule_id, variant_id, rollout, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
        [id, req.ruleId, req.variantId, req.rollout, this.ts(now), this.ts(now)],
      );
      return {
        id,
        ruleId: req.ruleId,
        variantId: req.variantId,
        rollout: req.rollout,
        createdAt: now,
        updatedAt: now,
      };
    });
  }

  async updateDistribution(req: UpdateDistributionRequest): Promise<Distribution> {
    return this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) throw this.distributionRefsNotFound(req);
      if (!(await this.distributionRefsExist(tx, req))) throw this.distributionRefsNotFound(req);
      const notFound = (): NotFoundError => new NotFoundError(`distribution "${req.id}" not found`);
      const where = `id = ? AND rule_id = ?`;
      if (
        !(await this.exists(tx, `SELECT 1 FROM distributions WHERE ${where}`, [req.id, req.ruleId]))
      ) {
        throw notFound();
      }
      await tx.run(
        `UPDATE distributions SET rollout = ?, variant_id = ?, updated_at = ? WHERE ${where}`,
        [req.rollout, req.variantId, this.ts(now), req.id, req.ruleId],
      );
      const rows = await tx.all(`SELECT ${DIST_COLS} FROM distributions WHERE ${where}`, [
        req.id,
        req.ruleId,
      ]);
      const row = rows[0];
      if (!row) throw notFound();
      return this.map.distribution(row);
    });
  }

  async deleteDistribution(req: DeleteDistributionRequest): Promise<void> {
    await this.write(async (tx, now) => {
      if (!(await this.bump(tx, req.namespaceKey, now))) return;
      await tx.run(`DELETE FROM distributions WHERE id = ? AND rule_id = ? AND variant_id = ?`, [
        req.id,
        req.ruleId,
        req.variantId,
      ]);
    });
  }

  // ---------------------------------------------------------------- rollouts

  private async assembleRollouts(
    tx: Tx,
    rolloutRows: readonly Row[],
    scope: { where: string; params: readonly unknown[] },
    map: RowMapper = this.map,
  ): Promise<Rollout[]> {
    if (rolloutRows.length === 0) return [];
    const thresholdRows = await tx.all(
      `SELECT t.rollout_id, t.percentage, t."value" FROM rollout_thresholds t
       JOIN rollouts r ON r.id = t.rollout_id WHERE ${scope.where}`,
      scope.params,
    );
    const segmentRows = await tx.all(
      `SELECT s.id, s.rollout_id, s."value", s.segment_operator FROM rollout_segments s
       JOIN rollouts r ON r.id = s.rollout_id WHERE ${scope.where}`,
      scope.params,
    );
    const refRows = await tx.all(
      `SELECT ref.rollout_segment_id, ref.segment_key FROM rollout_segment_references ref
       JOIN rollout_segments s ON s.id = ref.rollout_segment_id
       JOIN rollouts r ON r.id = s.rollout_id
       WHERE ${scope.where} ORDER BY ref.rollout_segment_id, ref.position`,
      scope.params,
    );
    const thresholds = groupBy(thresholdRows, 'rollout_id');
    const segments = groupBy(segmentRows, 'rollout_id');
    const refs = groupBy(refRows, 'rollout_segment_id');
    return rolloutRows.map((r) => {
      const id = String(r['id']);
      const segmentRow = segments.get(id)?.[0];
      return map.rollout(
        r,
        segmentRow
          ? {
              row: segmentRow,
              segmentKeys: (refs.get(String(segmentRow['id'])) ?? []).map((x) =>
                map.keyOf(x['segment_key']),
              ),
            }
          : undefined,
        thresholds.get(id)?.[0],
      );
    });
  }

  async getRollout(namespaceKey: string, id: string): Promise<Rollout> {
    return this.read((tx) => this.rolloutIn(tx, namespaceKey, id));
  }

  private async rolloutIn(tx: Tx, namespaceKey: string, id: string): Promise<Rollout> {
    const rows = await tx.all(
      `SELECT ${ROLLOUT_COLS} FROM rollouts WHERE id = ? AND namespace_key = ?`,
      [id, namespaceKey],
    );
    const [rollout] = await this.assembleRollouts(tx, rows, {
      where: 'r.id = ? AND r.namespace_key = ?',
      params: [id, namespaceKey],
    });
    if (!rollout) throw new NotFoundError(`rollout "${namespaceKey}/${id}" not found`);
    return rollout;
  }

  async listRollouts(req: ListRolloutsRequest): Promise<Page<Rollout>> {
    const window = pageWindow(req, { ignoreOffset: true });
    return this.read(async (tx) => {
      const p = [req.namespaceKey, req.flagKey];
      const total = await this.count(
        tx,
        `SELECT COUNT(*) AS n FROM rollouts WHERE namespace_key = ? AND flag_key = ?`,
        p,
      );
      const rows = await tx.all(
        `SELECT ${ROLLOUT_COLS} FROM rollouts WHERE namespace_key = ? AND flag_key = ?
         ORDER BY "rank", created_at, id${this.windowSql(window)}`,
        p,
      );
      const rollouts = await this.assembleRollouts(tx, rows, {
        where: 'r.namespace_key = ? AND r.flag_key = ?',
        params: p,
      });
      return pageOf(rollouts, window, (r) => r.id, total);
    });
  }

  private rolloutRefsNotFound(req: CreateRolloutRequest | UpdateRolloutRequest): NotFoundError {
    if (req.segment) {
      const keys = req.segment.segmentKeys;
      const segmentKey = keys.length === 1 ? (keys[0] ?? '') : '';
      return new NotFoundError(
        `flag "${req.namespaceKey}/${req.flagKey} or segment ${segmentKey}" not found`,
      );
    }
    return new NotFoundError(`flag "${req.namespaceKey}/${req.flagKey}" not found`);
  }

  private async insertRolloutRule(
    tx: Tx,
    rolloutId: string,
    req: CreateRolloutRequest | UpdateRolloutRequest,
  ): Promise<void> {
    if (req.segment) {
      const segmentId = this.deps.ids.uuid();
      await tx.run(
        `INSERT INTO rollout_segments (id, rollout_id, "value", segment_operator) VALUES (?, ?, ?, ?)`,
        [
          segmentId,
          rolloutId,
          req.segment.value,
          segmentOperatorNumber(req.segment.segmentOperator),
        ],
      );
      for (const [position, key] of req.segment.segmentKeys.entries()) {
        await tx.run(
          `INSERT INTO rollout_segment_references (rollout_segment_id, namespace_key, segment_key, position)
           VALUES (?, ?, ?, ?)`,
          [segmentId, req.namespaceKey, key, position],
        );
      }
    } else if (req.threshold) {
      await tx.run(
        `INSERT INTO rollout_thresholds (id, namespace_key, rollout_id, percentage, "value")
         VALUES (?, ?, ?, ?, ?)`,
        [
          this.deps.ids.uuid(),
          req.namespaceKey,
          rolloutId,
          req.threshold.percentage,
          req.threshold.value,
        ],
      );
    }
  }

  private async rolloutRefsExist(
    tx: Tx,
    req: CreateRolloutRequest | UpdateRolloutRequest,
  ): Promise<boolean> {
    if (!(await this.flagExists(tx, req.namespaceKey, req.flagKey))) return false;
    return !req.segment || this.segmentsExist(tx, req.namespaceKey, req.segment.segmentKeys);
  }

  async createRollout(req: CreateRolloutRequest): Promise<Rollout> {
    return this.write(async (tx, now) => {
      const nsExists = await this.bump(tx, req.namespaceKey, now);
      if (
        nsExists &&
        (await this.exists(
          tx,
          `SELECT 1 FROM rollouts WHERE namespace_key = ? AND flag_key = ? AND "rank" = ?`,
          [req.namespaceKey, req.flagKey, req.rank],
        ))
      ) {
        throw new InvalidArgumentError(`rank number: ${req.rank} already exists`);
      }
      if (!req.segment && !req.threshold) throw new InvalidArgumentError('rollout rule is missing');
      if (!nsExists || !(await this.rolloutRefsExist(tx, req))) throw this.rolloutRefsNotFound(req);
      const type: RolloutType = req.segment ? 'SEGMENT_ROLLOUT_TYPE' : 'THRESHOLD_ROLLOUT_TYPE';
      const id = this.deps.ids.uuid();
      try {
        await tx.run(
          `INSERT INTO rollouts (id, namespace_key, flag_key, "type", description, "rank", created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            id,
            req.namespaceKey,
            req.flagKey,
            rolloutTypeNumber(type),
            req.description,
            req.rank,
            this.ts(now),
            this.ts(now),
          ],
        );
        await this.insertRolloutRule(tx, id, req);
      } catch (err) {
        if (isForeignKeyViolation(err)) throw this.rolloutRefsNotFound(req);
        throw err;
      }
      return {
        id,
        namespaceKey: req.namespaceKey,
        flagKey: req.flagKey,
        type,
        rank: req.rank,
        description: req.description,
        ...(req.segment
          ? {
              segment: {
                segmentKeys: [...req.segment.segmentKeys],
                segmentOperator: req.segment.segmentOperator,
                value: req.segment.value,
              },
            }
          : {}),
        ...(req.threshold
          ? { threshold: { percentage: req.threshold.percentage, value: req.threshold.value } }
          : {}),
        createdAt: now,
        updatedAt: now,
      };
    });
  }

  async updateRollout(req: UpdateRolloutRequest): Promise<Rollout> {
    return this.write(async (tx, now) => {
      const notFound = (): NotFoundError =>
        new NotFoundError(`rollout "${req.namespaceKey}/${req.id}" not found`);
      if (!(await this.bump(tx, req.namespaceKey, now))) throw notFound();
      const rows = await tx.all(
        `SELECT "type" FROM rollouts WHERE id = ? AND namespace_key = ? AND flag_key = ?`,
        [req.id, req.namespaceKey, req.flagKey],
      );
      const row = rows[0];
      if (!row) throw notFound();
      if (!req.segment && !req.threshold) {
        throw new InvalidArgumentError('invalid field rule: invalid rollout rule type');
      }
      const have = rolloutTypeName(row['type']);
      const attempted: RolloutType = req.segment
        ? 'SEGMENT_ROLLOUT_TYPE'
        : 'THRESHOLD_ROLLOUT_TYPE';
      if (have !== attempted) {
        throw new InvalidArgumentError(
          `cannot change type of rollout: have "${have}" attempted "${attempted}"`,
        );
      }
      if (req.segment) {
        const missing = await this.missingSegment(tx, req.namespaceKey, req.segment.segmentKeys);
        if (missing !== undefined) throw this.segmentNotFound(req.namespaceKey, missing);
      }
      await tx.run(`UPDATE rollouts SET description = ?, updated_at = ? WHERE id = ?`, [
        req.description,
        this.ts(now),
        req.id,
      ]);
      await tx.run(`DELETE FROM rollout_segments WHERE rollout_id = ?`, [req.id]);
      await tx.run(`DELETE FROM rollout_thresholds WHERE rollout_id = ?`, [req.id]);
      await this.insertRolloutRule(tx, req.id, req);
      return this.rolloutIn(tx, req.namespaceKey, req.id);
    });
  }

  async deleteRollout(req: DeleteRolloutRequest): Promise<void> {
    await this.deleteRanked('rollouts', req);
  }

  async orderRollouts(req: OrderRolloutsRequest): Promise<void> {
    await this.orderRanked('rollouts', req.namespaceKey, req.flagKey, req.rolloutIds);
  }
}
