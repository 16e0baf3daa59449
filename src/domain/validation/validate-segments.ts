import { InvalidArgumentError, ValidationError } from '../errors';
import type {
  ComparisonType,
  CreateConstraintRequest,
  CreateSegmentRequest,
  DeleteConstraintRequest,
  DeleteSegmentRequest,
  GetSegmentRequest,
  ListSegmentsRequest,
  UpdateConstraintRequest,
  UpdateSegmentRequest,
} from '../model';
import { normalizeDatetime } from './datetime';
import { requireField, requireKeyFormat, requireLimitWithPosition } from './field-checks';
import { goQuote } from './go-quote';
import { parseJsonText } from './json-text';
import { requireKeyLength, requireNameLength, requireTextSize } from './limits';

/** isoneof / isnotoneof lists are capped so evaluation stays cheap. */
export const MAX_ONE_OF_VALUES = 100;

const NUMBER_OPERATORS = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'present',
  'notpresent',
  'isoneof',
  'isnotoneof',
];

/** Operators allowed per comparison type, with the type name Flipt's message uses. */
const OPERATORS: Partial<
  Record<ComparisonType, { readonly name: string; readonly ops: readonly string[] }>
> = {
  STRING_COMPARISON_TYPE: {
    name: 'string',
    ops: [
      'eq',
      'neq',
      'empty',
      'notempty',
      'prefix',
      'suffix',
      'isoneof',
      'isnotoneof',
      'contains',
      'notcontains',
    ],
  },
  NUMBER_COMPARISON_TYPE: { name: 'number', ops: NUMBER_OPERATORS },
  BOOLEAN_COMPARISON_TYPE: { name: 'boolean', ops: ['true', 'false', 'present', 'notpresent'] },
  DATETIME_COMPARISON_TYPE: { name: 'datetime', ops: NUMBER_OPERATORS },
  ENTITY_ID_COMPARISON_TYPE: {
    name: 'entityId',
    ops: ['eq', 'neq', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
  },
};

/** Operators that compare nothing: their value is stored as "". */
export const NO_VALUE_OPERATORS: readonly string[] = [
  'empty',
  'notempty',
  'true',
  'false',
  'present',
  'notpresent',
];

export function validateListSegments(req: ListSegmentsRequest): void {
  requireLimitWithPosition(req);
}

export function validateGetSegment(req: GetSegmentRequest): void {
  requireField(req.key, 'key');
}

export function validateCreateSegment(req: CreateSegmentRequest): void {
  requireField(req.key, 'key');
  requireKeyFormat(req.key);
  requireField(req.name, 'name');
  requireKeyLength(req.key);
  requireNameLength(req.name);
  requireTextSize(req.description);
}

export function validateUpdateSegment(req: UpdateSegmentRequest): void {
  requireField(req.key, 'key');
  requireField(req.name, 'name');
  requireNameLength(req.name);
  requireTextSize(req.description);
}

export function validateDeleteSegment(req: DeleteSegmentRequest): void {
  requireField(req.key, 'key');
}

/** Go's json.Unmarshal into []string or []float64 (null items and a null list are accepted). */
function validateOneOfValue(type: ComparisonType, value: string, property: string): void {
  const kind =
    type === 'NUMBER_COMPARISON_TYPE'
      ? 'number'
      : type === 'ENTITY_ID_COMPARISON_TYPE'
        ? 'entityId'
        : type === 'STRING_COMPARISON_TYPE'
          ? 'string'
          : undefined;
  if (kind === undefined) return;
  const itemKind = kind === 'number' ? 'number' : 'string';
  const node = parseJsonText(value);
  const ok =
    node !== undefined &&
    (node.kind === 'null' ||
      (node.kind === 'array' &&
        node.items.every(
          (item) =>
            item.kind === 'null' ||
            (item.kind === itemKind &&
              (item.kind !== 'number' || Number.isFinite(Number(item.raw)))),
        )));
  if (!ok) {
    throw new InvalidArgumentError(
      `invalid value provided for property ${goQuote(property)} of type ${kind}`,
    );
  }
  if (node.kind === 'array' && node.items.length > MAX_ONE_OF_VALUES) {
    throw new InvalidArgumentError(
      `too many values provided for property ${goQuote(property)} of type ${kind} (maximum ${MAX_ONE_OF_VALUES})`,
    );
  }
}

/**
 * Checks a constraint and returns it as Flipt stores it: operator lower-cased, datetime
 * values in UTC, "" as the value of a no-value operator.
 */
export function validateCreateConstraint(req: CreateConstraintRequest): CreateConstraintRequest {
  requireField(req.segmentKey, 'segmentKey');
  requireField(req.property, 'property');
  requireField(req.operator, 'operator');
  // Before the checks whose messages quote the property or the value.
  requireNameLength(req.property, 'property');
  requireTextSize(req.value, 'value');
  requireTextSize(req.description);

  const operator = req.operator.toLowerCase();
  const allowed = OPERATORS[req.type];
  if (allowed === undefined) {
    throw new InvalidArgumentError(`invalid constraint type: ${goQuote(req.type)}`);
  }
  if (!allowed.ops.includes(operator)) {
    throw new InvalidArgumentError(
      `constraint operator ${goQuote(req.operator)} is not valid for type ${allowed.name}`,
    );
  }
  if (req.type === 'ENTITY_ID_COMPARISON_TYPE' && req.property !== 'entityId') {
    throw new InvalidArgumentError(`property is ${req.property} instead of "entityId"`);
  }

  let value = req.value;
  if (value === '') {
    if (!NO_VALUE_OPERATORS.includes(operator))
      throw new ValidationError('value', 'must not be empty');
  } else if (req.type === 'DATETIME_COMPARISON_TYPE') {
    const normalized = normalizeDatetime(value);
    if (normalized === undefined) {
      throw new InvalidArgumentError(`parsing datetime from ${goQuote(value)}`);
    }
    value = normalized;
  } else if (operator === 'isoneof' || operator === 'isnotoneof') {
    validateOneOfValue(req.type, value, req.property);
  }
  if (NO_VALUE_OPERATORS.includes(operator)) value = '';
  return { ...req, operator, value };
}

/** As validateCreateConstraint, after checking the id. */
export function validateUpdateConstraint(req: UpdateConstraintRequest): UpdateConstraintRequest {
  requireField(req.id, 'id');
  return { ...validateCreateConstraint(req), id: req.id };
}

export function validateDeleteConstraint(req: DeleteConstraintRequest): void {
  requireField(req.id, 'id');
  requireField(req.segmentKey, 'segmentKey');
}
