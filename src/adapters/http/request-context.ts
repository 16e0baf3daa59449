import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Span } from '@opentelemetry/api';
import type { IdGenerator } from '../../ports';

/** Per-request facts shared by routing, guards, error writing and the access log. */
export interface RequestContext {
  readonly requestId: string;
  /** performance.now() when the request arrived, in milliseconds. */
  readonly startedAt: number;
  /** The matched route pattern (never the raw path, so logs and metrics stay low-cardinality). */
  route: string;
  /** Whatever an authentication guard established about the caller. */
  principal?: unknown;
  /** The request's server span and the trace context it opens, when tracing is on. */
  span?: Span;
  traceContext?: Context;
  /** The caller's trace id when the request is not traced here (for the access line). */
  callerTraceId?: string;
}

/*
 * The context rides on the request object itself, under one property every request gets.
 * A WeakMap would do the same job, but under load its ephemeron table, in old space and
 * pointing at short-lived requests, made every young-generation collection slower (about a
 * fifth of the cost of a request). Nothing else is added to requests, and the context object
 * always has the same fields: node:http's code and ours then see objects of one shape on
 * every request, traced or not (a property on some requests only made all of them slower).
 */
const CONTEXT = Symbol('vexil.requestContext');
type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

/** What tracing knows about a request before it is routed. */
export interface RequestTrace {
  /** The request's server span and the context it opens, when it is traced here. */
  readonly span?: Span;
  readonly context?: Context;
  /** The caller's trace id when the request is not traced here. */
  readonly callerTraceId?: string;
}

export const UNMATCHED_ROUTE = '(unmatched)';

/** Request ids longer than this are replaced rather than echoed into logs and headers. */
const MAX_REQUEST_ID_LENGTH = 200;
const PRINTABLE = /^[\x21-\x7e]+$/;

/** The caller's `x-request-id` when it is sane, otherwise a fresh UUID. */
export function requestIdFor(req: IncomingMessage, ids: IdGenerator): string {
  const given = req.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  if (value && value.length <= MAX_REQUEST_ID_LENGTH && PRINTABLE.test(value)) return value;
  return ids.uuid();
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * Creates the context of a request without touching the response: the caller writes the
 * `X-Request-Id` header itself (the JSON fast path puts it in its single writeHead).
 */
export function createRequestContext(
  req: IncomingMessage,
  ids: IdGenerator,
  trace?: RequestTrace,
): RequestContext {
  const ctx: RequestContext = {
    requestId: requestIdFor(req, ids),
    startedAt: performance.now(),
    route: UNMATCHED_ROUTE,
    principal: undefined,
    span: trace?.span,
    traceContext: trace?.context,
    callerTraceId: trace?.callerTraceId,
  };
  (req as WithContext)[CONTEXT] = ctx;
  return ctx;
}

/** Creates the context of a request and echoes its id as `X-Request-Id`. */
export function beginRequest(
  req: IncomingMessage,
  res: ServerResponse,
  ids: IdGenerator,
  trace?: RequestTrace,
): RequestContext {
  const ctx = createRequestContext(req, ids, trace);
  res.setHeader(REQUEST_ID_HEADER, ctx.requestId);
  return ctx;
}

export function requestContext(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}
