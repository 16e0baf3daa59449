import type { ComparisonType, FlagType, JsonObject, MatchType, SegmentOperator } from '../model';
import type { DocumentVersion } from './versions';

/*
 * A portable document as read: every field in its domain type, defaults filled in, nothing
 * yet checked against the rules of the resources (see plan-import.ts for that).
 */

export interface DocumentNamespace {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  /** How the document named it: a bare key, a map with details, or not at all (default). */
  readonly form: 'key' | 'details' | 'absent';
}

export interface DocumentVariant {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly default: boolean;
  /** Any JSON value; undefined when none. */
  readonly attachment: unknown;
}

export interface DocumentDistribution {
  readonly variant: string;
  readonly rollout: number;
}

export interface DocumentRule {
  readonly segmentKeys: readonly string[];
  readonly segmentOperator: SegmentOperator;
  /** 0 when the document gives none. */
  readonly rank: number;
  readonly distributions: readonly DocumentDistribution[];
}

export interface DocumentRollout {
  readonly description: string;
  readonly segment?: {
    readonly segmentKeys: readonly string[];
    readonly segmentOperator: SegmentOperator;
    readonly value: boolean;
  };
  readonly threshold?: { readonly percentage: number; readonly value: boolean };
}

export interface DocumentFlag {
  readonly key: string;
  readonly name: string;
  readonly type: FlagType;
  readonly description: string;
  readonly enabled: boolean;
  readonly metadata?: JsonObject;
  readonly variants: readonly DocumentVariant[];
  readonly rules: readonly DocumentRule[];
  readonly rollouts: readonly DocumentRollout[];
}

export interface DocumentConstraint {
  readonly type: ComparisonType;
  readonly property: string;
  readonly operator: string;
  readonly value: string;
  readonly description: string;
}

export interface DocumentSegment {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly matchType: MatchType;
  readonly constraints: readonly DocumentConstraint[];
}

export interface PortableDocument {
  /** Position in the stream, 1-based. */
  readonly index: number;
  readonly version: DocumentVersion;
  readonly namespace: DocumentNamespace;
  readonly flags: readonly DocumentFlag[];
  readonly segments: readonly DocumentSegment[];
}
