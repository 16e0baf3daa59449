import { toTimestampMessage } from './wire-types';

/**
 * flipt.evaluation.EvaluationNamespaceSnapshot for gRPC, from the document the domain builds
 * in its protojson form (shared with the HTTP route); only the two encodings that differ
 * between protojson and a protobuf message are converted: timestamps (RFC 3339 text ->
 * {seconds, nanos}) and non-finite floats (protojson strings -> numbers). An object the
 * document references from several places (a segment under many rules) is converted once
 * and stays shared, and a document is converted once however many calls ask for it.
 */
export function presentClientSnapshot(document: object): object {
  let message = converted.get(document);
  if (message === undefined) {
    message = toMessageForm(document, undefined, new Map()) as object;
    converted.set(document, message);
  }
  return message;
}

const converted = new WeakMap<object, object>();

const TIMESTAMP_FIELDS = new Set(['createdAt', 'updatedAt']);
const FLOAT_FIELDS = new Set(['rollout', 'percentage']);

function toMessageForm(
  value: unknown,
  field: string | undefined,
  done: Map<object, unknown>,
): unknown {
  if (value !== null && typeof value === 'object') {
    const seen = done.get(value);
    if (seen !== undefined) return seen;
    let out: unknown;
    if (Array.isArray(value)) {
      out = value.map((v) => toMessageForm(v, undefined, done));
    } else {
      const fields: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) fields[k] = toMessageForm(v, k, done);
      out = fields;
    }
    done.set(value, out);
    return out;
  }
  if (typeof value === 'string' && field !== undefined) {
    if (TIMESTAMP_FIELDS.has(field)) return toTimestampMessage(value);
    if (FLOAT_FIELDS.has(field)) return Number(value);
  }
  return value;
}
