import {
  makeConstraint,
  OP_FALSE,
  OP_NOTPRESENT,
  OP_PRESENT,
  OP_TRUE,
  TYPE_BOOLEAN,
  type CompiledConstraint,
} from './compiled-constraint';
import { isBlank } from './go-strings';

/** Go `strconv.ParseBool`: 1 for true, 0 for false, -1 for a syntax error. */
export function parseGoBool(s: string): number {
  switch (s) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return 1;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return 0;
    default:
      return -1;
  }
}

/** The constraint value plays no part for BOOLEAN; only the operator does. */
export const compileBooleanConstraint = (
  property: string,
  operator: string,
  value: string,
): CompiledConstraint => makeConstraint({ type: TYPE_BOOLEAN, operator, property, value });

/** Flipt's matchesBool. */
export function matchBoolean(c: CompiledConstraint, v: string): boolean {
  switch (c.op) {
    case OP_NOTPRESENT:
      return isBlank(v);
    case OP_PRESENT:
      return !isBlank(v);
  }
  if (v === '') return false;
  const b = parseGoBool(v);
  if (b < 0) return false;
  if (c.op === OP_TRUE) return b === 1;
  if (c.op === OP_FALSE) return b === 0;
  return false;
}
