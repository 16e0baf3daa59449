import { ValidationError } from '../errors';
import type {
  CreateDistributionRequest,
  DeleteDistributionRequest,
  DeleteRuleRequest,
  GetRuleRequest,
  ListRulesRequest,
  OrderRulesRequest,
  RuleSegmentsInput,
  UpdateDistributionRequest,
} from '../model';
import type { RawCreateRuleRequest, RawUpdateRuleRequest } from '../services/api';
import { requireField, requireLimitWithPosition } from './field-checks';
import { LIMITS, requireMaxItems } from './limits';

const SEGMENTS_FIELD = 'segmentKey or segmentKeys';

/** Exactly one of the deprecated `segmentKey` and `segmentKeys` must be given. */
export function requireOneSegmentSource(input: RuleSegmentsInput): void {
  if (input.segmentKey === '' && input.segmentKeys.length === 0) {
    throw new ValidationError(SEGMENTS_FIELD, 'must not be empty');
  }
  if (input.segmentKey !== '' && input.segmentKeys.length > 0) {
    throw new ValidationError(SEGMENTS_FIELD, 'only one can be present');
  }
  requireMaxItems(input.segmentKeys, 'segmentKeys', LIMITS.segmentsPerRule);
}

export function validateListRules(req: ListRulesRequest): void {
  requireField(req.flagKey, 'flagKey');
  requireLimitWithPosition(req);
}

export function validateGetRule(req: GetRuleRequest): void {
  requireField(req.id, 'id');
  requireField(req.flagKey, 'flagKey');
}

/** Rules and rollouts are evaluated in rank order from 1: anything lower cannot be evaluated. */
export function requirePositiveRank(rank: number): void {
  if (!(rank > 0)) throw new ValidationError('rank', 'must be greater than 0');
}

export function validateCreateRule(req: RawCreateRuleRequest): void {
  requireField(req.flagKey, 'flagKey');
  requireOneSegmentSource(req);
  requirePositiveRank(req.rank);
}

export function validateUpdateRule(req: RawUpdateRuleRequest): void {
  requireField(req.id, 'id');
  requireField(req.flagKey, 'flagKey');
  requireOneSegmentSource(req);
}

export function validateDeleteRule(req: DeleteRuleRequest): void {
  requireField(req.id, 'id');
  requireField(req.flagKey, 'flagKey');
}

export function validateOrderRules(req: OrderRulesRequest): void {
  requireField(req.flagKey, 'flagKey');
  if (req.ruleIds.length < 2)
    throw new ValidationError('ruleIds', 'must contain atleast 2 elements');
  requireMaxItems(req.ruleIds, 'ruleIds', LIMITS.idsPerOrder);
}

function requireRolloutPercentage(rollout: number): void {
  // Written so that NaN (a quoted "NaN" decodes to it) fails too.
  if (!(rollout >= 0)) throw new ValidationError('rollout', "must be greater than or equal to '0'");
  if (rollout > 100) throw new ValidationError('rollout', "must be less than or equal to '100'");
}

export function validateCreateDistribution(req: CreateDistributionRequest): void {
  requireField(req.flagKey, 'flagKey');
  requireField(req.ruleId, 'ruleId');
  requireField(req.variantId, 'variantId');
  requireRolloutPercentage(req.rollout);
}

export function validateUpdateDistribution(req: UpdateDistributionRequest): void {
  requireField(req.id, 'id');
  validateCreateDistribution(req);
}

export function validateDeleteDistribution(req: DeleteDistributionRequest): void {
  requireField(req.id, 'id');
  requireField(req.flagKey, 'flagKey');
  requireField(req.ruleId, 'ruleId');
  requireField(req.variantId, 'variantId');
}
