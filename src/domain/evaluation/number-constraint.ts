import {
  makeConstraint,
  operatorCode,
  OP_EQ,
  OP_GT,
  OP_GTE,
  OP_ISNOTONEOF,
  OP_ISONEOF,
  OP_LT,
  OP_LTE,
  OP_NEQ,
  OP_NOTPRESENT,
  OP_PRESENT,
  TYPE_NUMBER,
  type CompiledConstraint,
} from './compiled-constraint';
import { parseGoFloat } from './go-parse-float';
import { parseJsonNumberArray } from './go-json';
import { isBlank } from './go-strings';

export function compileNumberConstraint(
  property: string,
  operator: string,
  value: string,
): CompiledConstraint {
  const op = operatorCode(operator);
  if (op === OP_ISONEOF || op === OP_ISNOTONEOF) {
    const list = parseJsonNumberArray(value);
    return makeConstraint({
      type: TYPE_NUMBER,
      operator,
      property,
      value,
      valueOk: list !== undefined,
      numbers: new Set(list ?? []),
    });
  }
  const parsed = parseGoFloat(value);
  return makeConstraint({
    type: TYPE_NUMBER,
    operator,
    property,
    value,
    number: parsed ?? 0,
    valueOk: parsed !== undefined,
  });
}

/** Flipt's matchesNumber; parse errors are non-matches, as Flipt only logs them. */
export function matchNumber(c: CompiledConstraint, v: string): boolean {
  switch (c.op) {
    case OP_NOTPRESENT:
      return isBlank(v);
    case OP_PRESENT:
      return !isBlank(v);
  }
  if (v === '') return false;
  const n = parseGoFloat(v);
  if (n === undefined || !c.valueOk) return false;
  const value = c.number;
  switch (c.op) {
    case OP_ISONEOF:
      // NaN never equals anything in Go, while Set.has(NaN) could be true.
      return n === n && (c.numbers as ReadonlySet<number>).has(n);
    case OP_ISNOTONEOF:
      return n !== n || !(c.numbers as ReadonlySet<number>).has(n);
    case OP_EQ:
      return n === value;
    case OP_NEQ:
      return n !== value;
    case OP_LT:
      return n < value;
    case OP_LTE:
      return n <= value;
    case OP_GT:
      return n > value;
    case OP_GTE:
      return n >= value;
    default:
      return false;
  }
}
