import type { ManagementApi } from '../../domain/services/api';
import { requestSchema, type MessageSchema } from './message-schema';
import { serviceMethods, typeName } from './proto-root';

/*
 * The flipt.Flipt management RPCs, each described once. Everything else is derived:
 * - the request and response messages from flipt.proto (the service's method);
 * - the domain call: the ManagementApi method of the same name (GetFlag -> getFlag);
 * - the REST decoding (proto3 JSON body or query string) from the request message;
 * - the gRPC mapping from the request message, the responses of both from the response one.
 * What is written here is what the proto cannot say: the HTTP binding grpc-gateway gives it.
 */

export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type ManagementRpcName = Capitalize<keyof ManagementApi>;

export interface ManagementRpc {
  readonly rpc: ManagementRpcName;
  /**
   * The HTTP binding: GET/DELETE take the request from the query string, POST/PUT from the
   * whole body (`body: "*"`); path parameters, named by the request fields' JSON names,
   * override both.
   */
  readonly method: ApiMethod;
  readonly paths: readonly string[];
  /** Fields the domain call needs that the request message lacks. */
  readonly fill?: Readonly<Record<string, unknown>>;
}

const API = '/api/v1';
const NS = `${API}/namespaces/:namespaceKey`;
/** Namespaced path first, then the legacy alias in the default namespace. */
const both = (suffix: string): string[] => [`${NS}${suffix}`, `${API}${suffix}`];

const get = (rpc: ManagementRpcName, paths: readonly string[]): ManagementRpc => ({
  rpc,
  method: 'GET',
  paths,
});
const post = (rpc: ManagementRpcName, paths: readonly string[]): ManagementRpc => ({
  rpc,
  method: 'POST',
  paths,
});
const put = (rpc: ManagementRpcName, paths: readonly string[]): ManagementRpc => ({
  rpc,
  method: 'PUT',
  paths,
});
const del = (rpc: ManagementRpcName, paths: readonly string[]): ManagementRpc => ({
  rpc,
  method: 'DELETE',
  paths,
});

/**
 * Every management route. Order matters where patterns overlap: the literal `.../order`
 * routes come before `.../{id}` so that PUT reaches OrderRules / OrderRollouts.
 */
export const MANAGEMENT_RPCS: readonly ManagementRpc[] = [
  get('ListNamespaces', [`${API}/namespaces`]),
  post('CreateNamespace', [`${API}/namespaces`]),
  get('GetNamespace', [`${API}/namespaces/:key`]),
  put('UpdateNamespace', [`${API}/namespaces/:key`]),
  del('DeleteNamespace', [`${API}/namespaces/:key`]),

  get('ListFlags', both('/flags')),
  post('CreateFlag', both('/flags')),
  get('GetFlag', both('/flags/:key')),
  put('UpdateFlag', both('/flags/:key')),
  del('DeleteFlag', both('/flags/:key')),

  post('CreateVariant', both('/flags/:flagKey/variants')),
  put('UpdateVariant', both('/flags/:flagKey/variants/:id')),
  del('DeleteVariant', both('/flags/:flagKey/variants/:id')),

  get('ListRules', both('/flags/:flagKey/rules')),
  post('CreateRule', both('/flags/:flagKey/rules')),
  put('OrderRules', both('/flags/:flagKey/rules/order')),
  get('GetRule', both('/flags/:flagKey/rules/:id')),
  put('UpdateRule', both('/flags/:flagKey/rules/:id')),
  del('DeleteRule', both('/flags/:flagKey/rules/:id')),

  post('CreateDistribution', both('/flags/:flagKey/rules/:ruleId/distributions')),
  put('UpdateDistribution', both('/flags/:flagKey/rules/:ruleId/distributions/:id')),
  del('DeleteDistribution', both('/flags/:flagKey/rules/:ruleId/distributions/:id')),

  // Rollouts have no legacy aliases in Flipt.
  {
    ...get('ListRollouts', [`${NS}/flags/:flagKey/rollouts`]),
    // ListRolloutRequest has no offset field; the token alone positions the page.
    fill: { offset: 0 },
  },
  post('CreateRollout', [`${NS}/flags/:flagKey/rollouts`]),
  put('OrderRollouts', [`${NS}/flags/:flagKey/rollouts/order`]),
  get('GetRollout', [`${NS}/flags/:flagKey/rollouts/:id`]),
  put('UpdateRollout', [`${NS}/flags/:flagKey/rollouts/:id`]),
  del('DeleteRollout', [`${NS}/flags/:flagKey/rollouts/:id`]),

  get('ListSegments', both('/segments')),
  post('CreateSegment', both('/segments')),
  get('GetSegment', both('/segments/:key')),
  put('UpdateSegment', both('/segments/:key')),
  del('DeleteSegment', both('/segments/:key')),

  post('CreateConstraint', both('/segments/:segmentKey/constraints')),
  put('UpdateConstraint', both('/segments/:segmentKey/constraints/:id')),
  del('DeleteConstraint', both('/segments/:segmentKey/constraints/:id')),
];

/** The management service; its Evaluate and BatchEvaluate belong to the evaluation module. */
export const MANAGEMENT_SERVICE = 'flipt.Flipt';

/** A management RPC with what flipt.proto says about it. */
export interface ResolvedRpc extends ManagementRpc {
  /** The request message (`flipt.CreateFlagRequest`) and its schema. */
  readonly requestType: string;
  readonly request: MessageSchema;
  /** The response message (`flipt.Flag`, `google.protobuf.Empty`). */
  readonly responseType: string;
  /** Calls the ManagementApi method of the same name with a decoded request message. */
  readonly call: (api: ManagementApi, message: Record<string, unknown>) => Promise<unknown>;
}

let resolved: readonly ResolvedRpc[] | undefined;

/** MANAGEMENT_RPCS with their messages; throws if one is missing from flipt.proto. */
export function managementRpcs(): readonly ResolvedRpc[] {
  resolved ??= resolve(MANAGEMENT_RPCS);
  return resolved;
}

function resolve(rpcs: readonly ManagementRpc[]): ResolvedRpc[] {
  const methods = serviceMethods(MANAGEMENT_SERVICE);
  return rpcs.map((rpc) => {
    const method = methods.get(rpc.rpc);
    if (method?.resolvedRequestType == null || method.resolvedResponseType == null) {
      throw new Error(`${MANAGEMENT_SERVICE} has no method ${rpc.rpc}`);
    }
    const requestType = typeName(method.resolvedRequestType);
    const apiMethod = (rpc.rpc.charAt(0).toLowerCase() + rpc.rpc.slice(1)) as keyof ManagementApi;
    const fill = rpc.fill;
    return {
      ...rpc,
      requestType,
      request: requestSchema(requestType),
      responseType: typeName(method.resolvedResponseType),
      call: (api, message) => {
        const req = (fill === undefined ? message : { ...message, ...fill }) as never;
        return (api[apiMethod] as (req: never) => Promise<unknown>).call(api, req);
      },
    };
  });
}
