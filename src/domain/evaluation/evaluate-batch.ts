import { InvalidArgumentError } from '../errors';
import { FLAG_TYPES, type BatchItemResult, type EvaluationRequest } from '../model';
import type { CompiledNamespace } from './compile-namespace';
import { evaluateBooleanFlag } from './evaluate-boolean';
import { evaluateVariantFlag } from './evaluate-variant';

/** Resolves a namespace key ("default" for an empty one) to its compiled snapshot. */
export type NamespaceResolver = (namespaceKey: string) => CompiledNamespace | undefined;

/**
 * Flipt's Batch: items in order; a missing namespace or flag becomes a per-item
 * NOT_FOUND error carrying the namespace key as sent, while any other error (rank order,
 * unknown constraint type) is thrown and fails the whole batch.
 */
export function evaluateBatch(
  resolve: NamespaceResolver,
  requests: readonly EvaluationRequest[],
): BatchItemResult[] {
  const out: BatchItemResult[] = new Array<BatchItemResult>(requests.length);
  for (let i = 0; i < requests.length; i++) {
    const req = requests[i] as EvaluationRequest;
    const ns = resolve(req.namespaceKey === '' ? 'default' : req.namespaceKey);
    const flag = ns?.flags.get(req.flagKey);
    if (flag === undefined) {
      out[i] = {
        type: 'ERROR_EVALUATION_RESPONSE_TYPE',
        error: {
          flagKey: req.flagKey,
          namespaceKey: req.namespaceKey,
          reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
        },
      };
    } else if (flag.type === 'BOOLEAN_FLAG_TYPE') {
      out[i] = {
        type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE',
        boolean: evaluateBooleanFlag(flag, req.entityId, req.context),
      };
    } else if (flag.type === 'VARIANT_FLAG_TYPE') {
      out[i] = {
        type: 'VARIANT_EVALUATION_RESPONSE_TYPE',
        variant: evaluateVariantFlag(flag, req.entityId, req.context),
      };
    } else {
      const n = (FLAG_TYPES as readonly string[]).indexOf(flag.type as string);
      throw new InvalidArgumentError(`unknown flag type: ${n >= 0 ? n : String(flag.type)}`);
    }
  }
  return out;
}
