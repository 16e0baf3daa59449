import {
  COMPARISON_TYPES,
  FLAG_TYPES,
  MATCH_TYPES,
  SEGMENT_OPERATORS,
  type CreateConstraintRequest,
  type CreateDistributionRequest,
  type CreateFlagRequest,
  type CreateNamespaceRequest,
  type CreateSegmentRequest,
  type CreateVariantRequest,
  type DeleteConstraintRequest,
  type DeleteDistributionRequest,
  type DeleteFlagRequest,
  type DeleteNamespaceRequest,
  type DeleteRolloutRequest,
  type DeleteRuleRequest,
  type DeleteSegmentRequest,
  type DeleteVariantRequest,
  type GetFlagRequest,
  type GetNamespaceRequest,
  type GetRolloutRequest,
  type GetRuleRequest,
  type GetSegmentRequest,
  type ListFlagsRequest,
  type ListNamespacesRequest,
  type ListRolloutsRequest,
  type ListRulesRequest,
  type ListSegmentsRequest,
  type OrderRolloutsRequest,
  type OrderRulesRequest,
  type UpdateConstraintRequest,
  type UpdateDistributionRequest,
  type UpdateFlagRequest,
  type UpdateNamespaceRequest,
  type UpdateSegmentRequest,
  type UpdateVariantRequest,
} from '../../domain/model';
import type {
  ManagementApi,
  RawCreateRolloutRequest,
  RawCreateRuleRequest,
  RawUpdateRolloutRequest,
  RawUpdateRuleRequest,
} from '../../domain/services/api';
import type { EnumSpec, MessageSchema } from './proto-json-decoder';
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
  type JsonOut,
} from './presenters';

export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One RPC of flipt.Flipt as grpc-gateway exposes it. GET/DELETE take the request from the
 * query string, POST/PUT from the whole body (`body: "*"`); path parameters then override.
 */
export interface ApiEndpoint {
  readonly rpc: string;
  readonly method: ApiMethod;
  /** Route patterns (`:name` parameters); parameter names are the request fields' JSON names. */
  readonly paths: readonly string[];
  /** The request message (JSON names in proto order). */
  readonly request: MessageSchema;
  readonly call: (api: ManagementApi, req: Record<string, unknown>) => Promise<JsonOut>;
}

function endpoint<Req>(def: {
  rpc: string;
  method: ApiMethod;
  paths: readonly string[];
  request: MessageSchema;
  call: (api: ManagementApi, req: Req) => Promise<JsonOut>;
}): ApiEndpoint {
  return { ...def, call: (api, req) => def.call(api, req as unknown as Req) };
}

const empty = async (p: Promise<void>): Promise<JsonOut> => {
  await p;
  return {};
};

const FLAG_TYPE: EnumSpec = { enum: 'flipt.FlagType', values: FLAG_TYPES };
const MATCH_TYPE: EnumSpec = { enum: 'flipt.MatchType', values: MATCH_TYPES };
const COMPARISON_TYPE: EnumSpec = { enum: 'flipt.ComparisonType', values: COMPARISON_TYPES };
const SEGMENT_OPERATOR: EnumSpec = { enum: 'flipt.SegmentOperator', values: SEGMENT_OPERATORS };

const ROLLOUT_SEGMENT: MessageSchema = {
  segmentKey: 'string',
  value: 'bool',
  segmentKeys: 'strings',
  segmentOperator: SEGMENT_OPERATOR,
};
const ROLLOUT_THRESHOLD: MessageSchema = { percentage: 'float', value: 'bool' };

const API = '/api/v1';
const NS = `${API}/namespaces/:namespaceKey`;
/** Namespaced path first, then the legacy alias in the default namespace. */
const both = (suffix: string): string[] => [`${NS}${suffix}`, `${API}${suffix}`];

/**
 * Every management route. Order matters where patterns overlap: the literal `.../order`
 * routes come before `.../{id}` so that PUT reaches OrderRules / OrderRollouts.
 */
export const MANAGEMENT_ENDPOINTS: readonly ApiEndpoint[] = [
  // Namespaces
  endpoint<ListNamespacesRequest>({
    rpc: 'ListNamespaces',
    method: 'GET',
    paths: [`${API}/namespaces`],
    request: { limit: 'int32', offset: 'int32', pageToken: 'string', reference: 'string' },
    call: async (api, req) => presentNamespaceList(await api.listNamespaces(req)),
  }),
  endpoint<CreateNamespaceRequest>({
    rpc: 'CreateNamespace',
    method: 'POST',
    paths: [`${API}/namespaces`],
    request: { key: 'string', name: 'string', description: 'string' },
    call: async (api, req) => presentNamespace(await api.createNamespace(req)),
  }),
  endpoint<GetNamespaceRequest>({
    rpc: 'GetNamespace',
    method: 'GET',
    paths: [`${API}/namespaces/:key`],
    request: { key: 'string', reference: 'string' },
    call: async (api, req) => presentNamespace(await api.getNamespace(req)),
  }),
  endpoint<UpdateNamespaceRequest>({
    rpc: 'UpdateNamespace',
    method: 'PUT',
    paths: [`${API}/namespaces/:key`],
    request: { key: 'string', name: 'string', description: 'string' },
    call: async (api, req) => presentNamespace(await api.updateNamespace(req)),
  }),
  endpoint<DeleteNamespaceRequest>({
    rpc: 'DeleteNamespace',
    method: 'DELETE',
    paths: [`${API}/namespaces/:key`],
    request: { key: 'string', force: 'bool' },
    call: (api, req) => empty(api.deleteNamespace(req)),
  }),

  // Flags
  endpoint<ListFlagsRequest>({
    rpc: 'ListFlags',
    method: 'GET',
    paths: both('/flags'),
    request: {
      limit: 'int32',
      offset: 'int32',
      pageToken: 'string',
      namespaceKey: 'string',
      reference: 'string',
    },
    call: async (api, req) => presentFlagList(await api.listFlags(req)),
  }),
  endpoint<CreateFlagRequest>({
    rpc: 'CreateFlag',
    method: 'POST',
    paths: both('/flags'),
    request: {
      key: 'string',
      name: 'string',
      description: 'string',
      enabled: 'bool',
      namespaceKey: 'string',
      type: FLAG_TYPE,
      metadata: 'struct',
    },
    call: async (api, req) => presentFlag(await api.createFlag(req)),
  }),
  endpoint<GetFlagRequest>({
    rpc: 'GetFlag',
    method: 'GET',
    paths: both('/flags/:key'),
    request: { key: 'string', namespaceKey: 'string', reference: 'string' },
    call: async (api, req) => presentFlag(await api.getFlag(req)),
  }),
  endpoint<UpdateFlagRequest>({
    rpc: 'UpdateFlag',
    method: 'PUT',
    paths: both('/flags/:key'),
    request: {
      key: 'string',
      name: 'string',
      description: 'string',
      enabled: 'bool',
      namespaceKey: 'string',
      defaultVariantId: 'string',
      metadata: 'struct',
    },
    call: async (api, req) => presentFlag(await api.updateFlag(req)),
  }),
  endpoint<DeleteFlagRequest>({
    rpc: 'DeleteFlag',
    method: 'DELETE',
    paths: both('/flags/:key'),
    request: { key: 'string', namespaceKey: 'string' },
    call: (api, req) => empty(api.deleteFlag(req)),
  }),

  // Variants
  endpoint<CreateVariantRequest>({
    rpc: 'CreateVariant',
    method: 'POST',
    paths: both('/flags/:flagKey/variants'),
    request: {
      flagKey: 'string',
      key: 'string',
      name: 'string',
      description: 'string',
      attachment: 'string',
      namespaceKey: 'string',
    },
    call: async (api, req) => presentVariant(await api.createVariant(req)),
  }),
  endpoint<UpdateVariantRequest>({
    rpc: 'UpdateVariant',
    method: 'PUT',
    paths: both('/flags/:flagKey/variants/:id'),
    request: {
      id: 'string',
      flagKey: 'string',
      key: 'string',
      name: 'string',
      description: 'string',
      attachment: 'string',
      namespaceKey: 'string',
    },
    call: async (api, req) => presentVariant(await api.updateVariant(req)),
  }),
  endpoint<DeleteVariantRequest>({
    rpc: 'DeleteVariant',
    method: 'DELETE',
    paths: both('/flags/:flagKey/variants/:id'),
    request: { id: 'string', flagKey: 'string', namespaceKey: 'string' },
    call: (api, req) => empty(api.deleteVariant(req)),
  }),

  // Rules
  endpoint<ListRulesRequest>({
    rpc: 'ListRules',
    method: 'GET',
    paths: both('/flags/:flagKey/rules'),
    request: {
      limit: 'int32',
      offset: 'int32',
      flagKey: 'string',
      pageToken: 'string',
      namespaceKey: 'string',
      reference: 'string',
    },
    call: async (api, req) => presentRuleList(await api.listRules(req)),
  }),
  endpoint<RawCreateRuleRequest>({
    rpc: 'CreateRule',
    method: 'POST',
    paths: both('/flags/:flagKey/rules'),
    request: {
      flagKey: 'string',
      segmentKey: 'string',
      rank: 'int32',
      namespaceKey: 'string',
      segmentKeys: 'strings',
      segmentOperator: SEGMENT_OPERATOR,
    },
    call: async (api, req) => presentRule(await api.createRule(req)),
  }),
  endpoint<OrderRulesRequest>({
    rpc: 'OrderRules',
    method: 'PUT',
    paths: both('/flags/:flagKey/rules/order'),
    request: { flagKey: 'string', ruleIds: 'strings', namespaceKey: 'string' },
    call: (api, req) => empty(api.orderRules(req)),
  }),
  endpoint<GetRuleRequest>({
    rpc: 'GetRule',
    method: 'GET',
    paths: both('/flags/:flagKey/rules/:id'),
    request: { id: 'string', flagKey: 'string', namespaceKey: 'string', reference: 'string' },
    call: async (api, req) => presentRule(await api.getRule(req)),
  }),
  endpoint<RawUpdateRuleRequest>({
    rpc: 'UpdateRule',
    method: 'PUT',
    paths: both('/flags/:flagKey/rules/:id'),
    request: {
      id: 'string',
      flagKey: 'string',
      segmentKey: 'string',
      namespaceKey: 'string',
      segmentKeys: 'strings',
      segmentOperator: SEGMENT_OPERATOR,
    },
    call: async (api, req) => presentRule(await api.updateRule(req)),
  }),
  endpoint<DeleteRuleRequest>({
    rpc: 'DeleteRule',
    method: 'DELETE',
    paths: both('/flags/:flagKey/rules/:id'),
    request: { id: 'string', flagKey: 'string', namespaceKey: 'string' },
    call: (api, req) => empty(api.deleteRule(req)),
  }),

  // Distributions
  endpoint<CreateDistributionRequest>({
    rpc: 'CreateDistribution',
    method: 'POST',
    paths: both('/flags/:flagKey/rules/:ruleId/distributions'),
    request: {
      flagKey: 'string',
      ruleId: 'string',
      variantId: 'string',
      rollout: 'float',
      namespaceKey: 'string',
    },
    call: async (api, req) => presentDistribution(await api.createDistribution(req)),
  }),
  endpoint<UpdateDistributionRequest>({
    rpc: 'UpdateDistribution',
    method: 'PUT',
    paths: both('/flags/:flagKey/rules/:ruleId/distributions/:id'),
    request: {
      id: 'string',
      flagKey: 'string',
      ruleId: 'string',
      variantId: 'string',
      rollout: 'float',
      namespaceKey: 'string',
    },
    call: async (api, req) => presentDistribution(await api.updateDistribution(req)),
  }),
  endpoint<DeleteDistributionRequest>({
    rpc: 'DeleteDistribution',
    method: 'DELETE',
    paths: both('/flags/:flagKey/rules/:ruleId/distributions/:id'),
    request: {
      id: 'string',
      flagKey: 'string',
      ruleId: 'string',
      variantId: 'string',
      namespaceKey: 'string',
    },
    call: (api, req) => empty(api.deleteDistribution(req)),
  }),

  // Rollouts (no legacy aliases in Flipt)
  endpoint<Omit<ListRolloutsRequest, 'offset'>>({
    rpc: 'ListRollouts',
    method: 'GET',
    paths: [`${NS}/flags/:flagKey/rollouts`],
    request: {
      namespaceKey: 'string',
      flagKey: 'string',
      limit: 'int32',
      pageToken: 'string',
      reference: 'string',
    },
    // ListRolloutRequest has no offset field; the token alone positions the page.
    call: async (api, req) => presentRolloutList(await api.listRollouts({ ...req, offset: 0 })),
  }),
  endpoint<RawCreateRolloutRequest>({
    rpc: 'CreateRollout',
    method: 'POST',
    paths: [`${NS}/flags/:flagKey/rollouts`],
    request: {
      namespaceKey: 'string',
      flagKey: 'string',
      rank: 'int32',
      description: 'string',
      segment: { message: ROLLOUT_SEGMENT },
      threshold: { message: ROLLOUT_THRESHOLD },
    },
    call: async (api, req) => presentRollout(await api.createRollout(req)),
  }),
  endpoint<OrderRolloutsRequest>({
    rpc: 'OrderRollouts',
    method: 'PUT',
    paths: [`${NS}/flags/:flagKey/rollouts/order`],
    request: { flagKey: 'string', namespaceKey: 'string', rolloutIds: 'strings' },
    call: (api, req) => empty(api.orderRollouts(req)),
  }),
  endpoint<GetRolloutRequest>({
    rpc: 'GetRollout',
    method: 'GET',
    paths: [`${NS}/flags/:flagKey/rollouts/:id`],
    request: { id: 'string', namespaceKey: 'string', flagKey: 'string', reference: 'string' },
    call: async (api, req) => presentRollout(await api.getRollout(req)),
  }),
  endpoint<RawUpdateRolloutRequest>({
    rpc: 'UpdateRollout',
    method: 'PUT',
    paths: [`${NS}/flags/:flagKey/rollouts/:id`],
    request: {
      id: 'string',
      namespaceKey: 'string',
      flagKey: 'string',
      description: 'string',
      segment: { message: ROLLOUT_SEGMENT },
      threshold: { message: ROLLOUT_THRESHOLD },
    },
    call: async (api, req) => presentRollout(await api.updateRollout(req)),
  }),
  endpoint<DeleteRolloutRequest>({
    rpc: 'DeleteRollout',
    method: 'DELETE',
    paths: [`${NS}/flags/:flagKey/rollouts/:id`],
    request: { id: 'string', namespaceKey: 'string', flagKey: 'string' },
    call: (api, req) => empty(api.deleteRollout(req)),
  }),

  // Segments
  endpoint<ListSegmentsRequest>({
    rpc: 'ListSegments',
    method: 'GET',
    paths: both('/segments'),
    request: {
      limit: 'int32',
      offset: 'int32',
      pageToken: 'string',
      namespaceKey: 'string',
      reference: 'string',
    },
    call: async (api, req) => presentSegmentList(await api.listSegments(req)),
  }),
  endpoint<CreateSegmentRequest>({
    rpc: 'CreateSegment',
    method: 'POST',
    paths: both('/segments'),
    request: {
      key: 'string',
      name: 'string',
      description: 'string',
      matchType: MATCH_TYPE,
      namespaceKey: 'string',
    },
    call: async (api, req) => presentSegment(await api.createSegment(req)),
  }),
  endpoint<GetSegmentRequest>({
    rpc: 'GetSegment',
    method: 'GET',
    paths: both('/segments/:key'),
    request: { key: 'string', namespaceKey: 'string', reference: 'string' },
    call: async (api, req) => presentSegment(await api.getSegment(req)),
  }),
  endpoint<UpdateSegmentRequest>({
    rpc: 'UpdateSegment',
    method: 'PUT',
    paths: both('/segments/:key'),
    request: {
      key: 'string',
      name: 'string',
      description: 'string',
      matchType: MATCH_TYPE,
      namespaceKey: 'string',
    },
    call: async (api, req) => presentSegment(await api.updateSegment(req)),
  }),
  endpoint<DeleteSegmentRequest>({
    rpc: 'DeleteSegment',
    method: 'DELETE',
    paths: both('/segments/:key'),
    request: { key: 'string', namespaceKey: 'string' },
    call: (api, req) => empty(api.deleteSegment(req)),
  }),

  // Constraints
  endpoint<CreateConstraintRequest>({
    rpc: 'CreateConstraint',
    method: 'POST',
    paths: both('/segments/:segmentKey/constraints'),
    request: {
      segmentKey: 'string',
      type: COMPARISON_TYPE,
      property: 'string',
      operator: 'string',
      value: 'string',
      namespaceKey: 'string',
      description: 'string',
    },
    call: async (api, req) => presentConstraint(await api.createConstraint(req)),
  }),
  endpoint<UpdateConstraintRequest>({
    rpc: 'UpdateConstraint',
    method: 'PUT',
    paths: both('/segments/:segmentKey/constraints/:id'),
    request: {
      id: 'string',
      segmentKey: 'string',
      type: COMPARISON_TYPE,
      property: 'string',
      operator: 'string',
      value: 'string',
      namespaceKey: 'string',
      description: 'string',
    },
    call: async (api, req) => presentConstraint(await api.updateConstraint(req)),
  }),
  endpoint<DeleteConstraintRequest>({
    rpc: 'DeleteConstraint',
    method: 'DELETE',
    paths: both('/segments/:segmentKey/constraints/:id'),
    request: { id: 'string', segmentKey: 'string', namespaceKey: 'string' },
    call: (api, req) => empty(api.deleteConstraint(req)),
  }),
];
