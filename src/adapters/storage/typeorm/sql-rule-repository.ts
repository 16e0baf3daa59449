import type { Distribution, ListRulesRequest, Page, Rule } from '../../../domain/model';
import type {
  DistributionUpdate,
  NewRule,
  RankedId,
  RuleRepository,
  RuleUpdate,
} from '../../../ports';
import { pageOf, pageWindow } from '../page-token';
import { groupBy, segmentOperatorNumber, type Row, type RowMapper } from './row-mappers';
import type { Reads, Tx } from './sql-session';
import { count, insertRows, listRanks, orderRanked, windowSql } from './sql-support';

export const RULE_COLS = `id, namespace_key, flag_key, "rank", segment_operator, created_at, updated_at`;
const DIST_COLS = `id, rule_id, variant_id, rollout, created_at, updated_at`;

/** Which rules' children to load: a superset of the rules given, the rules table aliased `r`. */
export interface Scope {
  readonly where: string;
  readonly params: readonly unknown[];
}

/** Rules with their segments and distributions: children in two queries, not two per rule. */
export async function assembleRules(
  tx: Reads,
  map: RowMapper,
  ruleRows: readonly Row[],
  scope: Scope,
): Promise<Rule[]> {
  if (ruleRows.length === 0) return [];
  return buildRules(
    map,
    ruleRows,
    await ruleSegments(tx, scope),
    await ruleDistributions(tx, scope),
  );
}

/**
 * The rules `rows` reads, assembled as `assembleRules` does; where statements run at once,
 * the children are read alongside the rules instead of after them.
 */
export async function readRules(
  reads: Reads,
  map: RowMapper,
  rows: () => Promise<Row[]>,
  scope: Scope,
): Promise<Rule[]> {
  if (reads.concurrent !== true) return assembleRules(reads, map, await rows(), scope);
  const [ruleRows, segments, dists] = await Promise.all([
    rows(),
    ruleSegments(reads, scope),
    ruleDistributions(reads, scope),
  ]);
  return buildRules(map, ruleRows, segments, dists);
}

const ruleSegments = (reads: Reads, scope: Scope): Promise<Row[]> =>
  reads.all(
    `SELECT rs.rule_id, rs.segment_key FROM rule_segments rs JOIN rules r ON r.id = rs.rule_id
     WHERE ${scope.where} ORDER BY rs.rule_id, rs.position, rs.segment_key`,
    scope.params,
  );

const ruleDistributions = (reads: Reads, scope: Scope): Promise<Row[]> =>
  reads.all(
    `SELECT d.id, d.rule_id, d.variant_id, d.rollout, d.created_at, d.updated_at
     FROM distributions d JOIN rules r ON r.id = d.rule_id
     WHERE ${scope.where} ORDER BY d.created_at, d.id`,
    scope.params,
  );

function buildRules(
  map: RowMapper,
  ruleRows: readonly Row[],
  segmentRows: readonly Row[],
  distributionRows: readonly Row[],
): Rule[] {
  const segments = groupBy(segmentRows, 'rule_id', (s) => map.keyOf(s['segment_key']));
  const dists = groupBy(distributionRows, 'rule_id', (d) => map.distribution(d));
  return ruleRows.map((r) => {
    const id = String(r['id']);
    return map.rule(r, segments.get(id) ?? [], dists.get(id) ?? []);
  });
}

export class SqlRuleRepository implements RuleRepository {
  constructor(
    private readonly tx: Tx,
    private readonly map: RowMapper,
  ) {}

  async getRule(namespaceKey: string, id: string): Promise<Rule | undefined> {
    const rows = await this.tx.all(
      `SELECT ${RULE_COLS} FROM rules WHERE id = ? AND namespace_key = ?`,
      [id, namespaceKey],
    );
    const [rule] = await assembleRules(this.tx, this.map, rows, {
      where: 'r.id = ? AND r.namespace_key = ?',
      params: [id, namespaceKey],
    });
    return rule;
  }

  async listRules(req: ListRulesRequest): Promise<Page<Rule>> {
    const window = pageWindow(req);
    const p = [req.namespaceKey, req.flagKey];
    const total = await count(
      this.tx,
      `SELECT COUNT(*) AS n FROM rules WHERE namespace_key = ? AND flag_key = ?`,
      p,
    );
    const rows = await this.tx.all(
      `SELECT ${RULE_COLS} FROM rules WHERE namespace_key = ? AND flag_key = ?
       ORDER BY "rank", created_at, id${windowSql(this.tx, window)}`,
      p,
    );
    const rules = await assembleRules(this.tx, this.map, rows, {
      where: 'r.namespace_key = ? AND r.flag_key = ?',
      params: p,
    });
    return pageOf(rules, window, (r) => r.id, total);
  }

  listRuleRanks(namespaceKey: string, flagKey: string): Promise<readonly RankedId[]> {
    return listRanks(this.tx, 'rules', namespaceKey, flagKey);
  }

  createRule(rule: NewRule): Promise<void> {
    return this.createRules([rule]);
  }

  async createRules(rules: readonly NewRule[]): Promise<void> {
    const ts = this.tx.dialect.timestampToDb;
    await insertRows(
      this.tx,
      'rules',
      `id, namespace_key, flag_key, "rank", segment_operator, created_at, updated_at`,
      rules.map((rule) => [
        rule.id,
        rule.namespaceKey,
        rule.flagKey,
        rule.rank,
        segmentOperatorNumber(rule.segmentOperator),
        ts(rule.createdAt),
        ts(rule.updatedAt),
      ]),
    );
    await this.insertSegments(rules);
  }

  async updateRule(u: RuleUpdate): Promise<void> {
    await this.tx.run(
      `UPDATE rules SET segment_operator = ?, updated_at = ? WHERE id = ? AND namespace_key = ?`,
      [
        segmentOperatorNumber(u.segmentOperator),
        this.tx.dialect.timestampToDb(u.updatedAt),
        u.id,
        u.namespaceKey,
      ],
    );
    await this.tx.run(`DELETE FROM rule_segments WHERE rule_id = ?`, [u.id]);
    await this.insertSegments([
      { id: u.id, namespaceKey: u.namespaceKey, segmentKeys: u.segmentKeys },
    ]);
  }

  async deleteRule(namespaceKey: string, flagKey: string, id: string): Promise<void> {
    await this.tx.run(`DELETE FROM rules WHERE id = ? AND namespace_key = ? AND flag_key = ?`, [
      id,
      namespaceKey,
      flagKey,
    ]);
  }

  orderRules(
    namespaceKey: string,
    flagKey: string,
    ids: readonly string[],
    updatedAt: string,
  ): Promise<void> {
    return orderRanked(this.tx, 'rules', namespaceKey, flagKey, ids, updatedAt);
  }

  async getDistribution(ruleId: string, id: string): Promise<Distribution | undefined> {
    const rows = await this.tx.all(
      `SELECT ${DIST_COLS} FROM distributions WHERE id = ? AND rule_id = ?`,
      [id, ruleId],
    );
    return rows[0] && this.map.distribution(rows[0]);
  }

  createDistribution(d: Distribution): Promise<void> {
    return this.createDistributions([d]);
  }

  createDistributions(distributions: readonly Distribution[]): Promise<void> {
    const ts = this.tx.dialect.timestampToDb;
    return insertRows(
      this.tx,
      'distributions',
      `id, rule_id, variant_id, rollout, created_at, updated_at`,
      distributions.map((d) => [
        d.id,
        d.ruleId,
        d.variantId,
        d.rollout,
        ts(d.createdAt),
        ts(d.updatedAt),
      ]),
    );
  }

  async updateDistribution(u: DistributionUpdate): Promise<void> {
    await this.tx.run(
      `UPDATE distributions SET rollout = ?, variant_id = ?, updated_at = ? WHERE id = ? AND rule_id = ?`,
      [u.rollout, u.variantId, this.tx.dialect.timestampToDb(u.updatedAt), u.id, u.ruleId],
    );
  }

  async deleteDistribution(ruleId: string, id: string, variantId: string): Promise<void> {
    await this.tx.run(`DELETE FROM distributions WHERE id = ? AND rule_id = ? AND variant_id = ?`, [
      id,
      ruleId,
      variantId,
    ]);
  }

  private insertSegments(
    rules: ReadonlyArray<Pick<NewRule, 'id' | 'namespaceKey' | 'segmentKeys'>>,
  ): Promise<void> {
    return insertRows(
      this.tx,
      'rule_segments',
      'rule_id, namespace_key, segment_key, position',
      rules.flatMap((r) =>
        r.segmentKeys.map((key, position) => [r.id, r.namespaceKey, key, position]),
      ),
    );
  }
}
