import { buildClientSnapshot } from '../../domain/evaluation/client-snapshot';
import type { NamespaceData } from '../../domain/model';
import { toTimestampMessage } from './wire-types';

/**
 * flipt.evaluation.EvaluationNamespaceSnapshot for gRPC. The document is built once, in the
 * domain, in its protojson form (shared with the HTTP route); only the two encodings that
 * differ between protojson and a protobuf message are converted here: timestamps (RFC 3339
 * text -> {seconds, nanos}) and non-finite floats (protojson strings -> numbers).
 */
export function presentClientSnapshot(
  namespaceKey: string,
  data: NamespaceData | undefined,
  acceptServerVersion: string | undefined,
): object {
  return toMessageForm(buildClientSnapshot(namespaceKey, data, acceptServerVersion)) as object;
}

const TIMESTAMP_FIELDS = new Set(['createdAt', 'updatedAt']);
const FLOAT_FIELDS = new Set(['rollout', 'percentage']);

function toMessageForm(value: unknown, field?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => toMessageForm(v));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toMessageForm(v, k);
    return out;
  }
  if (typeof value === 'string' && field !== undefined) {
    if (TIMESTAMP_FIELDS.has(field)) return toTimestampMessage(value);
    if (FLOAT_FIELDS.has(field)) return Number(value);
  }
  return value;
}
