import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ManagementApi } from '../../domain/services/api';
import type { HealthReporter, IdGenerator, Logger } from '../../ports';
import { logAccessOnFinish } from './access-log';
import { healthRoute } from './health-route';
import { methodNotAllowed, writeError } from './http-error';
import { createManagementApp } from './management-app';
import { parseJsonBody } from './parse-json';
import { readBody } from './read-body';
import { beginRequest, type RequestContext } from './request-context';
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
   * Routes served on plain node:http before Express is reached: the evaluation fast path
   * (POST /evaluate/v1/*), legacy evaluation, /metrics, /meta... First match wins; they
   * are checked after /health.
   */
  readonly extraRoutes?: readonly HttpRoute[];
  /** Run, in order, for every non-public route after routing and before the body is read. */
  readonly guards?: readonly RequestGuard[];
}

export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The whole HTTP surface as one node:http request listener. Every request gets a request
 * id (echoed as X-Request-Id) and one access-log line; routes of the fast table are
 * answered directly, everything else goes to the Express management app.
 */
export function createHttpHandler(deps: HttpDeps): HttpHandler {
  const table = new RouteTable([healthRoute(deps.health), ...(deps.extraRoutes ?? [])]);
  const app = createManagementApp(deps);

  return (req, res) => {
    const ctx = beginRequest(req, res, deps.ids);
    logAccessOnFinish(req, res, ctx, deps.logger);
    const { path, query } = splitTarget(req.url);
    const match = table.match(req.method ?? 'GET', path);
    if (match.kind === 'route') {
      ctx.route = match.route.pattern;
      void runRoute(match.route, { req, res, ctx, params: match.params, query }, deps);
    } else if (match.kind === 'wrong-method') {
      ctx.route = match.pattern;
      writeError(res, methodNotAllowed());
    } else {
      void app(req, res);
    }
  };
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

export async function runGuards(
  guards: readonly RequestGuard[] | undefined,
  req: IncomingMessage,
  ctx: RequestContext,
): Promise<void> {
  for (const guard of guards ?? []) await guard(req, ctx);
}
