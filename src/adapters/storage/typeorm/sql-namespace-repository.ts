import type { ListNamespacesRequest, Namespace, Page } from '../../../domain/model';
import type { NamespaceRepository } from '../../../ports';
import { pageOf, pageWindow } from '../page-token';
import { num, type RowMapper } from './row-mappers';
import type { Tx } from './sql-session';
import { count, windowSql } from './sql-support';

export const NS_COLS = `"key", name, description, "protected", created_at, updated_at`;

export class SqlNamespaceRepository implements NamespaceRepository {
  constructor(
    private readonly tx: Tx,
    private readonly map: RowMapper,
  ) {}

  async getNamespace(key: string): Promise<Namespace | undefined> {
    const rows = await this.tx.all(`SELECT ${NS_COLS} FROM namespaces WHERE "key" = ?`, [key]);
    return rows[0] && this.map.namespace(rows[0]);
  }

  async listNamespaces(req: ListNamespacesRequest): Promise<Page<Namespace>> {
    const window = pageWindow(req);
    const total = await count(this.tx, `SELECT COUNT(*) AS n FROM namespaces`, []);
    const rows = await this.tx.all(
      `SELECT ${NS_COLS} FROM namespaces ORDER BY created_at, "key"${windowSql(this.tx, window)}`,
    );
    return pageOf(
      rows.map((r) => this.map.namespace(r)),
      window,
      (n) => n.key,
      total,
    );
  }

  async createNamespace(ns: Namespace): Promise<void> {
    // A key deleted before continues above its last version.
    const tombstone = await this.tx.all(
      `SELECT "version" FROM namespace_tombstones WHERE "key" = ?`,
      [ns.key],
    );
    const version = num(tombstone[0]?.['version'] ?? 0) + 1;
    const ts = this.tx.dialect.timestampToDb;
    await this.tx.run(
      `INSERT INTO namespaces ("key", name, description, "protected", "version", created_at, updated_at, state_modified_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        ns.key,
        ns.name,
        ns.description,
        ns.protected,
        version,
        ts(ns.createdAt),
        ts(ns.updatedAt),
        ts(ns.updatedAt),
      ],
    );
  }

  async updateNamespace(
    u: Pick<Namespace, 'key' | 'name' | 'description' | 'updatedAt'>,
  ): Promise<void> {
    await this.tx.run(
      `UPDATE namespaces SET name = ?, description = ?, updated_at = ? WHERE "key" = ?`,
      [u.name, u.description, this.tx.dialect.timestampToDb(u.updatedAt), u.key],
    );
  }

  async deleteNamespace(key: string): Promise<void> {
    const tx = this.tx;
    // Flags first: their rules release the segments that RESTRICT would otherwise protect,
    // and clearing default variants avoids MySQL's same-table SET NULL during the cascade.
    await tx.run(`UPDATE flags SET default_variant_id = NULL WHERE namespace_key = ?`, [key]);
    await tx.run(`DELETE FROM flags WHERE namespace_key = ?`, [key]);
    await tx.run(`DELETE FROM namespace_tombstones WHERE "key" = ?`, [key]);
    await tx.run(
      `INSERT INTO namespace_tombstones ("key", "version") SELECT "key", "version" FROM namespaces WHERE "key" = ?`,
      [key],
    );
    await tx.run(`DELETE FROM namespaces WHERE "key" = ?`, [key]);
  }
}
