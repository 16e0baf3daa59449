import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from '@opentelemetry/api';
import type { ManagementApi } from '../../domain/services/api';
import type { HealthReporter, IdGenerator, Logger } from '../../ports';
import { requestFinisher, type HttpRecorder } from './access-log';
import {
  callerTraceId,
  extractHttpContext,
  runInContext,
  startServerSpan,
  tracingActive,
} from '../telemetry/tracing';
import type { CorsHandler } from './cors';
import { healthRoute } from './health-route';
import { createExpressApp, runGuards, type ExpressMount } from './express-app';
import { jsonText, sendJsonText, writeError } from './http-error';
import { createManagementRoutes } from './management-app';
import { messageClasses, type MessageClasses } from './message-classes';
import { parseJsonBody } from './parse-json';
import { bodyTooLarge, discard, readBody } from './read-body';
import {
  beginRequest,
  createRequestContext,
  REQUEST_ID_HEADER,
  type RequestContext,
  type RequestTrace,
} from './request-context';
import {
  RouteTable,
  splitTarget,
  type HttpExchange,
  type HttpRoute,
  type RequestGuard,
} from './route-table';

export interface HttpDeps {
  readonly management: ManagementApi;
  readonly health: HealthReporter;
  readonly logger: Logger;
  /** Bodies larger than this are refused with 413 before any parsing. */
  readonly bodyLimitBytes: number;
  readonly ids: IdGenerator;
  /**
   * Routes served on plain node:http in front of Express: the evaluation routes (v2, legacy
   * and the client snapshot). A request that matches one of them by path and method never
   * reaches Express.
   */
  readonly fastRoutes?: readonly HttpRoute[];
  /** Routes served by the Express app after /health and before the management API (/metrics, /auth/v1). */
  readonly routes?: readonly HttpRoute[];
  /** Routers and static middleware added to the Express app (see ExpressMount). */
  readonly mounts?: readonly ExpressMount[];
  /** Run, in order, for every non-public route after routing and before the body is read. */
  readonly guards?: readonly RequestGuard[];
  /**
   * False when the logger's level drops info lines, so the access line (info) is not built
   * at all: a winston logger runs its whole format pipeline (redaction, timestamp, JSON)
   * before its transport discards a line below the level, about 8 µs a request. Default true.
   */
  readonly accessLog?: boolean;
  /** Per-request metrics (vexil_http_requests_total, latency). */
  readonly recorder?: HttpRecorder;
  /** CORS (`cors.enabled`), applied in front of every route; absent: no CORS headers. */
  readonly cors?: CorsHandler;
}

export type HttpHandler = ((req: IncomingMessage, res: ServerResponse) => void) & {
  /** For the server's options: requests and responses shaped as the Express app wants them. */
  readonly messageClasses: MessageClasses;
};

/**
 * A route whose whole job is "JSON body in, 200 JSON out" (the evaluation routes). The
 * handler reads and parses the body itself and writes the answer, so such a route costs no
 * per-request closures or promises beyond what `answer` itself creates. `handle` must do the
 * same thing through the generic exchange; it is what runs when the route is used elsewhere.
 */
export interface JsonRoute extends HttpRoute {
  /**
   * The 200 answer (or a promise of it) for a parsed body; throwing answers an error. `ctx`
   * carries what the guards established (the caller), for checks that need the body too.
   */
  readonly answer: (
    body: unknown,
    params: Readonly<Record<string, string>>,
    ctx: RequestContext,
  ) => unknown;
}

const isJsonRoute = (route: HttpRoute): route is JsonRoute =>
  typeof (route as Partial<JsonRoute>).answer === 'function';

const nothingToFinish = (): void => undefined;

/** The route name of a CORS preflight in the access line and metrics. */
export const CORS_PREFLIGHT_ROUTE = '(cors preflight)';

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The whole HTTP surface as one node:http request listener. Every request gets a request id
 * (echoed as X-Request-Id), one access-log line, its metrics and, when traced, a server span.
 * The evaluation routes (`fastRoutes`) are then served right here, on plain node:http objects;
 * every other request goes to the Express app (express-app.ts), which answers an unknown
 * path 404 and a known path with another method 501.
 *
 * Nothing on the fast path changes the prototype of a request or response or adds framework
 * fields to them: Express does that only to the requests it serves.
 */
export function createHttpHandler(deps: HttpDeps): HttpHandler {
  const fastRoutes = deps.fastRoutes ?? [];
  const app = createExpressApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    guards: deps.guards ?? [],
    routes: [
      healthRoute(deps.health),
      ...(deps.routes ?? []),
      ...createManagementRoutes({ management: deps.management, logger: deps.logger }),
    ],
    frontRoutes: fastRoutes,
    mounts: deps.mounts ?? [],
  });
  const table = new RouteTable(fastRoutes);
  const tracing = tracingActive();
  const logAccess =
    requestFinisher({
      logger: deps.accessLog === false ? undefined : deps.logger,
      recorder: deps.recorder,
      tracing,
    }) ?? nothingToFinish;
  const exact = exactJsonRoutes(fastRoutes);
  const serve: JsonServer = { deps, guards: deps.guards ?? [], answers: new AnswerQueue() };

  /** A parameterless JSON route hit by its exact path and method (the common case). */
  const directRoute = (req: IncomingMessage): JsonRoute | undefined => {
    const route = exact.get(req.url ?? '/');
    return route !== undefined && route.method === req.method ? route : undefined;
  };

  const dispatch = (req: IncomingMessage, res: ServerResponse, trace?: RequestTrace): void => {
    const direct = directRoute(req);
    if (direct !== undefined) {
      const ctx = createRequestContext(req, deps.ids, trace);
      logAccess(res);
      serveJsonRoute(serve, direct, req, res, ctx, NO_PARAMS);
      return;
    }
    const ctx = beginRequest(req, res, deps.ids, trace);
    logAccess(res);
    const { path, query } = splitTarget(req.url);
    const match = table.match(req.method ?? 'GET', path);
    if (match.kind !== 'route') {
      app(req, res);
      return;
    }
    ctx.route = match.route.pattern;
    if (isJsonRoute(match.route)) {
      serveJsonRoute(serve, match.route, req, res, ctx, match.params);
    } else {
      void runRoute(match.route, { req, res, ctx, params: match.params, query }, deps);
    }
  };

  const cors = deps.cors;
  const route: typeof dispatch =
    cors === undefined
      ? dispatch
      : (req, res, trace) => {
          if (cors.isPreflight(req)) {
            const ctx = beginRequest(req, res, deps.ids, trace);
            ctx.route = CORS_PREFLIGHT_ROUTE;
            logAccess(res);
            cors.preflight(req, res);
            return;
          }
          cors.actual(req, res);
          dispatch(req, res, trace);
        };

  const classes = messageClasses(app);
  if (!tracing) return Object.assign(route, { messageClasses: classes });
  // With tracing on, the sampler decides first (the caller's traceparent, else the ratio). A
  // traced request runs inside its server span, so evaluation and storage spans become its
  // children; one that is not traced is served exactly as without tracing.
  const traced: typeof route = (req, res) => {
    const method = req.method ?? 'GET';
    const server = startServerSpan(
      method,
      { 'http.request.method': method },
      extractHttpContext(req.headers),
    );
    if (server === undefined) {
      const traceId = callerTraceId(req.headers['traceparent']);
      route(req, res, traceId === undefined ? undefined : { callerTraceId: traceId });
      return;
    }
    const trace: RequestTrace = { span: server.span, context: server.context };
    runInContext(server.context, () => route(req, res, trace));
  };
  return Object.assign(traced, { messageClasses: classes });
}

/**
 * JSON routes without parameters by their exact request target, for the ones that no
 * earlier route can shadow: a hit there is exactly what the table would have matched.
 * Targets with a query or trailing slash simply miss and take the table.
 */
function exactJsonRoutes(routes: readonly HttpRoute[]): Map<string, JsonRoute> {
  const exact = new Map<string, JsonRoute>();
  routes.forEach((route, i) => {
    if (!isJsonRoute(route) || route.pattern.includes('/:')) return;
    const path = route.pattern.replace(/\/+$/, '') || '/';
    if (path === '/' || exact.has(path)) return;
    if (new RouteTable(routes.slice(0, i)).match(route.method, path).kind !== 'none') return;
    exact.set(path, route);
  });
  return exact;
}

async function runRoute(
  route: HttpRoute,
  base: Omit<HttpExchange, 'readJson'>,
  deps: HttpDeps,
): Promise<void> {
  const exchange: HttpExchange = {
    ...base,
    readJson: async () => parseJsonBody(await readBody(base.req, deps.bodyLimitBytes)),
  };
  try {
    if (!route.public) await runGuards(deps.guards, base.req, base.ctx);
    await route.handle(exchange);
  } catch (err) {
    writeError(base.res, err, deps.logger);
  }
}

interface JsonServer {
  readonly deps: HttpDeps;
  readonly guards: readonly RequestGuard[];
  readonly answers: AnswerQueue;
}

/**
 * The 200 answers of JSON routes, held until node:http has handled every request that was
 * ready in this turn of the event loop, then written one after the other (setImmediate runs
 * right after the poll phase). A response written on its own, as soon as it is computed,
 * often finds the client asleep, and the kernel then interrupts the client's core to wake it:
 * measured on loopback, that made about one write in four cost an inter-processor interrupt,
 * against one in sixteen when the answers of a turn go out together, because the first write
 * wakes the client and the next ones reach it awake. An answer waits at most for the rest of
 * its turn's requests to be computed; under light load a turn holds a single request and it
 * waits for nothing. Errors are written at once.
 */
class AnswerQueue {
  /** Exchanges and their answer texts, alternating, in the order they were computed. */
  private pending: Array<JsonExchange | string> = [];

  add(exchange: JsonExchange, text: string): void {
    if (this.pending.length === 0) setImmediate(this.flush);
    this.pending.push(exchange, text);
  }

  private readonly flush = (): void => {
    const batch = this.pending;
    this.pending = [];
    for (let i = 0; i < batch.length; i += 2) {
      (batch[i] as JsonExchange).write(batch[i + 1] as string);
    }
  };
}

/**
 * One exchange of a JSON route, kept on the request while its body streams in, so the
 * stream listeners are shared functions rather than closures made per request.
 */
class JsonExchange {
  private first: Buffer | undefined = undefined;
  private rest: Buffer[] | undefined = undefined;
  private size = 0;
  private done = false;

  constructor(
    readonly server: JsonServer,
    readonly route: JsonRoute,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly ctx: RequestContext,
    readonly params: Readonly<Record<string, string>>,
  ) {}

  /** Starts reading, refusing (413) a declared length over the limit before reading. */
  read(): void {
    const limit = this.server.deps.bodyLimitBytes;
    const declared = Number(this.req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      discard(this.req);
      this.fail(bodyTooLarge(limit));
      return;
    }
    // No 'error' listener: a request that fails while its body streams in (the client went
    // away) needs no answer, and node:http emits the error only to listeners. The access
    // line and metrics still come from the response's 'close'.
    (this.req as WithExchange)[EXCHANGE] = this;
    this.req.on('data', onData);
    this.req.on('end', onEnd);
  }

  chunk(chunk: Buffer): void {
    if (this.done) return;
    this.size += chunk.length;
    const limit = this.server.deps.bodyLimitBytes;
    if (this.size > limit) {
      this.first = undefined;
      this.rest = undefined;
      this.done = true;
      discard(this.req);
      this.fail(bodyTooLarge(limit));
      return;
    }
    if (this.first === undefined) this.first = chunk;
    else (this.rest ??= [this.first]).push(chunk);
  }

  end(): void {
    if (this.done) return;
    // The listeners stay: the request object is dropped with the exchange once answered.
    this.done = true;
    const body =
      this.rest !== undefined
        ? Buffer.concat(this.rest, this.size)
        : (this.first ?? Buffer.alloc(0));
    let answer: unknown;
    try {
      const parsed = parseJsonBody(body);
      // Body events fire in the socket's async context: re-enter the request's trace.
      const traceContext = this.ctx.traceContext;
      answer =
        traceContext === undefined
          ? this.route.answer(parsed, this.params, this.ctx)
          : this.answerInContext(traceContext, parsed);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (isThenable(answer)) this.sendWhenSettled(answer);
    else this.send(answer);
  }

  /*
   * The closures of the two paths below live in methods of their own: a closure in end()
   * would make V8 allocate a context for end's variables on every request, whichever path it
   * takes.
   */

  /** The route's answer with the request's trace context active (a traced request). */
  private answerInContext(traceContext: Context, parsed: unknown): unknown {
    return runInContext(traceContext, () => this.route.answer(parsed, this.params, this.ctx));
  }

  private sendWhenSettled(answer: PromiseLike<unknown>): void {
    answer.then(
      (value) => this.send(value),
      (err: unknown) => this.fail(err),
    );
  }

  private send(value: unknown): void {
    let text: string;
    try {
      text = jsonText(value);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.server.answers.add(this, text);
  }

  /** Writes the 200 answer (see AnswerQueue for when). */
  write(text: string): void {
    try {
      // X-Request-Id first, as beginRequest would have set it, then the JSON headers.
      sendJsonText(this.res, 200, text, this.ctx.requestId);
    } catch (err) {
      this.fail(err);
    }
  }

  fail(err: unknown): void {
    const res = this.res;
    if (!res.headersSent && !res.hasHeader(REQUEST_ID_HEADER)) {
      res.setHeader(REQUEST_ID_HEADER, this.ctx.requestId);
    }
    writeError(res, err, this.server.deps.logger);
  }
}

// On the request object rather than in a WeakMap, for the reason given in request-context.ts.
const EXCHANGE = Symbol('vexil.jsonExchange');
type WithExchange = IncomingMessage & { [EXCHANGE]?: JsonExchange };

function onData(this: WithExchange, chunk: Buffer): void {
  this[EXCHANGE]?.chunk(chunk);
}
function onEnd(this: WithExchange): void {
  this[EXCHANGE]?.end();
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/**
 * Serves a JSON route: guards (if any), body within the limit, parse, answer, write. The
 * request id header is written with the answer's headers in one writeHead, or set before
 * an error is written, so every response still carries it.
 */
function serveJsonRoute(
  server: JsonServer,
  route: JsonRoute,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  params: Readonly<Record<string, string>>,
): void {
  ctx.route = route.pattern;
  const exchange = new JsonExchange(server, route, req, res, ctx, params);
  if (route.public) exchange.read();
  else guardThenRead(server.guards, 0, exchange);
}

/**
 * The guards in order, then the body. A guard that answers synchronously (an
 * authentication cache hit) is not awaited, so the common case makes no promise; the
 * first one that returns a promise is awaited before the next runs, as runGuards does.
 */
function guardThenRead(guards: readonly RequestGuard[], from: number, x: JsonExchange): void {
  for (let i = from; i < guards.length; i++) {
    let outcome: unknown;
    try {
      outcome = (guards[i] as RequestGuard)(x.req, x.ctx);
    } catch (err) {
      x.fail(err);
      return;
    }
    if (isThenable(outcome)) {
      outcome.then(
        () => guardThenRead(guards, i + 1, x),
        (err: unknown) => x.fail(err),
      );
      return;
    }
  }
  x.read();
}
