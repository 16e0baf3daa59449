import {
  COMPARISON_TYPES,
  FLAG_TYPES,
  MATCH_TYPES,
  ROLLOUT_TYPES,
  SEGMENT_OPERATORS,
  type ComparisonType,
  type Constraint,
  type Distribution,
  type Flag,
  type FlagType,
  type JsonObject,
  type MatchType,
  type Namespace,
  type Rollout,
  type RolloutType,
  type Rule,
  type Segment,
  type SegmentOperator,
  type Variant,
} from '../../../domain/model';
import type { SqlDialect } from './sql-dialect';

/*
 * Rows -> domain objects. Enum columns hold the proto numbers, which are the indexes of the
 * domain's enum name lists; booleans arrive as true/false (pg) or 0/1 (MySQL, SQLite);
 * BIGINT as text.
 */

export type Row = Record<string, unknown>;

const enumNumber = <T extends string>(names: readonly T[], name: T): number => {
  const n = names.indexOf(name);
  if (n < 0) throw new Error(`unknown enum value ${name}`);
  return n;
};
const enumName = <T extends string>(names: readonly T[], value: unknown): T => {
  const name = names[Number(value)];
  if (name === undefined) throw new Error(`unknown enum number ${String(value)}`);
  return name;
};

export const flagTypeNumber = (t: FlagType): number => enumNumber(FLAG_TYPES, t);
export const matchTypeNumber = (t: MatchType): number => enumNumber(MATCH_TYPES, t);
export const comparisonTypeNumber = (t: ComparisonType): number => enumNumber(COMPARISON_TYPES, t);
export const segmentOperatorNumber = (o: SegmentOperator): number =>
  enumNumber(SEGMENT_OPERATORS, o);
export const rolloutTypeNumber = (t: RolloutType): number => enumNumber(ROLLOUT_TYPES, t);
export const rolloutTypeName = (value: unknown): RolloutType => enumName(ROLLOUT_TYPES, value);

export const bool = (v: unknown): boolean =>
  v === true || v === 1 || v === '1' || v === 't' || v === 'true';
export const num = (v: unknown): number => Number(v);
const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
/** JSON column text (pg may hand a parsed value if its raw parser is bypassed). */
const jsonText = (v: unknown): string | undefined =>
  v === null || v === undefined ? undefined : typeof v === 'string' ? v : JSON.stringify(v);

export class RowMapper {
  constructor(private readonly d: SqlDialect) {}

  namespace(r: Row): Namespace {
    return {
      key: str(r['key']),
      name: str(r['name']),
      description: str(r['description']),
      protected: bool(r['protected']),
      createdAt: this.d.timestampFromDb(r['created_at']),
      updatedAt: this.d.timestampFromDb(r['updated_at']),
    };
  }

  variant(r: Row): Variant {
    return {
      id: str(r['id']),
      namespaceKey: str(r['namespace_key']),
      flagKey: str(r['flag_key']),
      key: str(r['key']),
      name: str(r['name']),
      description: str(r['description']),
      attachment: jsonText(r['attachment']) ?? '',
      createdAt: this.d.timestampFromDb(r['created_at']),
      updatedAt: this.d.timestampFromDb(r['updated_at']),
    };
  }

  flag(r: Row, variants: readonly Variant[]): Flag {
    const defaultId = r['default_variant_id'];
    const defaultVariant =
      defaultId === null || defaultId === undefined
        ? undefined
        : variants.find((v) => v.id === defaultId);
    const metadataText = jsonText(r['metadata']);
    return {
      namespaceKey: str(r['namespace_key']),
      key: str(r['key']),
      name: str(r['name']),
      description: str(r['description']),
      enabled: bool(r['enabled']),
      type: enumName(FLAG_TYPES, r['type']),
      createdAt: this.d.timestampFromDb(r['created_at']),
      updatedAt: this.d.timestampFromDb(r['updated_at']),
      variants,
      ...(defaultVariant ? { defaultVariant } : {}),
      ...(metadataText !== undefined ? { metadata: JSON.parse(metadataText) as JsonObject } : {}),
    };
  }

  constraint(r: Row): Constraint {
    return {
      id: str(r['id']),
      namespaceKey: str(r['namespace_key']),
      segmentKey: str(r['segment_key']),
      type: enumName(COMPARISON_TYPES, r['type']),
      property: str(r['property']),
      operator: str(r['operator']),
      value: str(r['value']),
      description: str(r['description']),
      createdAt: this.d.timestampFromDb(r['created_at']),
      updatedAt: this.d.timestampFromDb(r['updated_at']),
    };
  }

  segment(r: Row, constraints: readonly Constraint[]): Segment {
    return {
      namespaceKey: str(r['namespace_key']),
      key: str(r['key']),
      name: str(r['name']),
      description: str(r['description']),
      matchType: enumName(MATCH_TYPES, r['match_type']),
      createdAt: this.d.timestampFromDb(r['created_at']),
      updatedAt: this.d.timestampFromDb(r['updated_at']),
      constraints,
    };
  }

  distribution(r: Row): Distribution {
    return {
      id: str(r['id']),
      ruleId: str(r['rule_id']),
      variantId: str(r['variant_id']),
      rollout: num(r['rollout']),
      createdAt: this.d.timestampFromDb(r['created_at']),
      updatedAt: this.d.timestampFromDb(r['updated_at']),
    };
  }

  rule(r: Row, segmentKeys: readonly string[], distributions: readonly Distribution[]): Rule {
    return {
      id: str(r['id']),
      namespaceKey: str(r['namespace_key']),
      flagKey: str(r['flag_key']),
      segmentKeys,
      segmentOperator: enumName(SEGMENT_OPERATORS, r['segment_operator']),
      rank: num(r['rank']),
      distributions,
      createdAt: this.d.timestampFromDb(r['created_at']),
      updatedAt: this.d.timestampFromDb(r['updated_at']),
    };
  }

  /**
   * `segment` is the rollout_segments row (with `segment_keys`), `threshold` the
   * rollout_thresholds row; whichever the rollout has.
   */
  rollout(
    r: Row,
    segment: { row: Row; segmentKeys: readonly string[] } | undefined,
    threshold: Row | undefined,
  ): Rollout {
    return {
      id: str(r['id']),
      namespaceKey: str(r['namespace_key']),
      flagKey: str(r['flag_key']),
      type: rolloutTypeName(r['type']),
      rank: num(r['rank']),
      description: str(r['description']),
      ...(segment
        ? {
            segment: {
              segmentKeys: segment.segmentKeys,
              segmentOperator: enumName(SEGMENT_OPERATORS, segment.row['segment_operator']),
              value: bool(segment.row['value']),
            },
          }
        : {}),
      ...(threshold
        ? {
            threshold: {
              percentage: num(threshold['percentage']),
              value: bool(threshold['value']),
            },
          }
        : {}),
      createdAt: this.d.timestampFromDb(r['created_at']),
      updatedAt: this.d.timestampFromDb(r['updated_at']),
    };
  }
}

/** Groups rows by a key, keeping their order. */
export function groupBy(rows: readonly Row[], key: string): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const k = str(row[key]);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
