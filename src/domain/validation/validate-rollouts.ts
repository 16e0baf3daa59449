import { ValidationError } from '../errors';
import type { DeleteRolloutRequest, OrderRolloutsRequest } from '../model';
import type {
  RawRolloutRule,
  RawCreateRolloutRequest,
  RawUpdateRolloutRequest,
} from '../services/api';
import { requireField } from './field-checks';
import { LIMITS, requireMaxItems, requireTextSize } from './limits';
import { requireOneSegmentSource, requirePositiveRank } from './validate-rules';

/**
 * The rule of a rollout. A request with neither kind passes validation: the store answers
 * it (`rollout rule is missing` / `invalid field rule: invalid rollout rule type`), as in Flipt.
 * `segment` is looked at first when a transport hands over both.
 */
function validateRolloutRule(rule: RawRolloutRule): void {
  if (rule.segment !== undefined) {
    requireOneSegmentSource(rule.segment);
  } else if (rule.threshold !== undefined) {
    const { percentage } = rule.threshold;
    if (!(percentage >= 0 && percentage <= 100)) {
      throw new ValidationError('threshold.percentage', 'must be within range [0, 100]');
    }
  }
}

/** Flipt leaves the rank unchecked; a rank below 1 would fail every evaluation reaching it. */
export function validateCreateRollout(req: RawCreateRolloutRequest): void {
  requireField(req.flagKey, 'flagKey');
  validateRolloutRule(req);
  requirePositiveRank(req.rank);
  requireTextSize(req.description);
}

export function validateUpdateRollout(req: RawUpdateRolloutRequest): void {
  requireField(req.id, 'id');
  requireField(req.flagKey, 'flagKey');
  validateRolloutRule(req);
  requireTextSize(req.description);
}

export function validateDeleteRollout(req: DeleteRolloutRequest): void {
  requireField(req.id, 'id');
  requireField(req.flagKey, 'flagKey');
}

export function validateOrderRollouts(req: OrderRolloutsRequest): void {
  requireField(req.flagKey, 'flagKey');
  if (req.rolloutIds.length < 2) {
    throw new ValidationError('rolloutIds', 'must contain atleast 2 elements');
  }
  requireMaxItems(req.rolloutIds, 'rolloutIds', LIMITS.idsPerOrder);
}
