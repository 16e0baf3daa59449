import type {
  BatchEvaluationResponse,
  BatchItemResponse,
  BooleanEvaluationResponse,
  LegacyBatchEvaluationResponse,
  LegacyEvaluationResponse,
  VariantEvaluationResponse,
} from '../../../domain/model';
import { formatTimestamp } from '../../../domain/evaluation';

/*
 * Evaluation responses in Flipt's JSON: proto field order, every default emitted, enums
 * by name. Built as object literals in field order, so JSON.stringify keeps that order.
 */

export const presentBoolean = (r: BooleanEvaluationResponse) => ({
  enabled: r.enabled,
  reason: r.reason,
  requestId: r.requestId,
  requestDurationMillis: r.requestDurationMillis,
  timestamp: formatTimestamp(r.timestamp),
  flagKey: r.flagKey,
  segmentKeys: r.segmentKeys,
});

export const presentVariant = (r: VariantEvaluationResponse) => ({
  match: r.match,
  segmentKeys: r.segmentKeys,
  reason: r.reason,
  variantKey: r.variantKey,
  variantAttachment: r.variantAttachment,
  requestId: r.requestId,
  requestDurationMillis: r.requestDurationMillis,
  timestamp: formatTimestamp(r.timestamp),
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
  timestamp: formatTimestamp(r.timestamp),
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
