import {
  makeConstraint,
  operatorCode,
  OP_CONTAINS,
  OP_EMPTY,
  OP_EQ,
  OP_ISNOTONEOF,
  OP_ISONEOF,
  OP_NEQ,
  OP_NOTCONTAINS,
  OP_NOTEMPTY,
  OP_PREFIX,
  OP_SUFFIX,
  TYPE_STRING,
  type CompiledConstraint,
} from './compiled-constraint';
import { parseJsonStringArray } from './go-json';
import { isBlank, trimEnd, trimStart } from './go-strings';

/** Compiles STRING (and, with another type code, ENTITY_ID) constraints. */
export function compileStringConstraint(
  property: string,
  operator: string,
  value: string,
  type: number = TYPE_STRING,
): CompiledConstraint {
  const op = operatorCode(operator);
  if (op === OP_ISONEOF || op === OP_ISNOTONEOF) {
    const list = parseJsonStringArray(value);
    return makeConstraint({
      type,
      operator,
      property,
      value,
      valueOk: list !== undefined,
      strings: new Set(list ?? []),
    });
  }
  return makeConstraint({ type, operator, property, value });
}

/** Flipt's matchesString. */
export function matchString(c: CompiledConstraint, v: string): boolean {
  switch (c.op) {
    case OP_EMPTY:
      return isBlank(v);
    case OP_NOTEMPTY:
      return !isBlank(v);
  }
  if (v === '') return false;
  switch (c.op) {
    case OP_EQ:
      return v === c.value;
    case OP_NEQ:
      return v !== c.value;
    case OP_PREFIX: {
      const start = trimStart(v);
      const end = trimEnd(v, start);
      return end - start >= c.value.length && v.startsWith(c.value, start);
    }
    case OP_SUFFIX: {
      const start = trimStart(v);
      const end = trimEnd(v, start);
      return end - start >= c.value.length && v.endsWith(c.value, end);
    }
    case OP_ISONEOF:
      return c.valueOk && (c.strings as ReadonlySet<string>).has(v);
    case OP_ISNOTONEOF:
      return c.valueOk && !(c.strings as ReadonlySet<string>).has(v);
    case OP_CONTAINS:
      return v.includes(c.value);
    case OP_NOTCONTAINS:
      return !v.includes(c.value);
    default:
      return false;
  }
}
