import type { IncomingMessage, ServerResponse } from 'node:http';
import compression from 'compression';
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import type { Logger } from '../../ports';
import { GrpcCode } from '../status';
import { HttpError, methodNotAllowed, notFoundRoute, writeError } from './http-error';
import { parseJsonBody } from './parse-json';
import { bodyTooLarge } from './read-body';
import { requestContext, UNMATCHED_ROUTE, type RequestContext } from './request-context';
import { splitTarget, type HttpExchange, type HttpRoute, type RequestGuard } from './route-table';

/**
 * What a router or static middleware mounted on the Express app gets besides the app itself
 * (see ExpressMount).
 */
export interface MountTools {
  /** Runs the authentication guards (when authentication is required), as on /api/v1. */
  readonly guard: RequestHandler;
  /** Names the request's route in the access line, metrics and traces (a pattern, never a raw path). */
  readonly route: (pattern: string) => RequestHandler;
  /** Reads the body within the configured limit and parses it as grpc-gateway does. */
  readonly readJson: (req: Request, res: Response) => Promise<unknown>;
  readonly logger: Logger;
}

/**
 * Adds routers or middleware to the Express app. Mounts run after the API routes (so they
 * cannot shadow one) and before the 404 answer; errors they pass to `next` are written in
 * Flipt's shape. This is where the dashboard's static files and its /meta routes go, and
 * where CORS or TLS-related middleware will go.
 */
export type ExpressMount = (app: Express, tools: MountTools) => void;

export interface ExpressAppDeps {
  readonly logger: Logger;
  readonly bodyLimitBytes: number;
  /** Run, in order, for every non-public route before its body is read. */
  readonly guards: readonly RequestGuard[];
  /** Routes served here, in order: the first whose path and method match wins. */
  readonly routes: readonly HttpRoute[];
  /**
   * Routes served in front of the app (the evaluation fast path). A request reaches the app
   * for one of their paths only with another method: it is answered 501 like the others.
   */
  readonly frontRoutes: readonly HttpRoute[];
  readonly mounts?: readonly ExpressMount[];
}

/**
 * The Express app behind the evaluation fast path: health, metrics, the auth and management
 * APIs, then whatever `mounts` add. As in Flipt, paths are case-sensitive, a known path with
 * another method answers 501 and an unknown one 404, both in grpc-gateway's error shape.
 * The request id, access line, metrics and server span are handled in front of the app
 * (http-handler.ts), so every request gets them whichever side serves it.
 */
export function createExpressApp(deps: ExpressAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  // Queries are decoded per route, as grpc-gateway does (repeated keys, proto field names).
  app.set('query parser', false);
  app.use(compression());

  const readJson = bodyReader(deps.bodyLimitBytes);
  const guard = guardMiddleware(deps.guards);
  for (const route of deps.routes) mountRoute(app, route, deps, readJson);

  // 501 for a known path with another method, naming the first route whose path matches.
  for (const route of [...deps.routes, ...deps.frontRoutes]) {
    app.all(route.pattern, (req, res) => {
      const ctx = requestContext(req);
      if (ctx !== undefined && ctx.route === UNMATCHED_ROUTE) ctx.route = route.pattern;
      writeError(res, methodNotAllowed());
    });
  }

  const tools: MountTools = { guard, route: routeNamer, readJson, logger: deps.logger };
  for (const mount of deps.mounts ?? []) mount(app, tools);

  app.use((_req: Request, res: Response) => writeError(res, notFoundRoute()));
  const renderError: ErrorRequestHandler = (err: unknown, _req, res, _next) =>
    writeError(res, transportError(err), deps.logger);
  app.use(renderError);
  return app;
}

/** Express routers made the same way (case-sensitive paths), for mounts. */
export const createRouter = (): Router => express.Router({ caseSensitive: true });

function routeNamer(pattern: string): RequestHandler {
  return (req, _res, next) => {
    const ctx = requestContext(req);
    if (ctx !== undefined) ctx.route = pattern;
    next();
  };
}

function guardMiddleware(guards: readonly RequestGuard[]): RequestHandler {
  return (req, _res, next) => {
    const ctx = requestContext(req);
    if (ctx === undefined || guards.length === 0) {
      next();
      return;
    }
    runGuards(guards, req, ctx).then(() => next(), next);
  };
}

export async function runGuards(
  guards: readonly RequestGuard[] | undefined,
  req: IncomingMessage,
  ctx: RequestContext,
): Promise<void> {
  for (const guard of guards ?? []) await guard(req, ctx);
}

const EMPTY = Buffer.alloc(0);

/**
 * The body as body-parser reads it (any Content-Type: the Flipt SDKs send JSON as
 * text/plain; the size limit checked from Content-Length before reading, then while
 * streaming), decoded as grpc-gateway decodes it.
 */
function bodyReader(limitBytes: number): (req: Request, res: Response) => Promise<unknown> {
  const raw = express.raw({ type: () => true, limit: limitBytes });
  return (req, res) =>
    new Promise<unknown>((resolve, reject) => {
      raw(req, res, (err?: unknown) => {
        if (err !== undefined && err !== null) {
          reject(bodyError(err, limitBytes));
          return;
        }
        try {
          const body: unknown = req.body;
          resolve(parseJsonBody(Buffer.isBuffer(body) ? body : EMPTY));
        } catch (parseErr) {
          reject(parseErr);
        }
      });
    });
}

interface StatusError {
  readonly status?: unknown;
  readonly type?: unknown;
  readonly message?: unknown;
  readonly expose?: unknown;
}

function bodyError(err: unknown, limitBytes: number): unknown {
  const e = err as StatusError;
  if (e.type === 'entity.too.large' || e.status === 413) return bodyTooLarge(limitBytes);
  return transportError(err);
}

/**
 * Errors raised by Express or body-parser themselves (a malformed percent-encoding in a path
 * parameter, an unsupported Content-Encoding, a request aborted while its body streamed in)
 * become client errors in Flipt's shape; anything else goes through the status table.
 */
function transportError(err: unknown): unknown {
  if (err instanceof HttpError || typeof err !== 'object' || err === null) return err;
  const e = err as StatusError;
  // The router's URIError for a malformed path escape carries status 400 but no `expose`.
  const exposed = e.expose === true || err instanceof URIError;
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && exposed) {
    const message = typeof e.message === 'string' ? e.message : 'bad request';
    return new HttpError(GrpcCode.INVALID_ARGUMENT, message, e.status);
  }
  return err;
}

/** Mounts one route: its name for the access line, the guards unless public, then the handler. */
function mountRoute(
  app: Express,
  route: HttpRoute,
  deps: ExpressAppDeps,
  readJson: (req: Request, res: Response) => Promise<unknown>,
): void {
  const guards = route.public === true ? [] : deps.guards;
  const handler = (req: Request, res: Response, next: NextFunction): void => {
    const ctx = requestContext(req);
    if (ctx === undefined) {
      next(new Error('request reached the Express app without a request context'));
      return;
    }
    ctx.route = route.pattern;
    const exchange: HttpExchange = {
      req,
      res,
      ctx,
      params: req.params as Record<string, string>,
      query: splitTarget(req.url).query,
      readJson: () => readJson(req, res),
    };
    run(guards, route, exchange).catch((err: unknown) =>
      writeError(res as ServerResponse, transportError(err), deps.logger),
    );
  };
  const method = route.method.toUpperCase();
  if (method === 'GET') app.get(route.pattern, handler);
  else if (method === 'POST') app.post(route.pattern, handler);
  else if (method === 'PUT') app.put(route.pattern, handler);
  else if (method === 'DELETE') app.delete(route.pattern, handler);
  else if (method === 'PATCH') app.patch(route.pattern, handler);
  else throw new Error(`unsupported method ${route.method} for ${route.pattern}`);
}

async function run(
  guards: readonly RequestGuard[],
  route: HttpRoute,
  exchange: HttpExchange,
): Promise<void> {
  if (guards.length > 0) await runGuards(guards, exchange.req, exchange.ctx);
  await route.handle(exchange);
}
