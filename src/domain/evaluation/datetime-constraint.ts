import {
  makeConstraint,
  OP_EQ,
  OP_GT,
  OP_GTE,
  OP_LT,
  OP_LTE,
  OP_NEQ,
  OP_NOTPRESENT,
  OP_PRESENT,
  TYPE_DATETIME,
  type CompiledConstraint,
} from './compiled-constraint';
import {
  compareInstants,
  lastNanos,
  lastSeconds,
  parseDateTime,
  parseDateTimeInto,
} from './go-time';
import { isBlank } from './go-strings';

export function compileDateTimeConstraint(
  property: string,
  operator: string,
  value: string,
): CompiledConstraint {
  const instant = parseDateTime(value);
  return makeConstraint({
    type: TYPE_DATETIME,
    operator,
    property,
    value,
    seconds: instant?.seconds ?? 0,
    nanos: instant?.nanos ?? 0,
    valueOk: instant !== undefined,
  });
}

/** Flipt's matchesDateTime, comparing instants at nanosecond precision. */
export function matchDateTime(c: CompiledConstraint, v: string): boolean {
  switch (c.op) {
    case OP_NOTPRESENT:
      return isBlank(v);
    case OP_PRESENT:
      return !isBlank(v);
  }
  if (v === '') return false;
  if (!parseDateTimeInto(v) || !c.valueOk) return false;
  const cmp = compareInstants(lastSeconds(), lastNanos(), c.seconds, c.nanos);
  switch (c.op) {
    case OP_EQ:
      return cmp === 0;
    case OP_NEQ:
      return cmp !== 0;
    case OP_LT:
      return cmp < 0;
    case OP_LTE:
      return cmp <= 0;
    case OP_GT:
      return cmp > 0;
    case OP_GTE:
      return cmp >= 0;
    default:
      return false;
  }
}
