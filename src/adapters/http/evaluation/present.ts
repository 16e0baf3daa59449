import type { ExplainResponse } from '../../../domain/services/evaluation';
import type {
  BatchEvaluationResponse,
  BatchItemResponse,
  BooleanEvaluationResponse,
  LegacyBatchEvaluationResponse,
  LegacyEvaluationResponse,
  VariantEvaluationResponse,
} from '../../../domain/model';
import { formatTimestamp } from '../../../domain/evaluation';
import { RawJson } from '../http-error';

/**
 * formatTimestamp for the clock's 'YYYY-MM-DDTHH:MM:SS.ffffffZ' without re-parsing the
 * date on every call. The date-time part changes once a second, so the last one that
 * formatTimestamp was seen to keep unchanged is remembered; a timestamp of that second is
 * then already in protojson's form unless its fraction ends in zeros (protojson writes 0, 3
 * or 6 digits), and is returned as it is. Any other shape goes to formatTimestamp itself.
 */
let knownSeconds = '';
let lastInput = '';
let lastOutput = '';

const isMicros = (ts: string): boolean => {
  if (ts.length !== 27 || ts.charCodeAt(19) !== 46 /* . */ || ts.charCodeAt(26) !== 90 /* Z */) {
    return false;
  }
  for (let i = 20; i < 26; i++) {
    const c = ts.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
};

const micros = (digits: string): string =>
  digits === '000000' ? '' : digits.endsWith('000') ? '.' + digits.slice(0, 3) : '.' + digits;

export function presentTimestamp(ts: string): string {
  if (ts === lastInput) return lastOutput;
  let out: string;
  if (knownSeconds !== '' && isMicros(ts) && ts.startsWith(knownSeconds)) {
    out = ts.charCodeAt(25) !== 48 ? ts : knownSeconds + micros(ts.slice(20, 26)) + 'Z';
  } else {
    out = formatTimestamp(ts);
    if (isMicros(ts)) {
      const seconds = ts.slice(0, 19);
      if (
        out === seconds + micros(ts.slice(20, 26)) + 'Z' &&
        formatTimestamp(seconds + '.000000Z') === seconds + 'Z'
      ) {
        knownSeconds = seconds;
      }
    }
  }
  lastInput = ts;
  lastOutput = out;
  return out;
}

/** Printable ASCII other than the quote and the backslash: nothing to escape in JSON. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** JSON.stringify for a string, without its general machinery for the plain ASCII ones. */
export const jsonString = (s: string): string =>
  PLAIN_JSON_STRING.test(s) ? '"' + s + '"' : JSON.stringify(s);

/*
 * Evaluation responses in Flipt's JSON: proto field order, every default emitted, enums
 * by name. Built as object literals in field order, so JSON.stringify keeps that order.
 */

export const presentBoolean = (r: BooleanEvaluationResponse) => ({
  enabled: r.enabled,
  reason: r.reason,
  requestId: r.requestId,
  requestDurationMillis: r.requestDurationMillis,
  timestamp: presentTimestamp(r.timestamp),
  flagKey: r.flagKey,
  segmentKeys: r.segmentKeys,
});

/*
 * presentBoolean serialized directly: the same text as JSON.stringify(presentBoolean(r)),
 * in about a third of the time. The quoted flag key, reason and segment keys are
 * remembered from the previous answer, since consecutive answers mostly share them.
 */
let lastFlagKey = '';
let lastFlagKeyJson = '""';
let lastReason = '';
let lastReasonJson = '""';
let lastSegmentKeys: readonly string[] | undefined;
let lastSegmentKeysJson = '[]';

const jsonNumber = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

export function presentBooleanJson(r: BooleanEvaluationResponse): RawJson {
  if (r.flagKey !== lastFlagKey) {
    lastFlagKey = r.flagKey;
    lastFlagKeyJson = JSON.stringify(r.flagKey);
  }
  if (r.reason !== lastReason) {
    lastReason = r.reason;
    lastReasonJson = JSON.stringify(r.reason);
  }
  if (r.segmentKeys !== lastSegmentKeys) {
    lastSegmentKeys = r.segmentKeys;
    lastSegmentKeysJson = JSON.stringify(r.segmentKeys);
  }
  return new RawJson(
    '{"enabled":' +
      (r.enabled ? 'true' : 'false') +
      ',"reason":' +
      lastReasonJson +
      ',"requestId":' +
      jsonString(r.requestId) +
      ',"requestDurationMillis":' +
      jsonNumber(r.requestDurationMillis) +
      ',"timestamp":' +
      jsonString(presentTimestamp(r.timestamp)) +
      ',"flagKey":' +
      lastFlagKeyJson +
      ',"segmentKeys":' +
      lastSegmentKeysJson +
      '}',
  );
}

export const presentVariant = (r: VariantEvaluationResponse) => ({
  match: r.match,
  segmentKeys: r.segmentKeys,
  reason: r.reason,
  variantKey: r.variantKey,
  variantAttachment: r.variantAttachment,
  requestId: r.requestId,
  requestDurationMillis: r.requestDurationMillis,
  timestamp: presentTimestamp(r.timestamp),
  flagKey: r.flagKey,
});

function presentItem(item: BatchItemResponse) {
  switch (item.type) {
    case 'BOOLEAN_EVALUATION_RESPONSE_TYPE':
      return { type: item.type, booleanResponse: presentBoolean(item.boolean) };
    case 'VARIANT_EVALUATION_RESPONSE_TYPE':
      return { type: item.type, variantResponse: presentVariant(item.variant) };
    default:
      return {
        type: item.type,
        errorResponse: {
          flagKey: item.error.flagKey,
          namespaceKey: item.error.namespaceKey,
          reason: item.error.reason,
        },
      };
  }
}

export const presentBatch = (r: BatchEvaluationResponse) => ({
  requestId: r.requestId,
  responses: r.responses.map(presentItem),
  requestDurationMillis: r.requestDurationMillis,
});

export const presentLegacy = (r: LegacyEvaluationResponse) => ({
  requestId: r.requestId,
  entityId: r.entityId,
  requestContext: r.requestContext,
  match: r.match,
  flagKey: r.flagKey,
  segmentKey: r.segmentKey,
  timestamp: presentTimestamp(r.timestamp),
  value: r.value,
  requestDurationMillis: r.requestDurationMillis,
  attachment: r.attachment,
  reason: r.reason,
  namespaceKey: r.namespaceKey,
  segmentKeys: r.segmentKeys,
});

export const presentLegacyBatch = (r: LegacyBatchEvaluationResponse) => ({
  requestId: r.requestId,
  responses: r.responses.map(presentLegacy),
  requestDurationMillis: r.requestDurationMillis,
});

/**
 * POST /evaluate/v1/explain: `boolean` or `variant` holds exactly what /evaluate/v1/boolean or
 * /evaluate/v1/variant answers for the same request; `explanation` says why.
 */
export const presentExplain = (r: ExplainResponse) =>
  'boolean' in r
    ? { boolean: presentBoolean(r.boolean), explanation: r.explanation }
    : { variant: presentVariant(r.variant), explanation: r.explanation };
