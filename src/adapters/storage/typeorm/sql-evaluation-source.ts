import type { NamespaceData } from '../../../domain/model';
import type { EvaluationSource } from '../../../ports';
import { groupBy, num, RowMapper } from './row-mappers';
import { FLAG_COLS, VARIANT_COLS } from './sql-flag-repository';
import { NS_COLS } from './sql-namespace-repository';
import { assembleRollouts, ROLLOUT_COLS } from './sql-rollout-repository';
import { assembleRules, RULE_COLS } from './sql-rule-repository';
import { CONSTRAINT_COLS, SEGMENT_COLS } from './sql-segment-repository';
import type { SqlSession } from './sql-session';

/**
 * The evaluation side's reads: the version is one primary-key read; a namespace is read in
 * one read transaction with a fixed number of queries whatever its size.
 */
export class SqlEvaluationSource implements EvaluationSource {
  private readonly map: RowMapper;

  constructor(private readonly session: SqlSession) {
    this.map = new RowMapper(session.dialect);
  }

  async getNamespaceVersion(namespaceKey: string): Promise<number | undefined> {
    const rows = await this.session.query(`SELECT "version" FROM namespaces WHERE "key" = ?`, [
      namespaceKey,
    ]);
    const row = rows[0];
    return row === undefined ? undefined : num(row['version']);
  }

  loadNamespace(namespaceKey: string): Promise<NamespaceData | undefined> {
    return this.session.read(async (tx) => {
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
      const rules = await assembleRules(
        tx,
        map,
        await tx.all(
          `SELECT ${RULE_COLS} FROM rules WHERE namespace_key = ? ORDER BY flag_key, "rank", created_at, id`,
          p,
        ),
        scope,
      );
      const rollouts = await assembleRollouts(
        tx,
        map,
        await tx.all(
          `SELECT ${ROLLOUT_COLS} FROM rollouts WHERE namespace_key = ? ORDER BY flag_key, "rank", created_at, id`,
          p,
        ),
        scope,
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
}
