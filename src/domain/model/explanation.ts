import type { BooleanResult, VariantResult } from './evaluation';
import type { ComparisonType, FlagType, MatchType, SegmentOperator } from './enums';

/** One constraint as it judged the request's context. */
export interface ConstraintTrace {
  readonly id: string;
  readonly type: ComparisonType;
  readonly property: string;
  readonly operator: string;
  readonly value: string;
  /** The context value the constraint read; absent when the context has no such key. */
  readonly actual?: string;
  readonly passed: boolean;
}

export interface SegmentTrace {
  readonly key: string;
  readonly matchType: MatchType;
  readonly matched: boolean;
  readonly constraints: readonly ConstraintTrace[];
}

/** A distribution's bucket range [from, to) in the 0..1000 space of variant bucketing. */
export interface DistributionTrace {
  readonly variantKey: string;
  readonly rollout: number;
  readonly from: number;
  readonly to: number;
  readonly selected: boolean;
}

export type StepOutcome = 'matched' | 'not-matched' | 'not-reached';

/** One rule (variant flags) or rollout (boolean flags), in evaluation order. */
export interface StepTrace {
  readonly kind: 'rule' | 'rollout';
  readonly id: string;
  readonly rank: number;
  readonly outcome: StepOutcome;
  readonly segmentOperator?: SegmentOperator;
  readonly segments: readonly SegmentTrace[];
  /** Threshold rollouts: the entity's bucket in 0..99, in the rollout when below percentage. */
  readonly threshold?: {
    readonly percentage: number;
    readonly value: boolean;
    readonly bucket: number;
  };
  /** Segment rollouts: the value returned on a match. */
  readonly segmentValue?: boolean;
  readonly distributions?: readonly DistributionTrace[];
  /** Rules that matched: the entity's bucket in 0..999. */
  readonly bucket?: number;
}

export interface Explanation {
  readonly flagType: FlagType;
  readonly flagEnabled: boolean;
  readonly entityId: string;
  readonly steps: readonly StepTrace[];
  readonly summary: string;
}

export type ExplainedResult =
  | { readonly boolean: BooleanResult; readonly explanation: Explanation }
  | { readonly variant: VariantResult; readonly explanation: Explanation };
