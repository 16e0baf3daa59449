import type {
  BatchEvaluationRequest,
  EvaluationRequest,
  LegacyBatchEvaluationRequest,
  LegacyEvaluationRequest,
} from '../../../domain/model';
import { invalidArgument } from '../http-error';
import { TYPE_MISMATCH_MESSAGE } from '../proto-json-decoder';

type Json = Record<string, unknown>;

const mismatch = () => invalidArgument(TYPE_MISMATCH_MESSAGE);

function asObject(body: unknown): Json {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw mismatch();
  return body as Json;
}

/** A proto3 string field read by its JSON name or its proto (snake_case) name. */
function str(o: Json, json: string, proto: string): string {
  let v = o[json];
  if (v === undefined) v = o[proto];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw mismatch();
  return v;
}

function bool(o: Json, json: string, proto: string): boolean {
  let v = o[json];
  if (v === undefined) v = o[proto];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw mismatch();
  return v;
}

/** map<string,string>: values must be strings; null becomes "" as Flipt's decoder does. */
function context(o: Json): Record<string, string> {
  const v = o['context'];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw mismatch();
  const map = v as Json;
  for (const key in map) {
    const value = map[key];
    if (typeof value === 'string') continue;
    if (value === null) {
      const copy: Record<string, string> = {};
      for (const k in map) copy[k] = map[k] === null ? '' : (map[k] as string);
      for (const k in copy) if (typeof copy[k] !== 'string') throw mismatch();
      return copy;
    }
    throw mismatch();
  }
  return map as Record<string, string>;
}

function list(o: Json, name: string): unknown[] {
  const v = o[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw mismatch();
  return v;
}

/**
 * The request id of the body, or `fallback` when it has none: the HTTP request's own id,
 * so the answer, the X-Request-Id header and the access line carry the same one.
 */
const requestIdOf = (o: Json, fallback: string): string =>
  str(o, 'requestId', 'request_id') || fallback;

/** The fields v1 and v2 evaluation requests share. */
function flagRequest(
  o: Json,
  namespaceFromPath: string | undefined,
  fallbackRequestId: string,
): LegacyEvaluationRequest {
  return {
    requestId: requestIdOf(o, fallbackRequestId),
    namespaceKey: namespaceFromPath ?? str(o, 'namespaceKey', 'namespace_key'),
    flagKey: str(o, 'flagKey', 'flag_key'),
    entityId: str(o, 'entityId', 'entity_id'),
    context: context(o),
  };
}

export function decodeEvaluationRequest(
  body: unknown,
  namespaceFromPath?: string,
  fallbackRequestId = '',
): EvaluationRequest {
  const o = asObject(body);
  const r = flagRequest(o, namespaceFromPath, fallbackRequestId);
  // One literal rather than a spread copy: the copy's object layout made the evaluation of
  // every batch item and boolean request slower (a batch of 100: 250 µs to 390 µs of CPU).
  return {
    requestId: r.requestId,
    namespaceKey: r.namespaceKey,
    flagKey: r.flagKey,
    entityId: r.entityId,
    context: r.context,
    reference: str(o, 'reference', 'reference'),
  };
}

/** On the namespace-scoped route the path namespace applies to every item, as for single requests. */
export function decodeBatchRequest(
  body: unknown,
  namespaceFromPath?: string,
  fallbackRequestId = '',
): BatchEvaluationRequest {
  const o = asObject(body);
  return {
    requestId: requestIdOf(o, fallbackRequestId),
    requests: list(o, 'requests').map((r) => decodeEvaluationRequest(r, namespaceFromPath)),
    reference: str(o, 'reference', 'reference'),
  };
}

export function decodeLegacyRequest(
  body: unknown,
  namespaceFromPath?: string,
  fallbackRequestId = '',
): LegacyEvaluationRequest {
  return flagRequest(asObject(body), namespaceFromPath, fallbackRequestId);
}

export function decodeLegacyBatchRequest(
  body: unknown,
  namespaceFromPath?: string,
  fallbackRequestId = '',
): LegacyBatchEvaluationRequest {
  const o = asObject(body);
  return {
    requestId: requestIdOf(o, fallbackRequestId),
    namespaceKey: namespaceFromPath ?? str(o, 'namespaceKey', 'namespace_key'),
    requests: list(o, 'requests').map((r) => decodeLegacyRequest(r)),
    excludeNotFound: bool(o, 'excludeNotFound', 'exclude_not_found'),
  };
}
