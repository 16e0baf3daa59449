import type { ManagementApi } from '../../domain/services/api';
import { sendJson } from './http-error';
import { MANAGEMENT_ENDPOINTS, type ApiEndpoint } from './management-routes';
import { decodeJsonMessage, decodeQueryMessage } from './proto-json-decoder';
import type { HttpExchange, HttpRoute } from './route-table';

export interface ManagementRoutesDeps {
  readonly management: ManagementApi;
  readonly endpoints?: readonly ApiEndpoint[];
}

/**
 * The /api/v1 management routes, one per endpoint path and method, for the same route table
 * as every other route (guards, body limit, errors and the request context come with it).
 * Order follows the endpoint list, so the literal `.../order` paths (PUT only) come before
 * `.../{id}`: another method on `.../rules/order` reaches the `{id}` route, as in Flipt
 * (GET .../rules/order is GetRule with id "order"). A path matched with no route for its
 * method answers 501, an unknown path 404.
 */
export function createManagementRoutes(deps: ManagementRoutesDeps): HttpRoute[] {
  const routes: HttpRoute[] = [];
  for (const ep of deps.endpoints ?? MANAGEMENT_ENDPOINTS) {
    for (const pattern of ep.paths) {
      routes.push({ method: ep.method, pattern, handle: endpointHandler(ep, deps.management) });
    }
  }
  return routes;
}

function endpointHandler(
  ep: ApiEndpoint,
  management: ManagementApi,
): (x: HttpExchange) => Promise<void> {
  const fromBody = ep.method === 'POST' || ep.method === 'PUT';
  return async (x) => {
    const message = fromBody
      ? decodeJsonMessage(await x.readJson(), ep.request)
      : decodeQueryMessage(x.query, ep.request);
    // Path parameters win over anything in the body or the query.
    for (const [name, value] of Object.entries(x.params)) message[name] = value;
    sendJson(x.res, 200, await ep.call(management, message));
  };
}
