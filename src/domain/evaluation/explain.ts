import type {
  BooleanResult,
  ConstraintTrace,
  DistributionTrace,
  ExplainedResult,
  Rollout,
  Rule,
  Segment,
  SegmentTrace,
  StepTrace,
  VariantResult,
} from '../model';
import { findDistribution, thresholdBucket, variantBucket } from './bucketing';
import {
  ROLLOUT_SEGMENT,
  ROLLOUT_THRESHOLD,
  type CompiledFlag,
  type CompiledNamespace,
  type CompiledRollout,
  type CompiledRule,
} from './compile-namespace';
import type { CompiledConstraint } from './compiled-constraint';
import { matchConstraint, type EvaluationContext } from './constraint';
import { evaluateBooleanFlag, type FlagEvaluationRequest } from './evaluate-boolean';
import { evaluateVariantFlag } from './evaluate-variant';
import { flagNotFound } from './evaluation-errors';
import { matchSegment, type CompiledSegment } from './segment';
import { matchSegmentSet, type CompiledSegmentSet } from './segment-set';

/**
 * Evaluates a flag with the real evaluator and says why it answered so: each rule or rollout
 * in order, its segments and their constraints judged against the context, and the bucket
 * the entity fell in. The answer is the evaluator's own; the trace is rebuilt from the same
 * compiled snapshot and matching functions, and is checked against that answer, so the two
 * cannot disagree (a disagreement is a bug and fails the request rather than mislead).
 */
export function explainFlag(ns: CompiledNamespace, req: FlagEvaluationRequest): ExplainedResult {
  const flag = ns.flags.get(req.flagKey);
  if (flag === undefined) throw flagNotFound(ns.key, req.flagKey);
  const segments = new Map([...ns.segments].map(([key, s]) => [key, s.source]));
  if (flag.type === 'BOOLEAN_FLAG_TYPE') {
    const result = evaluateBooleanFlag(flag, req.entityId, req.context);
    const { rollouts } = flag.source;
    return { boolean: result, explanation: explainBoolean(flag, rollouts, segments, req, result) };
  }
  const result = evaluateVariantFlag(flag, req.entityId, req.context);
  const { rules } = flag.source;
  return { variant: result, explanation: explainVariant(flag, rules, segments, req, result) };
}

type Segments = ReadonlyMap<string, Segment>;

function explainVariant(
  flag: CompiledFlag,
  rules: readonly Rule[],
  segments: Segments,
  req: FlagEvaluationRequest,
  result: VariantResult,
) {
  const steps: StepTrace[] = [];
  let expected: VariantResult = flag.enabled ? flag.noMatchResult : flag.disabledResult;
  let summary = flag.enabled
    ? noRuleSummary(rules.length, result)
    : `The flag is disabled, so it matches no entity (${result.reason}).`;
  let decided = !flag.enabled;
  flag.rules.forEach((rule, i) => {
    const raw = rules[i] as Rule;
    const base = {
      kind: 'rule' as const,
      id: raw.id,
      rank: raw.rank,
      segmentOperator: raw.segmentOperator,
      segments: traceSegments(rule.segments, segments, req.context, req.entityId),
    };
    if (decided) {
      steps.push({ ...base, outcome: 'not-reached' });
      return;
    }
    const keys = matchSegmentSet(rule.segments, req.context, req.entityId);
    if (keys === undefined) {
      steps.push({ ...base, outcome: 'not-matched' });
      return;
    }
    decided = true;
    if (rule.hitResults.length === 0) {
      expected = rule.noDistributionResult as VariantResult;
      steps.push({ ...base, outcome: 'matched', distributions: [] });
      summary =
        `Rule ${raw.rank} matched. It has no distribution, so ` +
        (result.variantKey === ''
          ? 'no variant is returned.'
          : `the default variant ${result.variantKey} is returned.`);
      return;
    }
    const bucket = variantBucket(flag.keyState, req.entityId);
    const index = findDistribution(rule.bounds, bucket);
    const distributions = traceDistributions(rule, index);
    expected =
      index < rule.hitResults.length
        ? (rule.hitResults[index] as VariantResult)
        : (rule.missResult as VariantResult);
    steps.push({ ...base, outcome: 'matched', bucket, distributions });
    const chosen = distributions[index];
    summary =
      chosen !== undefined
        ? `Rule ${raw.rank} matched, and the entity's bucket ${bucket} (of 1000) falls in ` +
          `${chosen.variantKey}'s ${chosen.rollout}% share: variant ${chosen.variantKey}.`
        : `Rule ${raw.rank} matched, but the entity's bucket ${bucket} (of 1000) is beyond its ` +
          `distributions, which cover ${coveredPercent(rule)}%: no variant from this rule` +
          (result.variantKey === ''
            ? '.'
            : `; the default variant ${result.variantKey} is returned.`);
  });
  checkAgreement(
    expected.match === result.match &&
      expected.variantKey === result.variantKey &&
      expected.reason === result.reason,
  );
  return {
    flagType: flag.type,
    flagEnabled: flag.enabled,
    entityId: req.entityId,
    steps,
    summary,
  };
}

function noRuleSummary(ruleCount: number, result: VariantResult): string {
  const start = ruleCount === 0 ? 'The flag has no rules' : 'No rule matched';
  return result.variantKey === ''
    ? `${start} and no default variant, so no variant is returned (${result.reason}).`
    : `${start}, so the default variant ${result.variantKey} is returned (${result.reason}).`;
}

const coveredPercent = (rule: CompiledRule): number =>
  (rule.bounds.length === 0 ? 0 : (rule.bounds[rule.bounds.length - 1] as number)) / 10;

function traceDistributions(rule: CompiledRule, selected: number): DistributionTrace[] {
  let from = 0;
  return rule.hitResults.map((hit, i) => {
    const to = rule.bounds[i] as number;
    const trace = {
      variantKey: hit.variantKey,
      rollout: (to - from) / 10,
      from,
      to,
      selected: i === selected,
    };
    from = to;
    return trace;
  });
}

function explainBoolean(
  flag: CompiledFlag,
  rollouts: readonly Rollout[],
  segments: Segments,
  req: FlagEvaluationRequest,
  result: BooleanResult,
) {
  const steps: StepTrace[] = [];
  let expected: BooleanResult = flag.defaultBooleanResult;
  let summary =
    (rollouts.length === 0 ? 'The flag has no rollouts' : 'No rollout applied to this entity') +
    `, so it returns its enabled state: ${String(flag.enabled)}.`;
  let decided = false;
  let bucket: number | undefined;
  flag.rollouts.forEach((rollout: CompiledRollout, i) => {
    const raw = rollouts[i] as Rollout;
    const base = { kind: 'rollout' as const, id: raw.id, rank: raw.rank };
    if (rollout.kind === ROLLOUT_THRESHOLD) {
      bucket ??= thresholdBucket(req.entityId, flag.keyBytes);
      const threshold = { percentage: rollout.percentage, value: rollout.value, bucket };
      if (decided) {
        steps.push({ ...base, segments: [], threshold, outcome: 'not-reached' });
        return;
      }
      const hit = bucket < rollout.percentage;
      steps.push({ ...base, segments: [], threshold, outcome: hit ? 'matched' : 'not-matched' });
      if (hit) {
        decided = true;
        expected = rollout.matchResult;
        summary =
          `Rollout ${raw.rank} applies: the entity's bucket ${bucket} (of 100) is below its ` +
          `${rollout.percentage}% threshold, so the flag returns ${String(rollout.value)}.`;
      }
      return;
    }
    if (rollout.kind !== ROLLOUT_SEGMENT) {
      steps.push({ ...base, segments: [], outcome: decided ? 'not-reached' : 'not-matched' });
      return;
    }
    const set = rollout.segments as CompiledSegmentSet;
    const step = {
      ...base,
      segmentOperator: raw.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR',
      segmentValue: rollout.value,
      segments: traceSegments(set, segments, req.context, req.entityId),
    };
    if (decided) {
      steps.push({ ...step, outcome: 'not-reached' });
      return;
    }
    const keys = matchSegmentSet(set, req.context, req.entityId);
    steps.push({ ...step, outcome: keys === undefined ? 'not-matched' : 'matched' });
    if (keys !== undefined) {
      decided = true;
      expected = { ...rollout.matchResult, segmentKeys: keys };
      summary = `Rollout ${raw.rank} applies: the entity is in its segments, so the flag returns ${String(rollout.value)}.`;
    }
  });
  checkAgreement(expected.enabled === result.enabled && expected.reason === result.reason);
  return {
    flagType: flag.type,
    flagEnabled: flag.enabled,
    entityId: req.entityId,
    steps,
    summary,
  };
}

function traceSegments(
  set: CompiledSegmentSet,
  segments: Segments,
  context: EvaluationContext,
  entityId: string,
): SegmentTrace[] {
  return set.segments.map((compiled: CompiledSegment) => {
    const raw = segments.get(compiled.key);
    return {
      key: compiled.key,
      matchType: raw?.matchType ?? 'ALL_MATCH_TYPE',
      matched: matchSegment(compiled, context, entityId),
      constraints: compiled.constraints.map((c: CompiledConstraint, i): ConstraintTrace => {
        const source = raw?.constraints[i];
        const actual =
          source?.type === 'ENTITY_ID_COMPARISON_TYPE'
            ? entityId
            : Object.prototype.hasOwnProperty.call(context, c.property)
              ? context[c.property]
              : undefined;
        return {
          id: source?.id ?? '',
          type: source?.type ?? 'STRING_COMPARISON_TYPE',
          property: c.property,
          operator: source?.operator ?? '',
          value: source?.value ?? c.value,
          ...(actual === undefined ? {} : { actual }),
          passed: matchConstraint(c, context, entityId),
        };
      }),
    };
  });
}

function checkAgreement(agrees: boolean): void {
  if (!agrees) throw new Error('the explanation disagrees with the evaluation result');
}
