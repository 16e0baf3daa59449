import type { Constraint, ListSegmentsRequest, Page, Segment } from '../../../domain/model';
import type {
  ConstraintUpdate,
  NewSegment,
  SegmentRepository,
  SegmentUpdate,
} from '../../../ports';
import { comparisonTypeNumber, matchTypeNumber, type RowMapper } from './row-mappers';
import type { Tx } from './sql-session';
import {
  exists,
  inChunks,
  insertRows,
  parentIn,
  parentPage,
  type ParentTable,
} from './sql-support';

export const SEGMENT_COLS = `namespace_key, "key", name, description, match_type, created_at, updated_at`;
export const CONSTRAINT_COLS = `id, namespace_key, segment_key, "type", property, operator, "value", description, created_at, updated_at`;

/** Segments are read with their constraints, in creation order. */
export const segmentTable = (map: RowMapper): ParentTable<Segment> => ({
  table: 'segments',
  cols: SEGMENT_COLS,
  children: 'constraints',
  childCols: CONSTRAINT_COLS,
  childKey: 'segment_key',
  build: (row, children) =>
    map.segment(
      row,
      children.map((c) => map.constraint(c)),
    ),
});

export class SqlSegmentRepository implements SegmentRepository {
  private readonly table: ParentTable<Segment>;

  constructor(
    private readonly tx: Tx,
    private readonly map: RowMapper,
  ) {
    this.table = segmentTable(map);
  }

  getSegment(namespaceKey: string, key: string): Promise<Segment | undefined> {
    return parentIn(this.tx, this.table, namespaceKey, key);
  }

  listSegments(req: ListSegmentsRequest): Promise<Page<Segment>> {
    return parentPage(this.tx, this.table, req);
  }

  async findSegmentKeys(namespaceKey: string, keys: readonly string[]): Promise<string[]> {
    const rows = await inChunks(keys, (ph, chunk) =>
      this.tx.all(`SELECT "key" FROM segments WHERE namespace_key = ? AND "key" IN (${ph})`, [
        namespaceKey,
        ...chunk,
      ]),
    );
    return rows.map((r) => String(r['key']));
  }

  async isSegmentInUse(namespaceKey: string, key: string): Promise<boolean> {
    const keys = [namespaceKey, key];
    return (
      (await exists(
        this.tx,
        `SELECT 1 FROM rule_segments WHERE namespace_key = ? AND segment_key = ? LIMIT 1`,
        keys,
      )) ||
      (await exists(
        this.tx,
        `SELECT 1 FROM rollout_segment_references WHERE namespace_key = ? AND segment_key = ? LIMIT 1`,
        keys,
      ))
    );
  }

  createSegment(s: NewSegment): Promise<void> {
    return this.createSegments([s]);
  }

  createSegments(segments: readonly NewSegment[]): Promise<void> {
    const ts = this.tx.dialect.timestampToDb;
    return insertRows(
      this.tx,
      'segments',
      `namespace_key, "key", name, description, match_type, created_at, updated_at`,
      segments.map((s) => [
        s.namespaceKey,
        s.key,
        s.name,
        s.description,
        matchTypeNumber(s.matchType),
        ts(s.createdAt),
        ts(s.updatedAt),
      ]),
    );
  }

  async updateSegment(u: SegmentUpdate): Promise<void> {
    await this.tx.run(
      `UPDATE segments SET name = ?, description = ?, match_type = ?, updated_at = ?
       WHERE namespace_key = ? AND "key" = ?`,
      [
        u.name,
        u.description,
        matchTypeNumber(u.matchType),
        this.tx.dialect.timestampToDb(u.updatedAt),
        u.namespaceKey,
        u.key,
      ],
    );
  }

  async deleteSegment(namespaceKey: string, key: string): Promise<void> {
    await this.tx.run(`DELETE FROM segments WHERE namespace_key = ? AND "key" = ?`, [
      namespaceKey,
      key,
    ]);
  }

  async getConstraint(
    namespaceKey: string,
    segmentKey: string,
    id: string,
  ): Promise<Constraint | undefined> {
    const rows = await this.tx.all(
      `SELECT ${CONSTRAINT_COLS} FROM constraints WHERE id = ? AND namespace_key = ? AND segment_key = ?`,
      [id, namespaceKey, segmentKey],
    );
    return rows[0] && this.map.constraint(rows[0]);
  }

  createConstraint(c: Constraint): Promise<void> {
    return this.createConstraints([c]);
  }

  createConstraints(constraints: readonly Constraint[]): Promise<void> {
    const ts = this.tx.dialect.timestampToDb;
    return insertRows(
      this.tx,
      'constraints',
      `id, namespace_key, segment_key, "type", property, operator, "value", description, created_at, updated_at`,
      constraints.map((c) => [
        c.id,
        c.namespaceKey,
        c.segmentKey,
        comparisonTypeNumber(c.type),
        c.property,
        c.operator,
        c.value,
        c.description,
        ts(c.createdAt),
        ts(c.updatedAt),
      ]),
    );
  }

  async updateConstraint(u: ConstraintUpdate): Promise<void> {
    await this.tx.run(
      `UPDATE constraints SET "type" = ?, property = ?, operator = ?, "value" = ?, description = ?, updated_at = ?
       WHERE id = ? AND namespace_key = ? AND segment_key = ?`,
      [
        comparisonTypeNumber(u.type),
        u.property,
        u.operator,
        u.value,
        u.description,
        this.tx.dialect.timestampToDb(u.updatedAt),
        u.id,
        u.namespaceKey,
        u.segmentKey,
      ],
    );
  }

  async deleteConstraint(namespaceKey: string, segmentKey: string, id: string): Promise<void> {
    await this.tx.run(
      `DELETE FROM constraints WHERE id = ? AND namespace_key = ? AND segment_key = ?`,
      [id, namespaceKey, segmentKey],
    );
  }
}
