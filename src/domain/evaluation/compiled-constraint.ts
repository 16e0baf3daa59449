/**
 * The compiled form of a constraint. Every constraint type uses this one shape so the
 * matcher's property accesses stay monomorphic; fields a type does not need stay at
 * their neutral values.
 */
export interface CompiledConstraint {
  /** One of the TYPE_* codes. */
  readonly type: number;
  /** One of the OP_* codes (OP_OTHER for an operator the engine does not know). */
  readonly op: number;
  readonly property: string;
  /** The raw value, compared as a string by STRING / ENTITY_ID. */
  readonly value: string;
  /** Parsed NUMBER value; `valueOk` false when it did not parse. */
  readonly number: number;
  /** Parsed DATETIME value. */
  readonly seconds: number;
  readonly nanos: number;
  /** Whether the value (scalar or list) parsed for this type. */
  readonly valueOk: boolean;
  readonly strings: ReadonlySet<string> | null;
  readonly numbers: ReadonlySet<number> | null;
}

export const TYPE_UNKNOWN = 0;
export const TYPE_STRING = 1;
export const TYPE_NUMBER = 2;
export const TYPE_BOOLEAN = 3;
export const TYPE_DATETIME = 4;
export const TYPE_ENTITY_ID = 5;

export const OP_OTHER = 0;
export const OP_EQ = 1;
export const OP_NEQ = 2;
export const OP_LT = 3;
export const OP_LTE = 4;
export const OP_GT = 5;
export const OP_GTE = 6;
export const OP_EMPTY = 7;
export const OP_NOTEMPTY = 8;
export const OP_TRUE = 9;
export const OP_FALSE = 10;
export const OP_PRESENT = 11;
export const OP_NOTPRESENT = 12;
export const OP_PREFIX = 13;
export const OP_SUFFIX = 14;
export const OP_ISONEOF = 15;
export const OP_ISNOTONEOF = 16;
export const OP_CONTAINS = 17;
export const OP_NOTCONTAINS = 18;

const OPERATORS: ReadonlyMap<string, number> = new Map([
  ['eq', OP_EQ],
  ['neq', OP_NEQ],
  ['lt', OP_LT],
  ['lte', OP_LTE],
  ['gt', OP_GT],
  ['gte', OP_GTE],
  ['empty', OP_EMPTY],
  ['notempty', OP_NOTEMPTY],
  ['true', OP_TRUE],
  ['false', OP_FALSE],
  ['present', OP_PRESENT],
  ['notpresent', OP_NOTPRESENT],
  ['prefix', OP_PREFIX],
  ['suffix', OP_SUFFIX],
  ['isoneof', OP_ISONEOF],
  ['isnotoneof', OP_ISNOTONEOF],
  ['contains', OP_CONTAINS],
  ['notcontains', OP_NOTCONTAINS],
]);

/** Operators are case-sensitive: declarative data may hold `EQ`, which Flipt treats as unknown. */
export const operatorCode = (operator: string): number => OPERATORS.get(operator) ?? OP_OTHER;

export interface ConstraintInit {
  readonly type: number;
  readonly operator: string;
  readonly property: string;
  readonly value: string;
  readonly number?: number;
  readonly seconds?: number;
  readonly nanos?: number;
  readonly valueOk?: boolean;
  readonly strings?: ReadonlySet<string> | null;
  readonly numbers?: ReadonlySet<number> | null;
}

export function makeConstraint(init: ConstraintInit): CompiledConstraint {
  return {
    type: init.type,
    op: operatorCode(init.operator),
    property: init.property,
    value: init.value,
    number: init.number ?? 0,
    seconds: init.seconds ?? 0,
    nanos: init.nanos ?? 0,
    valueOk: init.valueOk ?? true,
    strings: init.strings ?? null,
    numbers: init.numbers ?? null,
  };
}
