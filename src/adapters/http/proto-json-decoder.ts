import type {
  EnumSpec,
  FieldSpec,
  MessageSchema,
  MessageSpec,
  ScalarSpec,
} from '../rpc/message-schema';
import { invalidArgument } from './http-error';

/*
 * Decoding of request messages from proto3 JSON bodies and from query strings, as
 * grpc-gateway does it (jsonpb for bodies, its query parser for GET/DELETE). Every field
 * of the schema (derived from the .proto: src/adapters/rpc/message-schema.ts) comes out
 * present, with its zero value when absent, so the result is the protobuf request message
 * the ManagementApi expects.
 */

export type { EnumSpec, FieldSpec, MessageSchema, MessageSpec, ScalarSpec };

export const TYPE_MISMATCH_MESSAGE = 'invalid values for key(s) in json body';

const typeMismatch = (): Error => invalidArgument(TYPE_MISMATCH_MESSAGE);

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const FLOAT32_MAX = 3.4028234663852886e38;

export const snakeCase = (camel: string): string =>
  camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const nameIndexes = new WeakMap<MessageSchema, Map<string, string>>();

/** Maps both the JSON name and the proto (snake_case) name of every field to its JSON name. */
function nameIndex(schema: MessageSchema): Map<string, string> {
  let index = nameIndexes.get(schema);
  if (!index) {
    index = new Map();
    for (const name of Object.keys(schema)) {
      index.set(name, name);
      index.set(snakeCase(name), name);
    }
    nameIndexes.set(schema, index);
  }
  return index;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function zeroValue(spec: FieldSpec): unknown {
  switch (spec) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int32':
    case 'float':
      return 0;
    case 'strings':
      return [];
    case 'stringMap':
      return {};
    case 'struct':
      return undefined;
    default:
      return 'enum' in spec ? spec.values[0] : undefined;
  }
}

/** Every field of `schema` at its zero value (message fields left out). */
export function zeroMessage(schema: MessageSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema)) {
    const zero = zeroValue(spec);
    if (zero !== undefined) out[name] = zero;
  }
  return out;
}

/** Decodes a parsed JSON body (undefined = empty body) into a request message. */
export function decodeJsonMessage(body: unknown, schema: MessageSchema): Record<string, unknown> {
  if (body === undefined || body === null) return zeroMessage(schema);
  if (!isPlainObject(body)) throw typeMismatch();
  const out = zeroMessage(schema);
  const index = nameIndex(schema);
  for (const [key, raw] of Object.entries(body)) {
    const name = index.get(key);
    if (name === undefined) continue; // unknown fields are ignored, as Flipt does
    const spec = schema[name] as FieldSpec;
    const value = raw === null ? zeroValue(spec) : decodeJsonValue(raw, spec);
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}

function decodeJsonValue(raw: unknown, spec: FieldSpec): unknown {
  switch (spec) {
    case 'string':
      if (typeof raw !== 'string') throw typeMismatch();
      return raw;
    case 'bool':
      if (typeof raw !== 'boolean') throw typeMismatch();
      return raw;
    case 'int32':
      return jsonInt32(raw);
    case 'float':
      return jsonFloat32(raw);
    case 'strings':
      if (!Array.isArray(raw) || !raw.every((v) => typeof v === 'string')) throw typeMismatch();
      return raw;
    case 'struct':
      if (!isPlainObject(raw)) throw typeMismatch();
      return raw;
    case 'stringMap': {
      if (!isPlainObject(raw)) throw typeMismatch();
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw)) {
        if (v === null) out[k] = '';
        else if (typeof v === 'string') out[k] = v;
        else throw typeMismatch();
      }
      return out;
    }
    default:
      if ('enum' in spec) return jsonEnum(raw, spec);
      return decodeJsonMessage(raw, spec.message);
  }
}

function jsonInt32(raw: unknown): number {
  let n: number;
  if (typeof raw === 'number') n = raw;
  else if (typeof raw === 'string' && /^-?\d+$/.test(raw)) n = Number(raw);
  else throw typeMismatch();
  if (!Number.isInteger(n) || n < INT32_MIN || n > INT32_MAX) throw typeMismatch();
  return n;
}

function jsonFloat32(raw: unknown): number {
  let n: number;
  if (typeof raw === 'number') n = raw;
  else if (raw === 'NaN') n = NaN;
  else if (raw === 'Infinity') n = Infinity;
  else if (raw === '-Infinity') n = -Infinity;
  else if (typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(Number(raw)))
    n = Number(raw);
  else throw typeMismatch();
  if (Number.isFinite(n) && Math.abs(n) > FLOAT32_MAX) throw typeMismatch();
  return Math.fround(n);
}

/** Go's %q of a short string, close enough for enum names. */
const goQuote = (s: string): string => JSON.stringify(s);

function jsonEnum(raw: unknown, spec: EnumSpec): string {
  if (typeof raw === 'string') {
    if (spec.values.includes(raw)) return raw;
    throw invalidArgument(`unknown value ${goQuote(JSON.stringify(raw))} for enum ${spec.enum}`);
  }
  if (typeof raw === 'number') {
    const name = Number.isInteger(raw) ? spec.values[raw] : undefined;
    if (name !== undefined) return name;
    throw invalidArgument(`unknown value ${goQuote(String(raw))} for enum ${spec.enum}`);
  }
  throw typeMismatch();
}

/**
 * Decodes query parameters (GET/DELETE) into a request message. Parameters may use the
 * JSON or the proto name; repeated fields repeat the parameter; unknown ones are ignored.
 * Errors carry the texts of grpc-gateway's query parser.
 */
export function decodeQueryMessage(
  query: URLSearchParams,
  schema: MessageSchema,
): Record<string, unknown> {
  const out = zeroMessage(schema);
  const index = nameIndex(schema);
  for (const key of new Set(query.keys())) {
    const name = index.get(key);
    if (name === undefined) continue;
    const spec = schema[name] as FieldSpec;
    const values = query.getAll(key);
    if (spec === 'strings') {
      out[name] = [...(out[name] as string[]), ...values];
      continue;
    }
    if (
      spec === 'struct' ||
      spec === 'stringMap' ||
      (typeof spec === 'object' && 'message' in spec)
    )
      continue;
    if (values.length > 1) {
      throw invalidArgument(`too many values for field "${snakeCase(name)}": ${values.join(', ')}`);
    }
    out[name] = queryScalar(values[0] ?? '', spec);
  }
  return out;
}

function queryScalar(value: string, spec: ScalarSpec | EnumSpec): unknown {
  switch (spec) {
    case 'string':
      return value;
    case 'bool':
      if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
      if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
      throw invalidArgument(`strconv.ParseBool: parsing ${goQuote(value)}: invalid syntax`);
    case 'int32': {
      if (!/^[+-]?\d+$/.test(value)) {
        throw invalidArgument(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
      }
      const n = Number(value);
      if (n < INT32_MIN || n > INT32_MAX) {
        throw invalidArgument(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
      }
      return n;
    }
    case 'float': {
      const n = value.trim() === '' ? NaN : Number(value);
      if (Number.isNaN(n) && value !== 'NaN') {
        throw invalidArgument(`strconv.ParseFloat: parsing ${goQuote(value)}: invalid syntax`);
      }
      return Math.fround(n);
    }
    default: {
      if (spec.values.includes(value)) return value;
      if (/^[+-]?\d+$/.test(value)) {
        const name = spec.values[Number(value)];
        if (name !== undefined) return name;
        throw invalidArgument(`${Number(value)} is not a valid ${spec.enum}`);
      }
      throw invalidArgument(`${value} is not a valid ${spec.enum}`);
    }
  }
}
