import type { EvaluationRequest } from '../model';
import { requireField } from './field-checks';

/** Only the legacy v1 Evaluate request is validated; v2 and batch requests are not. */
export function validateLegacyEvaluationRequest(
  req: Pick<EvaluationRequest, 'flagKey' | 'entityId'>,
): void {
  requireField(req.flagKey, 'flagKey');
  requireField(req.entityId, 'entityId');
}
