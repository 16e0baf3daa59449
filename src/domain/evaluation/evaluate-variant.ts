import type { VariantResult } from '../model';
import { findDistribution, variantBucket } from './bucketing';
import type { CompiledFlag, CompiledNamespace, CompiledRule } from './compile-namespace';
import type { EvaluationContext } from './constraint';
import type { FlagEvaluationRequest } from './evaluate-boolean';
import {
  flagNotFound,
  flagTypeInvalid,
  ruleRankOutOfOrder,
  unknownConstraintType,
} from './evaluation-errors';
import { matchSegmentSet } from './segment-set';

/**
 * Flipt's variant algorithm (legacy Evaluator.Evaluate): default variant pre-fill, the
 * disabled check, then the first matching rule decides and always returns, even when the
 * bucket falls beyond its last distribution.
 */
export function evaluateVariantFlag(
  flag: CompiledFlag,
  entityId: string,
  context: EvaluationContext,
): VariantResult {
  if (!flag.enabled) return flag.disabledResult;
  const rules = flag.rules;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as CompiledRule;
    if (rule.outOfOrder) throw ruleRankOutOfOrder(rule.rank);
    const set = rule.segments;
    if (set.hasUnknownType) throw unknownConstraintType();
    const keys = matchSegmentSet(set, context, entityId);
    if (keys === undefined) continue;
    const hits = rule.hitResults;
    let result: VariantResult;
    if (hits.length === 0) {
      result = rule.noDistributionResult as VariantResult;
    } else {
      const index = findDistribution(rule.bounds, variantBucket(flag.keyState, entityId));
      // The miss result is null only where no bucket can miss.
      result =
        index < hits.length ? (hits[index] as VariantResult) : (rule.missResult as VariantResult);
    }
    return keys === set.allKeys ? result : withKeys(result, keys);
  }
  return flag.noMatchResult;
}

const withKeys = (r: VariantResult, segmentKeys: readonly string[]): VariantResult => ({
  match: r.match,
  reason: r.reason,
  legacyReason: r.legacyReason,
  flagKey: r.flagKey,
  segmentKeys,
  variantKey: r.variantKey,
  variantAttachment: r.variantAttachment,
});

/** Evaluates a variant flag of a compiled namespace (Flipt's `/evaluate/v1/variant`). */
export function evaluateVariant(ns: CompiledNamespace, req: FlagEvaluationRequest): VariantResult {
  const flag = ns.flags.get(req.flagKey);
  if (flag === undefined) throw flagNotFound(ns.key, req.flagKey);
  if (flag.type !== 'VARIANT_FLAG_TYPE') throw flagTypeInvalid(flag.type);
  return evaluateVariantFlag(flag, req.entityId, req.context);
}
