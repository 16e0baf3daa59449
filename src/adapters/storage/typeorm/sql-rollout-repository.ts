import type {
  ListRolloutsRequest,
  Page,
  Rollout,
  RolloutSegment,
  RolloutThreshold,
} from '../../../domain/model';
import type { IdGenerator, RankedId, RolloutRepository, RolloutUpdate } from '../../../ports';
import { pageOf, pageWindow } from '../page-token';
import {
  groupBy,
  rolloutTypeNumber,
  segmentOperatorNumber,
  type Row,
  type RowMapper,
} from './row-mappers';
import type { Scope } from './sql-rule-repository';
import type { Reads, Tx } from './sql-session';
import { count, insertRows, listRanks, orderRanked, windowSql } from './sql-support';

export const ROLLOUT_COLS = `id, namespace_key, flag_key, "type", description, "rank", created_at, updated_at`;

/** Rollouts with their segment or threshold: children in three queries, whatever the count. */
export async function assembleRollouts(
  tx: Reads,
  map: RowMapper,
  rolloutRows: readonly Row[],
  scope: Scope,
): Promise<Rollout[]> {
  if (rolloutRows.length === 0) return [];
  const [thresholds, segments, refs] = [
    await rolloutThresholds(tx, scope),
    await rolloutSegments(tx, scope),
    await rolloutSegmentReferences(tx, scope),
  ];
  return buildRollouts(map, rolloutRows, thresholds, segments, refs);
}

/**
 * The rollouts `rows` reads, assembled as `assembleRollouts` does; where statements run at
 * once, the children are read alongside the rollouts instead of after them.
 */
export async function readRollouts(
  reads: Reads,
  map: RowMapper,
  rows: () => Promise<Row[]>,
  scope: Scope,
): Promise<Rollout[]> {
  if (reads.concurrent !== true) return assembleRollouts(reads, map, await rows(), scope);
  const [rolloutRows, thresholds, segments, refs] = await Promise.all([
    rows(),
    rolloutThresholds(reads, scope),
    rolloutSegments(reads, scope),
    rolloutSegmentReferences(reads, scope),
  ]);
  return buildRollouts(map, rolloutRows, thresholds, segments, refs);
}

const rolloutThresholds = (reads: Reads, scope: Scope): Promise<Row[]> =>
  reads.all(
    `SELECT t.rollout_id, t.percentage, t."value" FROM rollout_thresholds t
     JOIN rollouts r ON r.id = t.rollout_id WHERE ${scope.where}`,
    scope.params,
  );

const rolloutSegments = (reads: Reads, scope: Scope): Promise<Row[]> =>
  reads.all(
    `SELECT s.id, s.rollout_id, s."value", s.segment_operator FROM rollout_segments s
     JOIN rollouts r ON r.id = s.rollout_id WHERE ${scope.where}`,
    scope.params,
  );

const rolloutSegmentReferences = (reads: Reads, scope: Scope): Promise<Row[]> =>
  reads.all(
    `SELECT ref.rollout_segment_id, ref.segment_key FROM rollout_segment_references ref
     JOIN rollout_segments s ON s.id = ref.rollout_segment_id
     JOIN rollouts r ON r.id = s.rollout_id
     WHERE ${scope.where} ORDER BY ref.rollout_segment_id, ref.position, ref.segment_key`,
    scope.params,
  );

function buildRollouts(
  map: RowMapper,
  rolloutRows: readonly Row[],
  thresholdRows: readonly Row[],
  segmentRows: readonly Row[],
  referenceRows: readonly Row[],
): Rollout[] {
  const thresholds = groupBy(thresholdRows, 'rollout_id');
  const segments = groupBy(segmentRows, 'rollout_id');
  const refs = groupBy(referenceRows, 'rollout_segment_id');
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

export class SqlRolloutRepository implements RolloutRepository {
  /** `ids` names the rows of rollout_segments and rollout_thresholds, which only this adapter sees. */
  constructor(
    private readonly tx: Tx,
    private readonly map: RowMapper,
    private readonly ids: IdGenerator,
  ) {}

  async getRollout(namespaceKey: string, id: string): Promise<Rollout | undefined> {
    const rows = await this.tx.all(
      `SELECT ${ROLLOUT_COLS} FROM rollouts WHERE id = ? AND namespace_key = ?`,
      [id, namespaceKey],
    );
    const [rollout] = await assembleRollouts(this.tx, this.map, rows, {
      where: 'r.id = ? AND r.namespace_key = ?',
      params: [id, namespaceKey],
    });
    return rollout;
  }

  async listRollouts(req: ListRolloutsRequest): Promise<Page<Rollout>> {
    const window = pageWindow(req, { ignoreOffset: true });
    const p = [req.namespaceKey, req.flagKey];
    const total = await count(
      this.tx,
      `SELECT COUNT(*) AS n FROM rollouts WHERE namespace_key = ? AND flag_key = ?`,
      p,
    );
    const rows = await this.tx.all(
      `SELECT ${ROLLOUT_COLS} FROM rollouts WHERE namespace_key = ? AND flag_key = ?
       ORDER BY "rank", created_at, id${windowSql(this.tx, window)}`,
      p,
    );
    const rollouts = await assembleRollouts(this.tx, this.map, rows, {
      where: 'r.namespace_key = ? AND r.flag_key = ?',
      params: p,
    });
    return pageOf(rollouts, window, (r) => r.id, total);
  }

  listRolloutRanks(namespaceKey: string, flagKey: string): Promise<readonly RankedId[]> {
    return listRanks(this.tx, 'rollouts', namespaceKey, flagKey);
  }

  createRollout(r: Rollout): Promise<void> {
    return this.createRollouts([r]);
  }

  async createRollouts(rollouts: readonly Rollout[]): Promise<void> {
    const ts = this.tx.dialect.timestampToDb;
    await insertRows(
      this.tx,
      'rollouts',
      `id, namespace_key, flag_key, "type", description, "rank", created_at, updated_at`,
      rollouts.map((r) => [
        r.id,
        r.namespaceKey,
        r.flagKey,
        rolloutTypeNumber(r.type),
        r.description,
        r.rank,
        ts(r.createdAt),
        ts(r.updatedAt),
      ]),
    );
    await this.insertRules(rollouts);
  }

  async updateRollout(u: RolloutUpdate): Promise<void> {
    await this.tx.run(
      `UPDATE rollouts SET description = ?, updated_at = ? WHERE id = ? AND namespace_key = ?`,
      [u.description, this.tx.dialect.timestampToDb(u.updatedAt), u.id, u.namespaceKey],
    );
    await this.tx.run(`DELETE FROM rollout_segments WHERE rollout_id = ?`, [u.id]);
    await this.tx.run(`DELETE FROM rollout_thresholds WHERE rollout_id = ?`, [u.id]);
    await this.insertRules([
      { id: u.id, namespaceKey: u.namespaceKey, segment: u.segment, threshold: u.threshold },
    ]);
  }

  async deleteRollout(namespaceKey: string, flagKey: string, id: string): Promise<void> {
    await this.tx.run(`DELETE FROM rollouts WHERE id = ? AND namespace_key = ? AND flag_key = ?`, [
      id,
      namespaceKey,
      flagKey,
    ]);
  }

  orderRollouts(
    namespaceKey: string,
    flagKey: string,
    ids: readonly string[],
    updatedAt: string,
  ): Promise<void> {
    return orderRanked(this.tx, 'rollouts', namespaceKey, flagKey, ids, updatedAt);
  }

  /** The segment or threshold row of each rollout, with a segment rollout's references. */
  private async insertRules(
    rollouts: ReadonlyArray<{
      readonly id: string;
      readonly namespaceKey: string;
      readonly segment?: RolloutSegment | undefined;
      readonly threshold?: RolloutThreshold | undefined;
    }>,
  ): Promise<void> {
    const segments: unknown[][] = [];
    const references: unknown[][] = [];
    const thresholds: unknown[][] = [];
    for (const { id, namespaceKey, segment, threshold } of rollouts) {
      if (segment) {
        const segmentId = this.ids.uuid();
        segments.push([
          segmentId,
          id,
          segment.value,
          segmentOperatorNumber(segment.segmentOperator),
        ]);
        segment.segmentKeys.forEach((key, position) =>
          references.push([segmentId, namespaceKey, key, position]),
        );
      } else if (threshold) {
        thresholds.push([this.ids.uuid(), namespaceKey, id, threshold.percentage, threshold.value]);
      }
    }
    await insertRows(
      this.tx,
      'rollout_segments',
      'id, rollout_id, "value", segment_operator',
      segments,
    );
    await insertRows(
      this.tx,
      'rollout_segment_references',
      'rollout_segment_id, namespace_key, segment_key, position',
      references,
    );
    await insertRows(
      this.tx,
      'rollout_thresholds',
      'id, namespace_key, rollout_id, percentage, "value"',
      thresholds,
    );
  }
}
