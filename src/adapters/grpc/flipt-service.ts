import {
  COMPARISON_TYPES,
  FLAG_TYPES,
  MATCH_TYPES,
  SEGMENT_OPERATORS,
  type SegmentOperator,
} from '../../domain/model';
import type { ManagementApi, RawRolloutRule } from '../../domain/services/api';
import {
  presentConstraint,
  presentDistribution,
  presentFlag,
  presentFlagList,
  presentNamespace,
  presentNamespaceList,
  presentRollout,
  presentRolloutList,
  presentRule,
  presentRuleList,
  presentSegment,
  presentSegmentList,
  presentVariant,
} from './flipt-presenters';
import { unimplemented, type UnaryHandler } from './unary';
import { enumValue, fromStructMessage, type StructMessage } from './wire-types';

/*
 * flipt.Flipt request messages as proto-loader decodes them (defaults on): every scalar
 * present with its zero value; `optional` fields and oneof members undefined when absent.
 * Enums arrive as names, or as numbers this server does not know.
 */
type Msg = Readonly<Record<string, unknown>>;

const str = (m: Msg, field: string): string => {
  const v = m[field];
  return typeof v === 'string' ? v : '';
};
const num = (m: Msg, field: string): number => {
  const v = m[field];
  return typeof v === 'number' ? v : 0;
};
const bool = (m: Msg, field: string): boolean => m[field] === true;
const strings = (m: Msg, field: string): string[] => {
  const v = m[field];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};
const struct = (m: Msg, field: string) => {
  const v = m[field];
  return v && typeof v === 'object' ? fromStructMessage(v as StructMessage) : undefined;
};
const segmentOperator = (m: Msg): SegmentOperator =>
  enumValue(m['segmentOperator'], SEGMENT_OPERATORS, 'SegmentOperator');

const listFields = (m: Msg) => ({
  limit: num(m, 'limit'),
  offset: num(m, 'offset'),
  pageToken: str(m, 'pageToken'),
  reference: str(m, 'reference'),
});

function rolloutRule(m: Msg): RawRolloutRule {
  const segment = m['segment'] as Msg | undefined;
  const threshold = m['threshold'] as Msg | undefined;
  return {
    segment: segment
      ? {
          segmentKey: str(segment, 'segmentKey'),
          segmentKeys: strings(segment, 'segmentKeys'),
          segmentOperator: segmentOperator(segment),
          value: bool(segment, 'value'),
        }
      : undefined,
    threshold: threshold
      ? { percentage: num(threshold, 'percentage'), value: bool(threshold, 'value') }
      : undefined,
  };
}

const EMPTY = {};

/**
 * Handlers of every flipt.Flipt RPC, keyed by RPC name. The legacy Evaluate and
 * BatchEvaluate are served by the evaluation module when it is configured; until then they
 * answer UNIMPLEMENTED, as an unregistered method would.
 */
export function createFliptHandlers(
  api: ManagementApi,
  legacyEvaluation?: {
    readonly Evaluate: UnaryHandler<Msg, unknown>;
    readonly BatchEvaluate: UnaryHandler<Msg, unknown>;
  },
): Record<string, UnaryHandler<Msg, unknown>> {
  return {
    Evaluate:
      legacyEvaluation?.Evaluate ??
      (async () => {
        throw unimplemented('Evaluate');
      }),
    BatchEvaluate:
      legacyEvaluation?.BatchEvaluate ??
      (async () => {
        throw unimplemented('BatchEvaluate');
      }),

    // Namespaces
    GetNamespace: async (m) =>
      presentNamespace(
        await api.getNamespace({ key: str(m, 'key'), reference: str(m, 'reference') }),
      ),
    ListNamespaces: async (m) => presentNamespaceList(await api.listNamespaces(listFields(m))),
    CreateNamespace: async (m) =>
      presentNamespace(
        await api.createNamespace({
          key: str(m, 'key'),
          name: str(m, 'name'),
          description: str(m, 'description'),
        }),
      ),
    UpdateNamespace: async (m) =>
      presentNamespace(
        await api.updateNamespace({
          key: str(m, 'key'),
          name: str(m, 'name'),
          description: str(m, 'description'),
        }),
      ),
    DeleteNamespace: async (m) => {
      await api.deleteNamespace({ key: str(m, 'key'), force: bool(m, 'force') });
      return EMPTY;
    },

    // Flags
    GetFlag: async (m) =>
      presentFlag(
        await api.getFlag({
          namespaceKey: str(m, 'namespaceKey'),
          key: str(m, 'key'),
          reference: str(m, 'reference'),
        }),
      ),
    ListFlags: async (m) =>
      presentFlagList(
        await api.listFlags({ ...listFields(m), namespaceKey: str(m, 'namespaceKey') }),
      ),
    CreateFlag: async (m) =>
      presentFlag(
        await api.createFlag({
          namespaceKey: str(m, 'namespaceKey'),
          key: str(m, 'key'),
          name: str(m, 'name'),
          description: str(m, 'description'),
          enabled: bool(m, 'enabled'),
          type: enumValue(m['type'], FLAG_TYPES, 'FlagType'),
          metadata: struct(m, 'metadata'),
        }),
      ),
    UpdateFlag: async (m) =>
      presentFlag(
        await api.updateFlag({
          namespaceKey: str(m, 'namespaceKey'),
          key: str(m, 'key'),
          name: str(m, 'name'),
          description: str(m, 'description'),
          enabled: bool(m, 'enabled'),
          defaultVariantId: str(m, 'defaultVariantId'),
          metadata: struct(m, 'metadata'),
        }),
      ),
    DeleteFlag: async (m) => {
      await api.deleteFlag({ namespaceKey: str(m, 'namespaceKey'), key: str(m, 'key') });
      return EMPTY;
    },

    // Variants
    CreateVariant: async (m) =>
      presentVariant(
        await api.createVariant({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          key: str(m, 'key'),
          name: str(m, 'name'),
          description: str(m, 'description'),
          attachment: str(m, 'attachment'),
        }),
      ),
    UpdateVariant: async (m) =>
      presentVariant(
        await api.updateVariant({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          id: str(m, 'id'),
          key: str(m, 'key'),
          name: str(m, 'name'),
          description: str(m, 'description'),
          attachment: str(m, 'attachment'),
        }),
      ),
    DeleteVariant: async (m) => {
      await api.deleteVariant({
        namespaceKey: str(m, 'namespaceKey'),
        flagKey: str(m, 'flagKey'),
        id: str(m, 'id'),
      });
      return EMPTY;
    },

    // Rules
    GetRule: async (m) =>
      presentRule(
        await api.getRule({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          id: str(m, 'id'),
          reference: str(m, 'reference'),
        }),
      ),
    ListRules: async (m) =>
      presentRuleList(
        await api.listRules({
          ...listFields(m),
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
        }),
      ),
    CreateRule: async (m) =>
      presentRule(
        await api.createRule({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          segmentKey: str(m, 'segmentKey'),
          segmentKeys: strings(m, 'segmentKeys'),
          segmentOperator: segmentOperator(m),
          rank: num(m, 'rank'),
        }),
      ),
    UpdateRule: async (m) =>
      presentRule(
        await api.updateRule({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          id: str(m, 'id'),
          segmentKey: str(m, 'segmentKey'),
          segmentKeys: strings(m, 'segmentKeys'),
          segmentOperator: segmentOperator(m),
        }),
      ),
    OrderRules: async (m) => {
      await api.orderRules({
        namespaceKey: str(m, 'namespaceKey'),
        flagKey: str(m, 'flagKey'),
        ruleIds: strings(m, 'ruleIds'),
      });
      return EMPTY;
    },
    DeleteRule: async (m) => {
      await api.deleteRule({
        namespaceKey: str(m, 'namespaceKey'),
        flagKey: str(m, 'flagKey'),
        id: str(m, 'id'),
      });
      return EMPTY;
    },

    // Rollouts
    GetRollout: async (m) =>
      presentRollout(
        await api.getRollout({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          id: str(m, 'id'),
          reference: str(m, 'reference'),
        }),
      ),
    ListRollouts: async (m) =>
      presentRolloutList(
        await api.listRollouts({
          // ListRolloutRequest has no offset field.
          limit: num(m, 'limit'),
          offset: 0,
          pageToken: str(m, 'pageToken'),
          reference: str(m, 'reference'),
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
        }),
      ),
    CreateRollout: async (m) =>
      presentRollout(
        await api.createRollout({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          rank: num(m, 'rank'),
          description: str(m, 'description'),
          ...rolloutRule(m),
        }),
      ),
    UpdateRollout: async (m) =>
      presentRollout(
        await api.updateRollout({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          id: str(m, 'id'),
          description: str(m, 'description'),
          ...rolloutRule(m),
        }),
      ),
    DeleteRollout: async (m) => {
      await api.deleteRollout({
        namespaceKey: str(m, 'namespaceKey'),
        flagKey: str(m, 'flagKey'),
        id: str(m, 'id'),
      });
      return EMPTY;
    },
    OrderRollouts: async (m) => {
      await api.orderRollouts({
        namespaceKey: str(m, 'namespaceKey'),
        flagKey: str(m, 'flagKey'),
        rolloutIds: strings(m, 'rolloutIds'),
      });
      return EMPTY;
    },

    // Distributions
    CreateDistribution: async (m) =>
      presentDistribution(
        await api.createDistribution({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          ruleId: str(m, 'ruleId'),
          variantId: str(m, 'variantId'),
          rollout: num(m, 'rollout'),
        }),
      ),
    UpdateDistribution: async (m) =>
      presentDistribution(
        await api.updateDistribution({
          namespaceKey: str(m, 'namespaceKey'),
          flagKey: str(m, 'flagKey'),
          ruleId: str(m, 'ruleId'),
          id: str(m, 'id'),
          variantId: str(m, 'variantId'),
          rollout: num(m, 'rollout'),
        }),
      ),
    DeleteDistribution: async (m) => {
      await api.deleteDistribution({
        namespaceKey: str(m, 'namespaceKey'),
        flagKey: str(m, 'flagKey'),
        ruleId: str(m, 'ruleId'),
        id: str(m, 'id'),
        variantId: str(m, 'variantId'),
      });
      return EMPTY;
    },

    // Segments
    GetSegment: async (m) =>
      presentSegment(
        await api.getSegment({
          namespaceKey: str(m, 'namespaceKey'),
          key: str(m, 'key'),
          reference: str(m, 'reference'),
        }),
      ),
    ListSegments: async (m) =>
      presentSegmentList(
        await api.listSegments({ ...listFields(m), namespaceKey: str(m, 'namespaceKey') }),
      ),
    CreateSegment: async (m) =>
      presentSegment(
        await api.createSegment({
          namespaceKey: str(m, 'namespaceKey'),
          key: str(m, 'key'),
          name: str(m, 'name'),
          description: str(m, 'description'),
          matchType: enumValue(m['matchType'], MATCH_TYPES, 'MatchType'),
        }),
      ),
    UpdateSegment: async (m) =>
      presentSegment(
        await api.updateSegment({
          namespaceKey: str(m, 'namespaceKey'),
          key: str(m, 'key'),
          name: str(m, 'name'),
          description: str(m, 'description'),
          matchType: enumValue(m['matchType'], MATCH_TYPES, 'MatchType'),
        }),
      ),
    DeleteSegment: async (m) => {
      await api.deleteSegment({ namespaceKey: str(m, 'namespaceKey'), key: str(m, 'key') });
      return EMPTY;
    },

    // Constraints
    CreateConstraint: async (m) =>
      presentConstraint(
        await api.createConstraint({
          namespaceKey: str(m, 'namespaceKey'),
          segmentKey: str(m, 'segmentKey'),
          type: enumValue(m['type'], COMPARISON_TYPES, 'ComparisonType'),
          property: str(m, 'property'),
          operator: str(m, 'operator'),
          value: str(m, 'value'),
          description: str(m, 'description'),
        }),
      ),
    UpdateConstraint: async (m) =>
      presentConstraint(
        await api.updateConstraint({
          namespaceKey: str(m, 'namespaceKey'),
          segmentKey: str(m, 'segmentKey'),
          id: str(m, 'id'),
          type: enumValue(m['type'], COMPARISON_TYPES, 'ComparisonType'),
          property: str(m, 'property'),
          operator: str(m, 'operator'),
          value: str(m, 'value'),
          description: str(m, 'description'),
        }),
      ),
    DeleteConstraint: async (m) => {
      await api.deleteConstraint({
        namespaceKey: str(m, 'namespaceKey'),
        segmentKey: str(m, 'segmentKey'),
        id: str(m, 'id'),
      });
      return EMPTY;
    },
  };
}

export type FliptRequestMessage = Msg;
