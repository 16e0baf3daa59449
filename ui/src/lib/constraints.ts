import type { ComparisonType } from '../api/types';

export interface OperatorInfo {
  readonly value: string;
  readonly label: string;
}

const op = (value: string, label: string): OperatorInfo => ({ value, label });

const EQ = op('eq', '==');
const NEQ = op('neq', '!=');
const ONE_OF = op('isoneof', 'is one of');
const NOT_ONE_OF = op('isnotoneof', 'is not one of');
const PRESENT = op('present', 'is present');
const NOT_PRESENT = op('notpresent', 'is not present');

/** The operators the API accepts for each constraint type, in the order a person scans them. */
export const OPERATORS: Readonly<Record<ComparisonType, readonly OperatorInfo[]>> = {
  STRING_COMPARISON_TYPE: [
    EQ,
    NEQ,
    ONE_OF,
    NOT_ONE_OF,
    op('prefix', 'has prefix'),
    op('suffix', 'has suffix'),
    op('contains', 'contains'),
    op('notcontains', 'does not contain'),
    op('empty', 'is empty'),
    op('notempty', 'is not empty'),
  ],
  NUMBER_COMPARISON_TYPE: [
    EQ,
    NEQ,
    op('lt', '<'),
    op('lte', '<='),
    op('gt', '>'),
    op('gte', '>='),
    ONE_OF,
    NOT_ONE_OF,
    PRESENT,
    NOT_PRESENT,
  ],
  BOOLEAN_COMPARISON_TYPE: [op('true', 'is true'), op('false', 'is false'), PRESENT, NOT_PRESENT],
  // The API also accepts isoneof/isnotoneof for datetimes, but they never match: not offered.
  DATETIME_COMPARISON_TYPE: [
    EQ,
    NEQ,
    op('lt', 'is before'),
    op('lte', 'is at or before'),
    op('gt', 'is after'),
    op('gte', 'is at or after'),
    PRESENT,
    NOT_PRESENT,
  ],
  ENTITY_ID_COMPARISON_TYPE: [
    EQ,
    NEQ,
    ONE_OF,
    NOT_ONE_OF,
    op('contains', 'contains'),
    op('notcontains', 'does not contain'),
  ],
};

export const TYPE_LABELS: Readonly<Record<ComparisonType, string>> = {
  STRING_COMPARISON_TYPE: 'String',
  NUMBER_COMPARISON_TYPE: 'Number',
  BOOLEAN_COMPARISON_TYPE: 'Boolean',
  DATETIME_COMPARISON_TYPE: 'Date-time',
  ENTITY_ID_COMPARISON_TYPE: 'Entity ID',
};

export const COMPARISON_TYPES = Object.keys(OPERATORS) as ComparisonType[];

const NO_VALUE = new Set(['empty', 'notempty', 'true', 'false', 'present', 'notpresent']);

export function operatorLabel(type: ComparisonType, operator: string): string {
  return OPERATORS[type]?.find((o) => o.value === operator)?.label ?? operator;
}

export function needsValue(operator: string): boolean {
  return !NO_VALUE.has(operator);
}

export function isListOperator(operator: string): boolean {
  return operator === 'isoneof' || operator === 'isnotoneof';
}

/** Which input suits a constraint's value. */
export function valueInput(
  type: ComparisonType,
  operator: string,
): 'none' | 'list' | 'datetime' | 'number' | 'text' {
  if (!needsValue(operator)) return 'none';
  if (isListOperator(operator)) return 'list';
  if (type === 'DATETIME_COMPARISON_TYPE') return 'datetime';
  if (type === 'NUMBER_COMPARISON_TYPE') return 'number';
  return 'text';
}

/** The operator to keep when the type changes: the same one when still valid, else the first. */
export function operatorForType(type: ComparisonType, current: string): string {
  const ops = OPERATORS[type];
  return ops.some((o) => o.value === current) ? current : (ops[0]?.value ?? 'eq');
}

/** The items of a list value as the editor shows them (one chip per item). */
export function parseListValue(value: string): string[] {
  if (value.trim() === '') return [];
  try {
    const parsed = JSON.parse(value) as unknown;
    if (Array.isArray(parsed)) return parsed.map((v) => String(v));
  } catch {
    // A hand-typed list: fall back to commas.
  }
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The JSON array the API expects for isoneof/isnotoneof: numbers for number constraints. */
export function formatListValue(type: ComparisonType, items: readonly string[]): string {
  if (type === 'NUMBER_COMPARISON_TYPE') {
    return JSON.stringify(items.map((i) => Number(i)));
  }
  return JSON.stringify(items);
}

/**
 * The same checks the API makes, so the form can say what is wrong before sending. The
 * API's own answer still wins: it is shown beside the field when it disagrees.
 */
export function validateConstraint(input: {
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
}): Partial<Record<'property' | 'operator' | 'value', string>> {
  const errors: Partial<Record<'property' | 'operator' | 'value', string>> = {};
  if (input.property.trim() === '') errors.property = 'Enter the context property to compare.';
  if (input.type === 'ENTITY_ID_COMPARISON_TYPE' && input.property !== 'entityId') {
    errors.property = 'Entity ID constraints compare the property "entityId".';
  }
  if (!OPERATORS[input.type].some((o) => o.value === input.operator)) {
    errors.operator = 'Choose an operator valid for this type.';
    return errors;
  }
  if (!needsValue(input.operator)) return errors;
  const value = input.value.trim();
  if (value === '') {
    errors.value = 'Enter a value.';
    return errors;
  }
  if (isListOperator(input.operator)) {
    const items = parseListValue(input.value);
    if (items.length === 0) errors.value = 'Add at least one item.';
    else if (items.length > 100) errors.value = 'A list holds at most 100 items.';
    else if (input.type === 'NUMBER_COMPARISON_TYPE' && items.some((i) => !isNumber(i))) {
      errors.value = 'Every item must be a number.';
    }
    return errors;
  }
  if (input.type === 'NUMBER_COMPARISON_TYPE' && !isNumber(value)) {
    errors.value = 'Enter a number.';
  }
  if (input.type === 'DATETIME_COMPARISON_TYPE' && !isDateTime(value)) {
    errors.value = 'Enter a date (2024-05-01) or a date and time (2024-05-01T10:00:00Z).';
  }
  return errors;
}

function isNumber(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text));
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isDateTime(text: string): boolean {
  if (DATE.test(text)) return !Number.isNaN(Date.parse(`${text}T00:00:00Z`));
  return RFC3339.test(text) && !Number.isNaN(Date.parse(text));
}

/** A short sentence for a constraint: `plan == "pro"`. */
export function describeConstraint(c: {
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
}): string {
  const label = operatorLabel(c.type, c.operator);
  if (!needsValue(c.operator)) return `${c.property} ${label}`;
  if (isListOperator(c.operator))
    return `${c.property} ${label} ${parseListValue(c.value).join(', ')}`;
  return `${c.property} ${label} ${c.value}`;
}
