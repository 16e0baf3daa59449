import type { IncomingMessage } from 'node:http';
import type * as grpc from '@grpc/grpc-js';
import {
  authorizeNamespace,
  isAuthenticationExempt,
  requestNamespaceKeys,
  serviceOfGrpcPath,
  tokenNamespace,
} from '../../domain/auth';
import { UnauthenticatedError } from '../../domain/errors';
import type { Authentication } from '../../domain/model';
import type { GrpcAuthenticator } from '../grpc/unary';
import type { JsonRoute } from '../http/http-handler';
import type { RequestContext } from '../http/request-context';
import type { HttpExchange, HttpRoute, RequestGuard } from '../http/route-table';
import { splitTarget } from '../http/route-table';
import type { Authenticator } from './authenticator';

/*
 * Namespace scoping is checked where the request is known, without any async context
 * propagation (AsyncLocalStorage would slow every await of the process by a quarter):
 * - gRPC: in the authenticator, on the decoded request message (as Flipt's interceptor does);
 * - HTTP management (/api/v1): in the guard, from the path and the query;
 * - HTTP evaluation and snapshot (fast routes): in a wrapper of the route, on the parsed body.
 * Only a namespace-scoped caller pays for any of it.
 */

const FLIPT = 'flipt.Flipt';
const EVALUATION = 'flipt.evaluation.EvaluationService';
/** Stands for every service without namespace scoping (auth, meta...) in authorizeNamespace. */
const UNSCOPED_SERVICE = '';

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** A request field under its JSON or proto name, when it is a string. */
const nsField = (o: unknown): string | undefined =>
  isObject(o) ? (text(o['namespaceKey']) ?? text(o['namespace_key'])) : undefined;

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Path parameters of `pattern` (`:name` segments) in `path`. */
function pathParams(pattern: string, path: string): Record<string, string> {
  const names = pattern.split('/');
  const parts = path.split('/');
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    if (name.startsWith(':') && parts[i] !== undefined)
      params[name.slice(1)] = decodeSegment(parts[i]);
  });
  return params;
}

/**
 * The namespaces of a management request known before its body is read: the path's
 * `:namespaceKey` (it wins over body and query), the `:key` of /api/v1/namespaces/:key, or for
 * GET / DELETE without one the `namespaceKey` query parameter (absent: default). Undefined when
 * the request has no namespace (ListNamespaces) or carries it in the body only (CreateNamespace,
 * writes on the un-namespaced legacy paths), which a scoped token may therefore not use.
 */
export function managementNamespaceKeys(
  method: string,
  url: string | undefined,
  pattern: string,
): string[] | undefined {
  const { path, query } = splitTarget(url);
  const params = pathParams(pattern, path);
  if (pattern === '/api/v1/namespaces/:key') return [params['key'] ?? ''];
  if (pattern === '/api/v1/namespaces') return undefined;
  if (params['namespaceKey'] !== undefined) return [params['namespaceKey']];
  if (method === 'GET' || method === 'DELETE' || method === 'HEAD') {
    const given = [...query.getAll('namespaceKey'), ...query.getAll('namespace_key')];
    return given.length > 0 ? given : [''];
  }
  return undefined;
}

/**
 * The namespaces an evaluation request touches, from its route and parsed body, erring on the
 * side of refusing: the path's namespace; the body's top-level one (absent: default, unless the
 * path names one); every v2 batch item's (absent: default, as the batch route reads it); every
 * legacy batch item's that names one. A scoped token must match all of them.
 */
export function evaluationNamespaceKeys(
  pattern: string,
  params: Readonly<Record<string, string>>,
  body: unknown,
): string[] {
  const keys: string[] = [];
  const fromPath = params['namespaceKey'];
  if (fromPath !== undefined) keys.push(fromPath);
  const legacyBatch = pattern.endsWith('/batch-evaluate');
  const v2Batch = !legacyBatch && pattern.endsWith('/batch');
  const top = nsField(body);
  if (top !== undefined) keys.push(top);
  else if (fromPath === undefined && !v2Batch) keys.push('');
  const items = isObject(body) && Array.isArray(body['requests']) ? body['requests'] : [];
  for (const item of items as unknown[]) {
    const ns = nsField(item);
    if (v2Batch) keys.push(ns ?? '');
    else if (ns !== undefined) keys.push(ns);
  }
  return keys;
}

/**
 * Whether an HTTP route pattern belongs to a service in `services` (see excludedServices):
 * /api/v1 is flipt.Flipt (legacy evaluation, copy, import and export included), /evaluate/v1
 * the evaluation service, /internal/v1/evaluation the client snapshot, /ofrep OFREP.
 */
export function routeOfServices(
  services: ReadonlySet<string>,
): ((pattern: string) => boolean) | undefined {
  const prefixes: string[] = [];
  if (services.has(FLIPT)) prefixes.push('/api/v1/');
  if (services.has(EVALUATION)) prefixes.push('/evaluate/v1/');
  if (services.has('flipt.evaluation.DataService')) prefixes.push('/internal/v1/evaluation/');
  if (services.has('flipt.ofrep.OFREPService')) prefixes.push('/ofrep/');
  if (prefixes.length === 0) return undefined;
  return (pattern) => prefixes.some((p) => pattern.startsWith(p));
}

/**
 * The HTTP authentication guard: the `Authorization` header or the `flipt_client_token` cookie
 * must name a valid token; the caller goes to `ctx.principal`. A namespace-scoped caller is
 * checked here on management routes, left to the route on the evaluation routes listed in
 * `checkedByRoute`, and refused on every other route.
 */
export function createHttpAuthGuard(
  authenticator: Authenticator,
  checkedByRoute: ReadonlySet<string>,
  excluded?: (pattern: string) => boolean,
): RequestGuard {
  const accept = (authentication: Authentication, req: IncomingMessage, ctx: RequestContext) => {
    ctx.principal = authentication;
    if (tokenNamespace(authentication) === undefined || checkedByRoute.has(ctx.route)) return;
    if (ctx.route.startsWith('/api/v1/')) {
      authorizeNamespace(
        authentication,
        FLIPT,
        managementNamespaceKeys(req.method ?? 'GET', req.url, ctx.route),
      );
    } else {
      authorizeNamespace(authentication, UNSCOPED_SERVICE, undefined);
    }
  };
  return (req, ctx) => {
    // authentication.exclude.*: as in Flipt, the caller is not even looked at.
    if (excluded !== undefined && excluded(ctx.route)) return;
    const { authorization, cookie } = req.headers;
    // A cached token is answered without creating a promise: this runs on every evaluation.
    const cached = authenticator.authenticateCached(authorization, cookie);
    if (cached !== undefined) return accept(cached, req, ctx);
    return authenticator.authenticate(authorization, cookie).then((a) => accept(a, req, ctx));
  };
}

/**
 * Wraps evaluation and snapshot routes so that a namespace-scoped caller is checked against
 * the request's namespaces once the body is parsed (before the route decodes it), and records
 * their patterns in `registry` so the guard leaves them to the route. Callers with an unscoped
 * token go straight through.
 */
export function scopeEvaluationRoutes(
  routes: readonly HttpRoute[],
  registry: Set<string>,
  excluded?: (pattern: string) => boolean,
): HttpRoute[] {
  return routes.map((route) => {
    // An excluded route needs no token: no guard runs, so there is no caller to scope.
    if (excluded?.(route.pattern) === true) return { ...route, public: true };
    registry.add(route.pattern);
    const service = route.pattern.startsWith('/api/v1/') ? FLIPT : EVALUATION;
    /** The caller, once checked against what is known before the body is read. */
    const callerOf = (ctx: RequestContext, params: Readonly<Record<string, string>>) => {
      const caller = ctx.principal as Authentication | undefined;
      // Only reached when authentication is required, after the guard: no caller, no call.
      if (caller === undefined) throw new UnauthenticatedError();
      if (tokenNamespace(caller) === undefined) return undefined;
      if (route.method === 'GET') {
        const key = params['namespaceKey'] ?? params['key'] ?? '';
        authorizeNamespace(caller, 'flipt.evaluation.DataService', [key]);
        return undefined;
      }
      return caller;
    };
    const handle = (x: HttpExchange) => {
      const caller = callerOf(x.ctx, x.params);
      if (caller === undefined) return route.handle(x);
      return route.handle({
        ...x,
        readJson: async () => {
          const body = await x.readJson();
          authorizeNamespace(
            caller,
            service,
            evaluationNamespaceKeys(route.pattern, x.params, body),
          );
          return body;
        },
      });
    };
    // Only the HttpRoute fields and `answer` (wrapped with the same check, on the parsed body)
    // are carried over: any other shortcut a route offers the handler would bypass the check.
    const answer = (route as Partial<JsonRoute>).answer;
    const scoped: HttpRoute & Partial<Pick<JsonRoute, 'answer'>> = {
      method: route.method,
      pattern: route.pattern,
      ...(route.public === undefined ? {} : { public: route.public }),
      handle,
    };
    if (answer !== undefined) {
      return {
        ...scoped,
        answer: (body: unknown, params: Readonly<Record<string, string>>, ctx: RequestContext) => {
          const caller = callerOf(ctx, params);
          if (caller !== undefined) {
            authorizeNamespace(
              caller,
              service,
              evaluationNamespaceKeys(route.pattern, params, body),
            );
          }
          return answer(body, params, ctx);
        },
      };
    }
    return scoped;
  });
}

/**
 * The gRPC counterpart: every call but the exempt services (health, public auth methods,
 * reflection) needs a token, and a namespace-scoped token is checked against the decoded
 * request (every batch item; the legacy batch's top-level namespace).
 */
export class TokenGrpcAuthenticator implements GrpcAuthenticator {
  constructor(
    private readonly authenticator: Authenticator,
    /** Services exempted by authentication.exclude.* (excludedServices). */
    private readonly excluded: ReadonlySet<string> = new Set(),
  ) {}

  async authenticate(call: {
    readonly method: string;
    readonly metadata: grpc.Metadata;
    readonly request: unknown;
  }): Promise<Authentication | undefined> {
    const { service, method } = serviceOfGrpcPath(call.method);
    if (isAuthenticationExempt(service) || this.excluded.has(service)) return undefined;
    const authentication = await this.authenticator.authenticateMetadata(call.metadata);
    if (tokenNamespace(authentication) !== undefined) {
      const request = isObject(call.request) ? call.request : {};
      authorizeNamespace(authentication, service, requestNamespaceKeys(service, method, request));
    }
    return authentication;
  }
}
