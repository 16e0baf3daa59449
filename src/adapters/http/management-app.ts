import type { ManagementApi } from '../../domain/services/api';
import { managementRpcs, type ResolvedRpc } from '../rpc/management-rpcs';
import { sendJson } from './http-error';
import { FLIPT_JSON } from './presenters';
import { decodeJsonMessage, decodeQueryMessage } from './proto-json-decoder';
import type { HttpExchange, HttpRoute } from './route-table';

export interface ManagementRoutesDeps {
  readonly management: ManagementApi;
}

/**
 * The /api/v1 management routes, one per path and method of each management RPC
 * (src/adapters/rpc/management-rpcs.ts), for the same route table as every other route
 * (guards, body limit, errors and the request context come with it). Order follows the RPC
 * list, so the literal `.../order` paths (PUT only) come before `.../{id}`: another method on
 * `.../rules/order` reaches the `{id}` route, as in Flipt (GET .../rules/order is GetRule with
 * id "order"). A path matched with no route for its method answers 501, an unknown path 404.
 */
export function createManagementRoutes(deps: ManagementRoutesDeps): HttpRoute[] {
  const routes: HttpRoute[] = [];
  for (const rpc of managementRpcs()) {
    const handle = rpcHandler(rpc, deps.management);
    for (const pattern of rpc.paths) routes.push({ method: rpc.method, pattern, handle });
  }
  return routes;
}

function rpcHandler(
  rpc: ResolvedRpc,
  management: ManagementApi,
): (x: HttpExchange) => Promise<void> {
  const fromBody = rpc.method === 'POST' || rpc.method === 'PUT';
  const present = FLIPT_JSON.encoder(rpc.responseType);
  return async (x) => {
    const message = fromBody
      ? decodeJsonMessage(await x.readJson(), rpc.request)
      : decodeQueryMessage(x.query, rpc.request);
    // Path parameters win over anything in the body or the query.
    for (const [name, value] of Object.entries(x.params)) message[name] = value;
    sendJson(x.res, 200, present(await rpc.call(management, message)));
  };
}
