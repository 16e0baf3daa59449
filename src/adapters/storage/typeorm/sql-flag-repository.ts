import type { Flag, ListFlagsRequest, Page, Variant } from '../../../domain/model';
import type { FlagRepository, FlagUpdate, NewFlag, VariantUpdate } from '../../../ports';
import { flagTypeNumber, type RowMapper } from './row-mappers';
import type { Tx } from './sql-session';
import { count, insertRows, parentIn, parentPage, type ParentTable } from './sql-support';

export const FLAG_COLS = `namespace_key, "key", name, description, enabled, "type", default_variant_id, metadata, created_at, updated_at`;
export const VARIANT_COLS = `id, namespace_key, flag_key, "key", name, description, attachment, created_at, updated_at`;

/** Flags are read with their variants, in creation order. */
export const flagTable = (map: RowMapper): ParentTable<Flag> => ({
  table: 'flags',
  cols: FLAG_COLS,
  children: 'variants',
  childCols: VARIANT_COLS,
  childKey: 'flag_key',
  build: (row, children) =>
    map.flag(
      row,
      children.map((v) => map.variant(v)),
    ),
});

const json = (value: object | undefined | null): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

export class SqlFlagRepository implements FlagRepository {
  private readonly table: ParentTable<Flag>;

  constructor(
    private readonly tx: Tx,
    private readonly map: RowMapper,
  ) {
    this.table = flagTable(map);
  }

  getFlag(namespaceKey: string, key: string): Promise<Flag | undefined> {
    return parentIn(this.tx, this.table, namespaceKey, key);
  }

  listFlags(req: ListFlagsRequest): Promise<Page<Flag>> {
    return parentPage(this.tx, this.table, req);
  }

  countFlags(namespaceKey: string): Promise<number> {
    return count(this.tx, `SELECT COUNT(*) AS n FROM flags WHERE namespace_key = ?`, [
      namespaceKey,
    ]);
  }

  createFlag(f: NewFlag): Promise<void> {
    return this.createFlags([f]);
  }

  createFlags(flags: readonly NewFlag[]): Promise<void> {
    const ts = this.tx.dialect.timestampToDb;
    return insertRows(
      this.tx,
      'flags',
      `namespace_key, "key", name, description, enabled, "type", metadata, created_at, updated_at`,
      flags.map((f) => [
        f.namespaceKey,
        f.key,
        f.name,
        f.description,
        f.enabled,
        flagTypeNumber(f.type),
        json(f.metadata),
        ts(f.createdAt),
        ts(f.updatedAt),
      ]),
    );
  }

  async setDefaultVariants(
    namespaceKey: string,
    defaults: ReadonlyArray<{ readonly flagKey: string; readonly variantId: string }>,
  ): Promise<void> {
    // One UPDATE per chunk: CASE maps each flag to its variant.
    for (let i = 0; i < defaults.length; i += 400) {
      const chunk = defaults.slice(i, i + 400);
      await this.tx.run(
        `UPDATE flags SET default_variant_id = CASE "key" ${chunk.map(() => 'WHEN ? THEN ?').join(' ')} END
         WHERE namespace_key = ? AND "key" IN (${chunk.map(() => '?').join(', ')})`,
        [
          ...chunk.flatMap((d) => [d.flagKey, d.variantId]),
          namespaceKey,
          ...chunk.map((d) => d.flagKey),
        ],
      );
    }
  }

  async updateFlag(u: FlagUpdate): Promise<void> {
    const sets = ['name = ?', 'description = ?', 'enabled = ?', 'default_variant_id = ?'];
    const params: unknown[] = [u.name, u.description, u.enabled, u.defaultVariantId ?? null];
    if (u.metadata !== undefined) {
      sets.push('metadata = ?');
      params.push(json(u.metadata));
    }
    sets.push('updated_at = ?');
    params.push(this.tx.dialect.timestampToDb(u.updatedAt), u.namespaceKey, u.key);
    await this.tx.run(
      `UPDATE flags SET ${sets.join(', ')} WHERE namespace_key = ? AND "key" = ?`,
      params,
    );
  }

  async deleteFlag(namespaceKey: string, key: string): Promise<void> {
    // Clearing the default first keeps MySQL from a same-table SET NULL inside the cascade.
    await this.tx.run(
      `UPDATE flags SET default_variant_id = NULL WHERE namespace_key = ? AND "key" = ?`,
      [namespaceKey, key],
    );
    await this.tx.run(`DELETE FROM flags WHERE namespace_key = ? AND "key" = ?`, [
      namespaceKey,
      key,
    ]);
  }

  async getVariant(namespaceKey: string, id: string): Promise<Variant | undefined> {
    const rows = await this.tx.all(
      `SELECT ${VARIANT_COLS} FROM variants WHERE id = ? AND namespace_key = ?`,
      [id, namespaceKey],
    );
    return rows[0] && this.map.variant(rows[0]);
  }

  createVariant(v: Variant): Promise<void> {
    return this.createVariants([v]);
  }

  createVariants(variants: readonly Variant[]): Promise<void> {
    const ts = this.tx.dialect.timestampToDb;
    return insertRows(
      this.tx,
      'variants',
      VARIANT_COLS,
      variants.map((v) => [
        v.id,
        v.namespaceKey,
        v.flagKey,
        v.key,
        v.name,
        v.description,
        v.attachment === '' ? null : v.attachment,
        ts(v.createdAt),
        ts(v.updatedAt),
      ]),
    );
  }

  async updateVariant(v: VariantUpdate): Promise<void> {
    await this.tx.run(
      `UPDATE variants SET "key" = ?, name = ?, description = ?, attachment = ?, updated_at = ?
       WHERE id = ? AND namespace_key = ? AND flag_key = ?`,
      [
        v.key,
        v.name,
        v.description,
        v.attachment === '' ? null : v.attachment,
        this.tx.dialect.timestampToDb(v.updatedAt),
        v.id,
        v.namespaceKey,
        v.flagKey,
      ],
    );
  }

  async deleteVariant(namespaceKey: string, flagKey: string, id: string): Promise<void> {
    await this.tx.run(`DELETE FROM variants WHERE id = ? AND namespace_key = ? AND flag_key = ?`, [
      id,
      namespaceKey,
      flagKey,
    ]);
  }
}
