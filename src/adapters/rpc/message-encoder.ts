import type * as protobuf from 'protobufjs';
import { float32ToJsonNumber, formatTimestamp } from '../../domain/evaluation';
import type { JsonObject } from '../../domain/model';
import { toStructMessage, toTimestampMessage } from '../grpc/wire-types';
import { enumSpec } from './message-schema';
import { messageType, typeName } from './proto-root';

/*
 * Response messages written from the .proto: a domain value goes out field by field in
 * declaration order, each converted by its declared type, for one of two wires:
 *
 * - `json`: proto3 JSON as Flipt's gateway writes it (protojson with EmitDefaultValues):
 *   lowerCamelCase names in declaration order, zero values written, unset messages, oneof
 *   members and `optional` fields left out, enums by name, float as the shortest float32
 *   decimal, 64-bit integers as strings, Timestamps as RFC 3339, Structs with sorted keys.
 * - `grpc`: the object proto-loader serializes: Timestamps as {seconds, nanos}, Structs as
 *   google.protobuf.Struct messages, everything else as it is.
 *
 * Where a domain value is shaped differently from its message (a Page for a list message,
 * the one-segment quirk of rules), a Shape registered for the message type converts it first.
 */

export type Wire = 'json' | 'grpc';
export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };
export type JsonOut = { [key: string]: JsonValue };

/** Domain value -> an object with the message's JSON field names. */
export type Shape = (value: never) => object;
export type Shapes = Readonly<Record<string, Shape>>;

type Convert = (value: unknown) => unknown;

export interface EncoderOptions {
  /**
   * False: zero values of fields without presence (`""`, `0`, `false`, empty lists and maps,
   * an enum's first value) are left out, as protojson does without EmitDefaultValues (what
   * Flipt's gateway writes for `?pretty`). Default true.
   */
  readonly emitDefaults?: boolean;
}

interface FieldPlan {
  readonly name: string;
  readonly convert: Convert;
  /** The field's zero value as converted, for emitDefaults: false (unset for presence fields). */
  readonly zero?: unknown;
  /** A message, a oneof member or an `optional` scalar: left out when unset. */
  readonly presence: boolean;
  /** The real oneof it belongs to (not the synthetic one of `optional`). */
  readonly oneof?: string;
}

/** Compiles and caches one encoder per message type, for one wire and one set of shapes. */
export class MessageEncoders {
  private readonly encoders = new Map<string, Convert>();

  /** `lookup` finds a message type by full name; the protos Vexil serves by default. */
  constructor(
    private readonly wire: Wire,
    private readonly shapes: Shapes = {},
    private readonly lookup: (name: string) => protobuf.Type = messageType,
    private readonly options: EncoderOptions = {},
  ) {}

  /** The encoder of a message type by full name (`flipt.Flag`). */
  encoder(name: string): Convert {
    let encode = this.encoders.get(name);
    if (encode === undefined) {
      encode = this.compile(this.lookup(name));
    }
    return encode;
  }

  encode(name: string, value: unknown): unknown {
    return this.encoder(name)(value);
  }

  private compile(type: protobuf.Type): Convert {
    const name = typeName(type);
    let plans: readonly FieldPlan[] = [];
    const shape = this.shapes[name] as ((value: unknown) => object) | undefined;
    const hasOneof = type.oneofsArray.some((o) => !isSyntheticOneof(o));
    const sparse = this.options.emitDefaults === false;
    const encode: Convert = (value) => {
      const given = value ?? {};
      const src = (shape === undefined ? given : shape(given)) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      const taken = hasOneof ? new Set<string>() : undefined;
      for (const plan of plans) {
        const v = src[plan.name];
        if (plan.presence) {
          if (v === undefined || v === null) continue;
          if (plan.oneof !== undefined && taken !== undefined) {
            if (taken.has(plan.oneof)) continue;
            taken.add(plan.oneof);
          }
        }
        const converted = plan.convert(v);
        if (sparse && !plan.presence && isZero(converted, plan.zero)) continue;
        out[plan.name] = converted;
      }
      return out;
    };
    // Registered before its fields compile, so that a type can contain itself.
    this.encoders.set(name, encode);
    plans = type.fieldsArray.map((field) => this.plan(type, field));
    return encode;
  }

  private plan(type: protobuf.Type, field: protobuf.Field): FieldPlan {
    const oneof = field.partOf;
    const synthetic = oneof !== null && isSyntheticOneof(oneof);
    const isMessage = field.resolvedType !== null && !isEnum(field.resolvedType) && !field.map;
    const convert = this.fieldConverter(type, field);
    const presence = !field.repeated && !field.map && (isMessage || oneof !== null);
    return {
      name: field.name,
      convert,
      ...(presence ? {} : { zero: convert(undefined) }),
      presence,
      ...(oneof !== null && !synthetic ? { oneof: oneof.name } : {}),
    };
  }

  private fieldConverter(type: protobuf.Type, field: protobuf.Field): Convert {
    const element = this.valueConverter(type, field);
    if (field.map) {
      if (this.wire === 'grpc') return (v) => v;
      // protojson writes map entries in key order.
      return (v) => {
        const out: Record<string, unknown> = {};
        const map = (v ?? {}) as Record<string, unknown>;
        for (const key of Object.keys(map).sort()) out[key] = element(map[key]);
        return out;
      };
    }
    if (field.repeated) {
      if (this.wire === 'grpc') return (v) => (Array.isArray(v) ? v.map(element) : v);
      return (v) => (Array.isArray(v) ? v.map(element) : []);
    }
    return element;
  }

  private valueConverter(type: protobuf.Type, field: protobuf.Field): Convert {
    const where = `${typeName(type)}.${field.name}`;
    const resolved = field.resolvedType;
    if (resolved !== null && isEnum(resolved)) {
      if (this.wire === 'grpc') return (v) => v;
      const values = enumSpec(resolved).values;
      return (v) => (typeof v === 'number' ? (values[v] ?? v) : (v ?? values[0]));
    }
    if (resolved !== null) return this.messageConverter(where, resolved as protobuf.Type);
    return this.wire === 'grpc' ? (v) => v : jsonScalar(where, field.type);
  }

  private messageConverter(where: string, type: protobuf.Type): Convert {
    const name = typeName(type);
    switch (name) {
      case 'google.protobuf.Timestamp':
        return this.wire === 'json'
          ? (v) => formatTimestamp(v as string)
          : (v) => toTimestampMessage(v as string);
      case 'google.protobuf.Struct':
        return this.wire === 'json'
          ? (v) => structToJson(v)
          : (v) => toStructMessage(v as JsonObject);
      case 'google.protobuf.Empty':
        return () => ({});
      default:
        if (name.startsWith('google.protobuf.'))
          throw new Error(`${where}: ${name} has no encoding`);
        // Looked up at call time: the nested type may still be compiling.
        return (v) => this.encoder(name)(v);
    }
  }
}

function jsonScalar(where: string, type: string): Convert {
  switch (type) {
    case 'string':
      return (v) => v ?? '';
    case 'bool':
      return (v) => v ?? false;
    case 'int32':
    case 'uint32':
    case 'sint32':
    case 'fixed32':
    case 'sfixed32':
      return (v) => v ?? 0;
    case 'int64':
    case 'uint64':
    case 'sint64':
    case 'fixed64':
    case 'sfixed64':
      return (v) => String(v ?? 0);
    case 'float':
      return (v) => float32ToJsonNumber((v as number | undefined) ?? 0);
    case 'double':
      return (v) => {
        const n = (v as number | undefined) ?? 0;
        return Number.isFinite(n) ? n : String(n);
      };
    default:
      throw new Error(`${where}: ${type} has no JSON encoding`);
  }
}

const isEnum = (t: protobuf.ReflectionObject): t is protobuf.Enum => 'values' in t;

/** A converted value equal to the field's zero value (empty lists and maps included). */
function isZero(value: unknown, zero: unknown): boolean {
  if (value === zero) return true;
  if (Array.isArray(value)) return value.length === 0;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof zero === 'object' &&
    zero !== null &&
    Object.keys(value).length === 0
  );
}

/** The oneof protobufjs makes for a proto3 `optional` field. */
const isSyntheticOneof = (o: protobuf.OneOf): boolean =>
  o.fieldsArray.length === 1 && o.fieldsArray[0]?.options?.['proto3_optional'] === true;

/** google.protobuf.Struct: protojson writes map entries sorted by key, at every level. */
export function structToJson(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(structToJson);
  if (typeof value === 'object' && value !== null) {
    const out: JsonOut = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = structToJson((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  return null;
}
