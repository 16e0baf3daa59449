import { InvalidArgumentError } from '../../domain/errors';
import type { JsonObject, Timestamp } from '../../domain/model';

/** google.protobuf.Timestamp as proto-loader hands it over (longs as Number). */
export interface TimestampMessage {
  readonly seconds: number;
  readonly nanos: number;
}

/** google.protobuf.Value with proto-loader's `kind` oneof marker. */
export interface ValueMessage {
  readonly kind?: string;
  readonly nullValue?: string | number;
  readonly numberValue?: number;
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly structValue?: StructMessage;
  readonly listValue?: { readonly values?: readonly ValueMessage[] };
}

export interface StructMessage {
  readonly fields?: { readonly [key: string]: ValueMessage };
}

const TIMESTAMP_RE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/;

/**
 * Domain timestamps are RFC 3339 UTC strings with up to nine fractional digits; the wire
 * wants whole seconds and nanoseconds. Done on the text so no precision goes through a
 * floating-point Date.
 */
export function toTimestampMessage(value: Timestamp): TimestampMessage {
  const m = TIMESTAMP_RE.exec(value);
  if (!m || m[1] === undefined) {
    throw new Error(`malformed timestamp ${JSON.stringify(value)}`);
  }
  const seconds = Math.floor(Date.parse(`${m[1]}Z`) / 1000);
  const nanos = m[2] === undefined ? 0 : Number(m[2].padEnd(9, '0'));
  return { seconds, nanos };
}

export function toOptionalTimestampMessage(
  value: Timestamp | undefined,
): TimestampMessage | undefined {
  return value === undefined ? undefined : toTimestampMessage(value);
}

/** Wire timestamp -> domain form (six fractional digits; sub-microsecond part truncated). */
export function fromTimestampMessage(ts: TimestampMessage): Timestamp {
  const seconds = Number(ts.seconds);
  const nanos = Number(ts.nanos);
  if (!Number.isFinite(seconds) || !Number.isFinite(nanos) || nanos < 0 || nanos > 999_999_999) {
    throw new InvalidArgumentError('invalid timestamp');
  }
  const iso = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const micros = String(Math.floor(nanos / 1000)).padStart(6, '0');
  return `${iso.slice(0, 19)}.${micros}Z`;
}

/** JSON value -> google.protobuf.Value. */
export function toValueMessage(value: unknown): ValueMessage {
  if (value === null || value === undefined) return { nullValue: 'NULL_VALUE' };
  switch (typeof value) {
    case 'number':
      return { numberValue: value };
    case 'string':
      return { stringValue: value };
    case 'boolean':
      return { boolValue: value };
    case 'object':
      if (Array.isArray(value)) return { listValue: { values: value.map(toValueMessage) } };
      return { structValue: toStructMessage(value as JsonObject) };
    default:
      // bigint, function, symbol: not JSON; Struct cannot carry them.
      return { nullValue: 'NULL_VALUE' };
  }
}

export function toStructMessage(obj: JsonObject): StructMessage {
  const fields: Record<string, ValueMessage> = {};
  for (const [key, value] of Object.entries(obj)) {
    // JSON.stringify drops undefined members; the Struct does the same.
    if (value !== undefined) fields[key] = toValueMessage(value);
  }
  return { fields };
}

/** google.protobuf.Value -> JSON value. */
export function fromValueMessage(value: ValueMessage): unknown {
  const kind = value.kind ?? presentKind(value);
  switch (kind) {
    case 'numberValue':
      return value.numberValue ?? 0;
    case 'stringValue':
      return value.stringValue ?? '';
    case 'boolValue':
      return value.boolValue ?? false;
    case 'structValue':
      return fromStructMessage(value.structValue ?? {});
    case 'listValue':
      return (value.listValue?.values ?? []).map(fromValueMessage);
    default:
      return null;
  }
}

export function fromStructMessage(struct: StructMessage): JsonObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(struct.fields ?? {})) {
    out[key] = fromValueMessage(value);
  }
  return out;
}

function presentKind(value: ValueMessage): string | undefined {
  const kinds = ['numberValue', 'stringValue', 'boolValue', 'structValue', 'listValue'] as const;
  return kinds.find((k) => value[k] !== undefined && value[k] !== null);
}

/**
 * proto3 enums are open: a client may send a number this server has no name for, which
 * proto-loader passes through as a number. The domain only knows names, so reject it here.
 */
export function enumValue<T extends string>(
  value: unknown,
  allowed: readonly T[],
  enumName: string,
): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  throw new InvalidArgumentError(`invalid ${enumName} value: ${String(value)}`);
}
