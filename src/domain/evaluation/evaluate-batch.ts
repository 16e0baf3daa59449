import {
  FLAG_TYPES,
  type BatchItemResult,
  type ErrorEvaluationReason,
  type EvaluationRequest,
} from '../model';
import type { CompiledFlag, CompiledNamespace } from './compile-namespace';
import { evaluateBooleanFlag } from './evaluate-boolean';
import { evaluateVariantFlag } from './evaluate-variant';
import { UnevaluableFlagError } from './evaluation-errors';

/** Resolves a namespace key ("default" for an empty one) to its compiled snapshot. */
export type NamespaceResolver = (namespaceKey: string) => CompiledNamespace | undefined;

/** Told which item could not be evaluated, and why. */
export type BatchItemErrorListener = (index: number, error: unknown) => void;

const errorItem = (req: EvaluationRequest, reason: ErrorEvaluationReason): BatchItemResult => ({
  type: 'ERROR_EVALUATION_RESPONSE_TYPE',
  error: { flagKey: req.flagKey, namespaceKey: req.namespaceKey, reason },
});

function evaluateItem(flag: CompiledFlag, req: EvaluationRequest): BatchItemResult {
  if (flag.type === 'BOOLEAN_FLAG_TYPE') {
    return {
      type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE',
      boolean: evaluateBooleanFlag(flag, req.entityId, req.context),
    };
  }
  if (flag.type === 'VARIANT_FLAG_TYPE') {
    return {
      type: 'VARIANT_EVALUATION_RESPONSE_TYPE',
      variant: evaluateVariantFlag(flag, req.entityId, req.context),
    };
  }
  const n = (FLAG_TYPES as readonly string[]).indexOf(flag.type as string);
  throw new UnevaluableFlagError(`unknown flag type: ${n >= 0 ? n : String(flag.type)}`);
}

/**
 * Flipt's Batch: items in order; a missing namespace or flag becomes a per-item NOT_FOUND
 * error carrying the namespace key as sent. A flag whose stored configuration cannot be
 * evaluated (rank out of order, unknown constraint or flag type) also answers an error item,
 * UNKNOWN_ERROR_EVALUATION_REASON, where Flipt fails the whole batch: one flawed flag does
 * not take the others down. `onError` hears why.
 */
export function evaluateBatch(
  resolve: NamespaceResolver,
  requests: readonly EvaluationRequest[],
  onError?: BatchItemErrorListener,
): BatchItemResult[] {
  const out: BatchItemResult[] = new Array<BatchItemResult>(requests.length);
  for (let i = 0; i < requests.length; i++) {
    const req = requests[i] as EvaluationRequest;
    const ns = resolve(req.namespaceKey === '' ? 'default' : req.namespaceKey);
    const flag = ns?.flags.get(req.flagKey);
    if (flag === undefined) {
      out[i] = errorItem(req, 'NOT_FOUND_ERROR_EVALUATION_REASON');
      continue;
    }
    try {
      out[i] = evaluateItem(flag, req);
    } catch (err) {
      out[i] = errorItem(req, 'UNKNOWN_ERROR_EVALUATION_REASON');
      onError?.(i, err);
    }
  }
  return out;
}
