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
  type Timestamp,
  type Variant,
} from '../../../domain/model';
import { compactJson } from '../../../domain/validation';
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

/*
 * Vexil stores attachments compacted; a database adopted from Flipt may hold them as JSONB
 * text (`{"a": 1}`), which Flipt compacts when it reads them, and so does this.
 */
const LOOSE_JSON = /[\s]/;
const attachmentText = (v: unknown): string => {
  const text = jsonText(v);
  if (text === undefined) return '';
  return LOOSE_JSON.test(text) ? (compactJson(text) ?? text) : text;
};

/** A timestamp already in the domain form (SQLite stores it so): it can be used as it is. */
const CANONICAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export class RowMapper {
  /**
   * `keys`: a table that makes equal key columns (namespace, flag and segment keys, variant and
   * rule ids) one string each, for a whole-namespace load where every rule and distribution
   * repeats them. Only for a mapper that lives as long as one load.
   */
  constructor(
    private readonly d: SqlDialect,
    private readonly keys?: Map<string, string>,
  ) {}

  /** A mapper for one whole-namespace load. */
  forNamespaceLoad(): RowMapper {
    return new RowMapper(this.d, new Map());
  }

  private key(v: unknown): string {
    const s = str(v);
    const keys = this.keys;
    if (keys === undefined) return s;
    const known = keys.get(s);
    if (known !== undefined) return known;
    keys.set(s, s);
    return s;
  }

  /*
   * The driver's string is kept when it is already in the domain form: a rebuilt copy is
   * several rope fragments on the heap, which for a namespace of 10 000 flags came to tens of
   * megabytes. An unmodified row has updated_at = created_at and shares the string.
   */
  private timestamp(v: unknown): Timestamp {
    return typeof v === 'string' && CANONICAL_TIMESTAMP.test(v) ? v : this.d.timestampFromDb(v);
  }

  private updatedAt(r: Row, createdAt: Timestamp): Timestamp {
    const updated = r['updated_at'];
    return updated === r['created_at'] ? createdAt : this.timestamp(updated);
  }

  /** A key column (segment key of a rule or rollout), through the load's table if any. */
  keyOf(v: unknown): string {
    return this.key(v);
  }

  namespace(r: Row): Namespace {
    const createdAt = this.timestamp(r['created_at']);
    return {
      key: str(r['key']),
      name: str(r['name']),
      description: str(r['description']),
      protected: bool(r['protected']),
      createdAt,
      updatedAt: this.updatedAt(r, createdAt),
    };
  }

  variant(r: Row): Variant {
    const createdAt = this.timestamp(r['created_at']);
    return {
      id: this.key(r['id']),
      namespaceKey: this.key(r['namespace_key']),
      flagKey: this.key(r['flag_key']),
      key: str(r['key']),
      name: str(r['name']),
      description: str(r['description']),
      attachment: attachmentText(r['attachment']),
      createdAt,
      updatedAt: this.updatedAt(r, createdAt),
    };
  }

  flag(r: Row, variants: readonly Variant[]): Flag {
    const createdAt = this.timestamp(r['created_at']);
    const defaultId = r['default_variant_id'];
    const defaultVariant =
      defaultId === null || defaultId === undefined
        ? undefined
        : variants.find((v) => v.id === defaultId);
    const metadataText = jsonText(r['metadata']);
    return {
      namespaceKey: this.key(r['namespace_key']),
      key: this.key(r['key']),
      name: str(r['name']),
      description: str(r['description']),
      enabled: bool(r['enabled']),
      type: enumName(FLAG_TYPES, r['type']),
      createdAt,
      updatedAt: this.updatedAt(r, createdAt),
      variants,
      ...(defaultVariant ? { defaultVariant } : {}),
      ...(metadataText !== undefined ? { metadata: JSON.parse(metadataText) as JsonObject } : {}),
    };
  }

  constraint(r: Row): Constraint {
    const createdAt = this.timestamp(r['created_at']);
    return {
      id: str(r['id']),
      namespaceKey: this.key(r['namespace_key']),
      segmentKey: this.key(r['segment_key']),
      type: enumName(COMPARISON_TYPES, r['type']),
      property: str(r['property']),
      operator: str(r['operator']),
      value: str(r['value']),
      description: str(r['description']),
      createdAt,
      updatedAt: this.updatedAt(r, createdAt),
    };
  }

  segment(r: Row, constraints: readonly Constraint[]): Segment {
    const createdAt = this.timestamp(r['created_at']);
    return {
      namespaceKey: this.key(r['namespace_key']),
      key: this.key(r['key']),
      name: str(r['name']),
      description: str(r['description']),
      matchType: enumName(MATCH_TYPES, r['match_type']),
      createdAt,
      updatedAt: this.updatedAt(r, createdAt),
      constraints,
    };
  }

  distribution(r: Row): Distribution {
    const createdAt = this.timestamp(r['created_at']);
    return {
      id: str(r['id']),
      ruleId: this.key(r['rule_id']),
      variantId: this.key(r['variant_id']),
      rollout: num(r['rollout']),
      createdAt,
      updatedAt: this.updatedAt(r, createdAt),
    };
  }

  rule(r: Row, segmentKeys: readonly string[], distributions: readonly Distribution[]): Rule {
    const createdAt = this.timestamp(r['created_at']);
    return {
      id: this.key(r['id']),
      namespaceKey: this.key(r['namespace_key']),
      flagKey: this.key(r['flag_key']),
      segmentKeys,
      segmentOperator: enumName(SEGMENT_OPERATORS, r['segment_operator']),
      rank: num(r['rank']),
      distributions,
      createdAt,
      updatedAt: this.updatedAt(r, createdAt),
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
    const createdAt = this.timestamp(r['created_at']);
    return {
      id: str(r['id']),
      namespaceKey: this.key(r['namespace_key']),
      flagKey: this.key(r['flag_key']),
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
      createdAt,
      updatedAt: this.updatedAt(r, createdAt),
    };
  }
}

/** Groups rows by a key, keeping their order; `mapRow` maps each row as it is grouped. */
export function groupBy(rows: readonly Row[], key: string): Map<string, Row[]>;
export function groupBy<T>(
  rows: readonly Row[],
  key: string,
  mapRow: (row: Row) => T,
): Map<string, T[]>;
export function groupBy<T>(
  rows: readonly Row[],
  key: string,
  mapRow?: (row: Row) => T,
): Map<string, (T | Row)[]> {
  const groups = new Map<string, (T | Row)[]>();
  for (const row of rows) {
    const k = str(row[key]);
    const item = mapRow === undefined ? row : mapRow(row);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
