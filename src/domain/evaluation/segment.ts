import type { Segment } from '../model';
import { TYPE_UNKNOWN, type CompiledConstraint } from './compiled-constraint';
import { compileConstraint, matchConstraint, type EvaluationContext } from './constraint';

export const MATCH_ALL = 0;
export const MATCH_ANY = 1;
export const MATCH_INVALID = 2;

export interface CompiledSegment {
  readonly key: string;
  /** MATCH_ALL, MATCH_ANY, or MATCH_INVALID for a value Flipt never matches. */
  readonly matchType: number;
  readonly constraints: readonly CompiledConstraint[];
  /** Evaluating this segment fails with `unknown constraint type`. */
  readonly hasUnknownType: boolean;
  /** The row it was compiled from. */
  readonly source: Segment;
}

export function compileSegment(segment: Segment): CompiledSegment {
  const constraints = segment.constraints.map(compileConstraint);
  return {
    key: segment.key,
    matchType:
      segment.matchType === 'ALL_MATCH_TYPE'
        ? MATCH_ALL
        : segment.matchType === 'ANY_MATCH_TYPE'
          ? MATCH_ANY
          : MATCH_INVALID,
    constraints,
    hasUnknownType: constraints.some((c) => c.type === TYPE_UNKNOWN),
    source: segment,
  };
}

/**
 * Flipt evaluates every constraint, but the only observable effect of that is the
 * unknown-type error, which callers raise before matching; so this may stop early.
 * A segment without constraints matches under ALL and ANY.
 */
export function matchSegment(
  segment: CompiledSegment,
  context: EvaluationContext,
  entityId: string,
): boolean {
  const cs = segment.constraints;
  const n = cs.length;
  if (segment.matchType === MATCH_ALL) {
    for (let i = 0; i < n; i++) {
      if (!matchConstraint(cs[i] as CompiledConstraint, context, entityId)) return false;
    }
    return true;
  }
  if (segment.matchType === MATCH_ANY) {
    if (n === 0) return true;
    for (let i = 0; i < n; i++) {
      if (matchConstraint(cs[i] as CompiledConstraint, context, entityId)) return true;
    }
    return false;
  }
  return false;
}
