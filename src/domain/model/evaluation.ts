import type {
  ErrorEvaluationReason,
  EvaluationReason,
  EvaluationResponseType,
  LegacyEvaluationReason,
} from './enums';

export interface EvaluationRequest {
  readonly requestId: string;
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly entityId: string;
  readonly context: { readonly [key: string]: string };
  readonly reference: string;
}

export interface BatchEvaluationRequest {
  readonly requestId: string;
  readonly requests: readonly EvaluationRequest[];
  readonly reference: string;
}

/** The pure result of evaluating a boolean flag (no ids, no timing). */
export interface BooleanResult {
  readonly enabled: boolean;
  readonly reason: EvaluationReason;
  readonly flagKey: string;
  readonly segmentKeys: readonly string[];
}

/**
 * The pure result of evaluating a variant flag. `legacyReason` is the reason the v1
 * evaluator computes (v1 API, metrics); `reason` is its v2 mapping.
 */
export interface VariantResult {
  readonly match: boolean;
  readonly reason: EvaluationReason;
  readonly legacyReason: LegacyEvaluationReason;
  readonly flagKey: string;
  readonly segmentKeys: readonly string[];
  readonly variantKey: string;
  readonly variantAttachment: string;
}

export interface ErrorResult {
  readonly flagKey: string;
  readonly namespaceKey: string;
  readonly reason: ErrorEvaluationReason;
}

export type BatchItemResult =
  | { readonly type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE'; readonly boolean: BooleanResult }
  | { readonly type: 'VARIANT_EVALUATION_RESPONSE_TYPE'; readonly variant: VariantResult }
  | { readonly type: 'ERROR_EVALUATION_RESPONSE_TYPE'; readonly error: ErrorResult };

export type { EvaluationResponseType };

/** Fields the v2 API adds around a result. */
export interface ResponseEnvelope {
  readonly requestId: string;
  readonly requestDurationMillis: number;
  readonly timestamp: string;
}

export type BooleanEvaluationResponse = BooleanResult & ResponseEnvelope;
export type VariantEvaluationResponse = VariantResult & ResponseEnvelope;

export type BatchItemResponse =
  | {
      readonly type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE';
      readonly boolean: BooleanEvaluationResponse;
    }
  | {
      readonly type: 'VARIANT_EVALUATION_RESPONSE_TYPE';
      readonly variant: VariantEvaluationResponse;
    }
  | { readonly type: 'ERROR_EVALUATION_RESPONSE_TYPE'; readonly error: ErrorResult };

export interface BatchEvaluationResponse {
  readonly requestId: string;
  readonly responses: readonly BatchItemResponse[];
  readonly requestDurationMillis: number;
}

/** v1 (deprecated) evaluation: flipt.EvaluationRequest. */
export interface LegacyEvaluationRequest {
  readonly requestId: string;
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly entityId: string;
  readonly context: { readonly [key: string]: string };
}

export interface LegacyEvaluationResponse {
  readonly requestId: string;
  readonly entityId: string;
  readonly requestContext: { readonly [key: string]: string };
  readonly match: boolean;
  readonly flagKey: string;
  readonly segmentKey: string;
  readonly timestamp: string;
  readonly value: string;
  readonly requestDurationMillis: number;
  readonly attachment: string;
  readonly reason: LegacyEvaluationReason;
  readonly namespaceKey: string;
  readonly segmentKeys: readonly string[];
}

export interface LegacyBatchEvaluationRequest {
  readonly requestId: string;
  readonly namespaceKey: string;
  readonly requests: readonly LegacyEvaluationRequest[];
  readonly excludeNotFound: boolean;
}

export interface LegacyBatchEvaluationResponse {
  readonly requestId: string;
  readonly responses: readonly LegacyEvaluationResponse[];
  readonly requestDurationMillis: number;
}
