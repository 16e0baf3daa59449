import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../../ports';
import type { ManagementApi } from '../../domain/services/api';
import { methodNotAllowed, notFoundRoute, sendJson, writeError } from './http-error';
import { MANAGEMENT_ENDPOINTS, type ApiEndpoint } from './management-routes';
import { parseJsonBody } from './parse-json';
import { decodeJsonMessage, decodeQueryMessage } from './proto-json-decoder';
import { readBody } from './read-body';
import { requestContext } from './request-context';
import type { RequestGuard } from './route-table';
import { splitTarget } from './route-table';

export interface ManagementAppDeps {
  readonly management: ManagementApi;
  readonly logger: Logger;
  readonly bodyLimitBytes: number;
  readonly guards?: readonly RequestGuard[];
  readonly endpoints?: readonly ApiEndpoint[];
}

/**
 * The /api/v1 management routes on Express. Express's non-strict routing already ignores a
 * trailing slash. Anything unmatched gets grpc-gateway's 404 / 501 bodies.
 */
export function createManagementApp(deps: ManagementAppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);

  const byPath = new Map<string, ApiEndpoint[]>();
  for (const ep of deps.endpoints ?? MANAGEMENT_ENDPOINTS) {
    for (const path of ep.paths) {
      const list = byPath.get(path) ?? [];
      list.push(ep);
      byPath.set(path, list);
    }
  }

  for (const [path, endpoints] of byPath) {
    const route = app.route(path);
    for (const ep of endpoints) {
      const handler = endpointHandler(ep, path, deps);
      if (ep.method === 'GET') route.get(handler);
      else if (ep.method === 'POST') route.post(handler);
      else if (ep.method === 'PUT') route.put(handler);
      else route.delete(handler);
    }
    // `.../order` only answers PUT; other methods fall through to `.../{id}` as in Flipt
    // (GET .../rules/order is GetRule with id "order").
    if (!path.endsWith('/order')) {
      route.all((req: Request, res: Response) => {
        const ctx = requestContext(req);
        if (ctx) ctx.route = path;
        writeError(res, methodNotAllowed());
      });
    }
  }

  app.use((_req: Request, res: Response) => writeError(res, notFoundRoute()));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) =>
    writeError(res, err, deps.logger),
  );
  return app;
}

function endpointHandler(
  ep: ApiEndpoint,
  path: string,
  deps: ManagementAppDeps,
): (req: Request, res: Response) => Promise<void> {
  const fromBody = ep.method === 'POST' || ep.method === 'PUT';
  return async (req, res) => {
    // Used without createHttpHandler there is no context yet; guards must still run.
    const ctx = requestContext(req) ?? {
      requestId: '',
      startedAt: performance.now(),
      route: path,
    };
    try {
      ctx.route = path;
      for (const guard of deps.guards ?? []) await guard(req, ctx);
      const message = fromBody
        ? decodeJsonMessage(parseJsonBody(await readBody(req, deps.bodyLimitBytes)), ep.request)
        : decodeQueryMessage(splitTarget(req.url).query, ep.request);
      // Path parameters win over anything in the body or the query.
      for (const [name, value] of Object.entries(req.params as Record<string, string>)) {
        if (value !== undefined) message[name] = value;
      }
      sendJson(res, 200, await ep.call(deps.management, message));
    } catch (err) {
      writeError(res, err, deps.logger);
    }
  };
}
