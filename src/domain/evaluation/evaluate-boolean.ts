import type { BooleanResult } from '../model';
import { thresholdBucket } from './bucketing';
import {
  ROLLOUT_SEGMENT,
  ROLLOUT_THRESHOLD,
  type CompiledFlag,
  type CompiledNamespace,
  type CompiledRollout,
} from './compile-namespace';
import type { EvaluationContext } from './constraint';
import {
  flagNotFound,
  flagTypeInvalid,
  rolloutRankOutOfOrder,
  unknownConstraintType,
} from './evaluation-errors';
import { matchSegmentSet, type CompiledSegmentSet } from './segment-set';

export interface FlagEvaluationRequest {
  readonly flagKey: string;
  readonly entityId: string;
  readonly context: EvaluationContext;
}

/**
 * Flipt's boolean algorithm: rollouts in storage order, the first that matches decides;
 * a threshold that misses falls through. `enabled` is only the default value: there is
 * no FLAG_DISABLED for boolean flags.
 */
export function evaluateBooleanFlag(
  flag: CompiledFlag,
  entityId: string,
  context: EvaluationContext,
): BooleanResult {
  const rollouts = flag.rollouts;
  let bucket = -1;
  for (let i = 0; i < rollouts.length; i++) {
    const r = rollouts[i] as CompiledRollout;
    if (r.outOfOrder) throw rolloutRankOutOfOrder(r.rank);
    if (r.kind === ROLLOUT_THRESHOLD) {
      if (bucket < 0) bucket = thresholdBucket(entityId, flag.keyBytes);
      if (bucket < r.percentage) return r.matchResult;
    } else if (r.kind === ROLLOUT_SEGMENT) {
      const set = r.segments as CompiledSegmentSet;
      if (set.hasUnknownType) throw unknownConstraintType();
      const keys = matchSegmentSet(set, context, entityId);
      if (keys === undefined) continue;
      if (keys === set.allKeys) return r.matchResult;
      return {
        enabled: r.value,
        reason: 'MATCH_EVALUATION_REASON',
        flagKey: flag.key,
        segmentKeys: keys,
      };
    }
  }
  return flag.defaultBooleanResult;
}

/** Evaluates a boolean flag of a compiled namespace (Flipt's `/evaluate/v1/boolean`). */
export function evaluateBoolean(ns: CompiledNamespace, req: FlagEvaluationRequest): BooleanResult {
  const flag = ns.flags.get(req.flagKey);
  if (flag === undefined) throw flagNotFound(ns.key, req.flagKey);
  if (flag.type !== 'BOOLEAN_FLAG_TYPE') throw flagTypeInvalid(flag.type);
  return evaluateBooleanFlag(flag, req.entityId, req.context);
}
