import { authorizeNamespace, requestNamespaceKeys } from '../../domain/auth';
import { UnauthenticatedError } from '../../domain/errors';
import type {
  BatchEvaluationRequest,
  EvaluationRequest,
  LegacyBatchEvaluationRequest,
  LegacyEvaluationRequest,
} from '../../domain/model';
import type { ManagementApi } from '../../domain/services/api';
import type { PrincipalScope } from './principal-scope';

const FLIPT = 'flipt.Flipt';
const EVALUATION = 'flipt.evaluation.EvaluationService';
const DATA = 'flipt.evaluation.DataService';

/**
 * The check every decorated call makes: there must be an authenticated caller (a decorated use
 * case reached without one means a transport path skipped authentication, so it is refused
 * rather than served), and a namespace-scoped caller may only touch its own namespace.
 */
function authorize(
  scope: PrincipalScope,
  service: string,
  namespaceKeys: readonly string[] | undefined,
): void {
  const caller = scope.current();
  if (caller === undefined) throw new UnauthenticatedError();
  authorizeNamespace(caller, service, namespaceKeys);
}

/** Calls `fn` once authorized; a refusal comes back as a rejected promise, like any failure. */
function guarded<R>(
  scope: PrincipalScope,
  service: string,
  namespaceKeys: () => readonly string[] | undefined,
  fn: () => Promise<R>,
): Promise<R> {
  try {
    authorize(scope, service, namespaceKeys());
  } catch (err) {
    return Promise.reject(err);
  }
  return fn();
}

const MANAGEMENT_METHODS = [
  'getNamespace',
  'listNamespaces',
  'createNamespace',
  'updateNamespace',
  'deleteNamespace',
  'getFlag',
  'listFlags',
  'createFlag',
  'updateFlag',
  'deleteFlag',
  'createVariant',
  'updateVariant',
  'deleteVariant',
  'getSegment',
  'listSegments',
  'createSegment',
  'updateSegment',
  'deleteSegment',
  'createConstraint',
  'updateConstraint',
  'deleteConstraint',
  'getRule',
  'listRules',
  'createRule',
  'updateRule',
  'deleteRule',
  'orderRules',
  'createDistribution',
  'updateDistribution',
  'deleteDistribution',
  'getRollout',
  'listRollouts',
  'createRollout',
  'updateRollout',
  'deleteRollout',
  'orderRollouts',
] as const satisfies ReadonlyArray<keyof ManagementApi>;

// A new ManagementApi method fails to compile here until it is listed above, so none can
// slip past the namespace check.
type Unlisted = Exclude<keyof ManagementApi, (typeof MANAGEMENT_METHODS)[number]>;
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyMethodListed;

/**
 * flipt.Flipt with Flipt's namespace scoping: each call is checked against the request's
 * namespace (`key` for the namespace RPCs, `namespaceKey` otherwise; ListNamespaces has none).
 * The target is looked up on every call, so a deferred or proxied API works.
 */
export function scopeManagement(api: ManagementApi, scope: PrincipalScope): ManagementApi {
  const scoped: Record<string, (req: never) => Promise<unknown>> = {};
  for (const name of MANAGEMENT_METHODS) {
    const rpc = name.charAt(0).toUpperCase() + name.slice(1);
    scoped[name] = (req: never) =>
      guarded(
        scope,
        FLIPT,
        () => requestNamespaceKeys(FLIPT, rpc, req),
        () => (api[name] as (req: never) => Promise<unknown>).call(api, req),
      );
  }
  return scoped as unknown as ManagementApi;
}

/** The evaluation use cases the transports call (EvaluationService has them all). */
export interface ScopedEvaluationApi {
  boolean(req: EvaluationRequest): Promise<unknown>;
  variant(req: EvaluationRequest): Promise<unknown>;
  batch(req: BatchEvaluationRequest): Promise<unknown>;
  legacyEvaluate(req: LegacyEvaluationRequest): Promise<unknown>;
  legacyBatchEvaluate(req: LegacyBatchEvaluationRequest): Promise<unknown>;
  clientSnapshot(namespaceKey: string): Promise<unknown>;
}

/**
 * Evaluation with namespace scoping: v2 boolean / variant, every item of a v2 batch, the
 * legacy evaluate and the legacy batch's top-level namespace, and the client snapshot's key.
 * Other members of `api` are passed through untouched.
 */
export function scopeEvaluation<T extends ScopedEvaluationApi>(api: T, scope: PrincipalScope): T {
  const scoped: ScopedEvaluationApi = {
    boolean: (req) =>
      guarded(
        scope,
        EVALUATION,
        () => [req.namespaceKey],
        () => api.boolean(req),
      ),
    variant: (req) =>
      guarded(
        scope,
        EVALUATION,
        () => [req.namespaceKey],
        () => api.variant(req),
      ),
    batch: (req) =>
      guarded(
        scope,
        EVALUATION,
        () => req.requests.map((r) => r.namespaceKey),
        () => api.batch(req),
      ),
    legacyEvaluate: (req) =>
      guarded(
        scope,
        FLIPT,
        () => [req.namespaceKey],
        () => api.legacyEvaluate(req),
      ),
    legacyBatchEvaluate: (req) =>
      guarded(
        scope,
        FLIPT,
        () => [req.namespaceKey],
        () => api.legacyBatchEvaluate(req),
      ),
    clientSnapshot: (namespaceKey) =>
      guarded(
        scope,
        DATA,
        () => [namespaceKey],
        () => api.clientSnapshot(namespaceKey),
      ),
  };
  return new Proxy(api, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && Object.prototype.hasOwnProperty.call(scoped, prop)) {
        return scoped[prop as keyof ScopedEvaluationApi];
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}
