import type { ManagementApi } from '../../domain/services/api';
import type { Logger } from '../../ports';
import { managementRpcs, type ResolvedRpc } from '../rpc/management-rpcs';
import { sendJson, sendPrettyJson, writeError } from './http-error';
import { FLIPT_JSON, FLIPT_JSON_SPARSE } from './presenters';
import { decodeJsonMessage, decodeQueryMessage } from './proto-json-decoder';
import type { HttpExchange, HttpRoute } from './route-table';

export interface ManagementRoutesDeps {
  readonly management: ManagementApi;
  /** For unexpected errors answered in the `?pretty` form. */
  readonly logger?: Logger;
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
    const handle = rpcHandler(rpc, deps);
    for (const pattern of rpc.paths) routes.push({ method: rpc.method, pattern, handle });
  }
  return routes;
}

/**
 * `?pretty` (any value, even empty) answers as Flipt's gateway then does: indented, zero
 * values left out, errors included.
 */
function rpcHandler(
  rpc: ResolvedRpc,
  deps: ManagementRoutesDeps,
): (x: HttpExchange) => Promise<void> {
  const fromBody = rpc.method === 'POST' || rpc.method === 'PUT';
  const present = FLIPT_JSON.encoder(rpc.responseType);
  const presentSparse = FLIPT_JSON_SPARSE.encoder(rpc.responseType);
  const answer = async (x: HttpExchange): Promise<unknown> => {
    const message = fromBody
      ? decodeJsonMessage(await x.readJson(), rpc.request)
      : decodeQueryMessage(x.query, rpc.request);
    // Path parameters win over anything in the body or the query.
    for (const [name, value] of Object.entries(x.params)) message[name] = value;
    return rpc.call(deps.management, message);
  };
  return async (x) => {
    if (!x.query.has('pretty')) {
      sendJson(x.res, 200, present(await answer(x)));
      return;
    }
    try {
      sendPrettyJson(x.res, 200, presentSparse(await answer(x)));
    } catch (err) {
      writeError(x.res, err, deps.logger, true);
    }
  };
}
