import type { FieldSpec, MessageSchema } from '../rpc/message-schema';
import { enumValue, fromStructMessage, type StructMessage } from './wire-types';

/*
 * A request message as proto-loader decodes it (defaults on: every scalar present with its
 * zero value; `optional` fields and oneof members undefined or null when absent; enums as
 * names, or as numbers this server does not know) -> the request message the ManagementApi
 * takes, the same one the HTTP side decodes from proto3 JSON.
 */

type Msg = Readonly<Record<string, unknown>>;

export function fromGrpcMessage(m: Msg, schema: MessageSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema)) out[name] = fromGrpcField(m[name], spec);
  return out;
}

const isObject = (v: unknown): v is Msg => typeof v === 'object' && v !== null;

function fromGrpcField(v: unknown, spec: FieldSpec): unknown {
  switch (spec) {
    case 'string':
      return typeof v === 'string' ? v : '';
    case 'bool':
      return v === true;
    case 'int32':
    case 'float':
      return typeof v === 'number' ? v : 0;
    case 'strings':
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    case 'struct':
      return isObject(v) ? fromStructMessage(v as StructMessage) : undefined;
    case 'stringMap': {
      const out: Record<string, string> = {};
      if (isObject(v)) {
        for (const [key, value] of Object.entries(v))
          out[key] = typeof value === 'string' ? value : '';
      }
      return out;
    }
    default:
      if ('enum' in spec) {
        // Errors name the enum without its package, as `invalid FlagType value: 7`.
        return enumValue(v, spec.values, spec.enum.slice(spec.enum.lastIndexOf('.') + 1));
      }
      return isObject(v) ? fromGrpcMessage(v, spec.message) : undefined;
  }
}
