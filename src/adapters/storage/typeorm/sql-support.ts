import type { ListRequest, Page } from '../../../domain/model';
import { pageOf, pageWindow, type PageWindow } from '../page-token';
import { groupBy, num, type Row } from './row-mappers';
import type { Tx } from './sql-session';

/** Keeps IN lists well below every driver's bound-parameter limit. */
const IN_CHUNK = 500;

export async function exists(tx: Tx, sql: string, params: readonly unknown[]): Promise<boolean> {
  return (await tx.all(sql, params)).length > 0;
}

export async function count(tx: Tx, sql: string, params: readonly unknown[]): Promise<number> {
  const rows = await tx.all(sql, params);
  return num(rows[0]?.['n'] ?? 0);
}

/** Runs `fn` for chunks of `values` and concatenates the rows. */
export async function inChunks(
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

/** Rows per INSERT statement: few statements, and parameters well below every driver's limit. */
const INSERT_CHUNK = 400;

/** Inserts rows (values in `columns` order) with multi-row INSERT statements. */
export async function insertRows(
  tx: Tx,
  table: string,
  columns: string,
  rows: ReadonlyArray<readonly unknown[]>,
): Promise<void> {
  if (rows.length === 0) return;
  const width = (rows[0] as readonly unknown[]).length;
  const tuple = `(${new Array<string>(width).fill('?').join(', ')})`;
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    await tx.run(
      `INSERT INTO ${table} (${columns}) VALUES ${new Array<string>(chunk.length).fill(tuple).join(', ')}`,
      chunk.flat(),
    );
  }
}

/** LIMIT/OFFSET for a page: one row more than asked proves there is a next page. */
export function windowSql(tx: Tx, w: PageWindow): string {
  return tx.dialect.window(w.limit > 0 ? w.limit + 1 : 0, w.offset);
}

/** A table read with its child rows (flags with variants, segments with constraints). */
export interface ParentTable<T> {
  readonly table: string;
  readonly cols: string;
  readonly children: string;
  readonly childCols: string;
  readonly childKey: string;
  readonly build: (row: Row, children: readonly Row[]) => T;
}

export async function parentIn<T>(
  tx: Tx,
  t: ParentTable<T>,
  namespaceKey: string,
  key: string,
): Promise<T | undefined> {
  const rows = await tx.all(
    `SELECT ${t.cols} FROM ${t.table} WHERE namespace_key = ? AND "key" = ?`,
    [namespaceKey, key],
  );
  const row = rows[0];
  if (!row) return undefined;
  const children = await tx.all(
    `SELECT ${t.childCols} FROM ${t.children} WHERE namespace_key = ? AND ${t.childKey} = ? ORDER BY created_at, id`,
    [namespaceKey, key],
  );
  return t.build(row, children);
}

export async function parentPage<T extends { readonly key: string }>(
  tx: Tx,
  t: ParentTable<T>,
  req: ListRequest & { readonly namespaceKey: string },
): Promise<Page<T>> {
  const window = pageWindow(req);
  const p = [req.namespaceKey];
  const total = await count(tx, `SELECT COUNT(*) AS n FROM ${t.table} WHERE namespace_key = ?`, p);
  const rows = await tx.all(
    `SELECT ${t.cols} FROM ${t.table} WHERE namespace_key = ? ORDER BY created_at, "key"${windowSql(tx, window)}`,
    p,
  );
  const keys = rows.map((r) => String(r['key']));
  const childRows = await inChunks(keys, (ph, chunk) =>
    tx.all(
      `SELECT ${t.childCols} FROM ${t.children} WHERE namespace_key = ? AND ${t.childKey} IN (${ph}) ORDER BY created_at, id`,
      [req.namespaceKey, ...chunk],
    ),
  );
  const byParent = groupBy(childRows, t.childKey);
  const items = rows.map((r) => t.build(r, byParent.get(String(r['key'])) ?? []));
  return pageOf(items, window, (item) => item.key, total);
}

/** Gives the listed rows of a flag ranks 1..n in list order; ids of other flags are ignored. */
export async function orderRanked(
  tx: Tx,
  table: 'rules' | 'rollouts',
  namespaceKey: string,
  flagKey: string,
  ids: readonly string[],
  updatedAt: string,
): Promise<void> {
  const ts = tx.dialect.timestampToDb(updatedAt);
  for (const [i, id] of ids.entries()) {
    await tx.run(
      `UPDATE ${table} SET "rank" = ?, updated_at = ? WHERE id = ? AND namespace_key = ? AND flag_key = ?`,
      [i + 1, ts, id, namespaceKey, flagKey],
    );
  }
}

/** The flag's ids with their ranks, by rank then creation. */
export async function listRanks(
  tx: Tx,
  table: 'rules' | 'rollouts',
  namespaceKey: string,
  flagKey: string,
): Promise<Array<{ id: string; rank: number }>> {
  const rows = await tx.all(
    `SELECT id, "rank" FROM ${table} WHERE namespace_key = ? AND flag_key = ? ORDER BY "rank", created_at, id`,
    [namespaceKey, flagKey],
  );
  return rows.map((r) => ({ id: String(r['id']), rank: num(r['rank']) }));
}
