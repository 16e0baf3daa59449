import type { ComparisonType, Constraint } from '../model';
import { compileBooleanConstraint, matchBoolean } from './boolean-constraint';
import {
  makeConstraint,
  TYPE_BOOLEAN,
  TYPE_DATETIME,
  TYPE_ENTITY_ID,
  TYPE_NUMBER,
  TYPE_STRING,
  TYPE_UNKNOWN,
  type CompiledConstraint,
} from './compiled-constraint';
import { compileDateTimeConstraint, matchDateTime } from './datetime-constraint';
import { compileEntityIdConstraint, matchEntityId } from './entity-id-constraint';
import { compileNumberConstraint, matchNumber } from './number-constraint';
import { compileStringConstraint, matchString } from './string-constraint';

/** Request context as the transports hand it over. */
export type EvaluationContext = Readonly<Record<string, string>>;

const TYPE_CODES: Readonly<Record<string, number>> = {
  STRING_COMPARISON_TYPE: TYPE_STRING,
  NUMBER_COMPARISON_TYPE: TYPE_NUMBER,
  BOOLEAN_COMPARISON_TYPE: TYPE_BOOLEAN,
  DATETIME_COMPARISON_TYPE: TYPE_DATETIME,
  ENTITY_ID_COMPARISON_TYPE: TYPE_ENTITY_ID,
};

export const comparisonTypeCode = (type: ComparisonType | string): number =>
  Object.prototype.hasOwnProperty.call(TYPE_CODES, type)
    ? (TYPE_CODES[type] as number)
    : TYPE_UNKNOWN;

/** Unknown types compile: Flipt only fails when such a constraint is evaluated. */
export function compileConstraint(c: Constraint): CompiledConstraint {
  const { property, operator, value } = c;
  switch (comparisonTypeCode(c.type)) {
    case TYPE_STRING:
      return compileStringConstraint(property, operator, value);
    case TYPE_NUMBER:
      return compileNumberConstraint(property, operator, value);
    case TYPE_BOOLEAN:
      return compileBooleanConstraint(property, operator, value);
    case TYPE_DATETIME:
      return compileDateTimeConstraint(property, operator, value);
    case TYPE_ENTITY_ID:
      return compileEntityIdConstraint(property, operator, value);
    default:
      return makeConstraint({ type: TYPE_UNKNOWN, operator, property, value });
  }
}

/**
 * A missing key, an inherited property (`constructor`) and a JSON null all read as "",
 * which is what Go's map lookup gives.
 */
export function contextValue(context: EvaluationContext, property: string): string {
  const v = context[property];
  return typeof v === 'string' ? v : '';
}

/** Constraints of an unknown type never reach this: segments reject them up front. */
export function matchConstraint(
  c: CompiledConstraint,
  context: EvaluationContext,
  entityId: string,
): boolean {
  switch (c.type) {
    case TYPE_STRING:
      return matchString(c, contextValue(context, c.property));
    case TYPE_NUMBER:
      return matchNumber(c, contextValue(context, c.property));
    case TYPE_BOOLEAN:
      return matchBoolean(c, contextValue(context, c.property));
    case TYPE_DATETIME:
      return matchDateTime(c, contextValue(context, c.property));
    case TYPE_ENTITY_ID:
      return matchEntityId(c, entityId);
    default:
      return false;
  }
}
