import type * as protobuf from 'protobufjs';
import { messageType, typeName } from './proto-root';

/*
 * A request message as both transports decode it: field JSON names in declaration order, each
 * with the kind of value it holds. Derived from the .proto (requestSchema); the HTTP side
 * reads proto3 JSON and query strings with it, the gRPC side normalises proto-loader's
 * objects with it.
 */

export type ScalarSpec = 'string' | 'bool' | 'int32' | 'float';
export interface EnumSpec {
  /** Fully qualified protobuf name, used in error messages (`flipt.FlagType`). */
  readonly enum: string;
  /** Value names in number order. */
  readonly values: readonly string[];
}
export interface MessageSpec {
  readonly message: MessageSchema;
}
export type FieldSpec =
  | ScalarSpec
  /** repeated string */
  | 'strings'
  /** google.protobuf.Struct with explicit presence: undefined when absent or null. */
  | 'struct'
  /** map<string,string> */
  | 'stringMap'
  | EnumSpec
  /** A message-typed (or oneof) field: undefined when absent or null. */
  | MessageSpec;

/** Field JSON names (lowerCamelCase) in proto declaration order. */
export type MessageSchema = { readonly [jsonName: string]: FieldSpec };

const schemas = new Map<string, MessageSchema>();

/**
 * The schema of a request message (`flipt.CreateFlagRequest`). A field of a kind the decoders
 * have no rule for (int64, bytes, repeated messages, ...) is refused here, when the routes
 * are built, rather than decoded wrongly at the first request.
 */
export function requestSchema(name: string): MessageSchema {
  let schema = schemas.get(name);
  if (schema === undefined) {
    schema = schemaOf(messageType(name));
    schemas.set(name, schema);
  }
  return schema;
}

/** The schema of any message type (requestSchema caches those of Vexil's protos). */
export function schemaOf(type: protobuf.Type): MessageSchema {
  const out: Record<string, FieldSpec> = {};
  for (const field of type.fieldsArray) out[field.name] = fieldSpec(type, field);
  return out;
}

const SCALARS: Readonly<Record<string, ScalarSpec>> = {
  string: 'string',
  bool: 'bool',
  int32: 'int32',
  float: 'float',
};

function fieldSpec(type: protobuf.Type, field: protobuf.Field): FieldSpec {
  const where = `${typeName(type)}.${field.name}`;
  if (field.map) {
    const map = field as unknown as protobuf.MapField;
    if (map.keyType === 'string' && map.type === 'string') return 'stringMap';
    throw new Error(`${where}: only map<string, string> can be decoded`);
  }
  const resolved = field.resolvedType;
  if (field.repeated) {
    if (field.type === 'string' && resolved === null) return 'strings';
    throw new Error(`${where}: only repeated string can be decoded`);
  }
  if (resolved !== null && 'values' in resolved) return enumSpec(resolved as protobuf.Enum);
  if (resolved !== null) {
    if (typeName(resolved) === 'google.protobuf.Struct') return 'struct';
    if (typeName(resolved).startsWith('google.protobuf.')) {
      throw new Error(`${where}: ${typeName(resolved)} cannot be decoded`);
    }
    return { message: schemaOf(resolved as protobuf.Type) };
  }
  const scalar = SCALARS[field.type];
  if (scalar === undefined) throw new Error(`${where}: ${field.type} cannot be decoded`);
  return scalar;
}

const enumSpecs = new WeakMap<protobuf.Enum, EnumSpec>();

export function enumSpec(e: protobuf.Enum): EnumSpec {
  let spec = enumSpecs.get(e);
  if (spec === undefined) {
    const values: string[] = [];
    for (const [valueName, number] of Object.entries(e.values)) values[number] = valueName;
    spec = { enum: typeName(e), values };
    enumSpecs.set(e, spec);
  }
  return spec;
}
