import { createHash } from 'node:crypto';
import type { EvaluationService } from '../../../domain/services/evaluation';
import { buildClientSnapshot } from '../../../domain/evaluation';
import type { Logger } from '../../../ports';
import { sendJson } from '../http-error';
import type { HttpExchange, HttpRoute } from '../route-table';
import {
  decodeBatchRequest,
  decodeEvaluationRequest,
  decodeLegacyBatchRequest,
  decodeLegacyRequest,
} from './decode';
import {
  presentBatch,
  presentBoolean,
  presentLegacy,
  presentLegacyBatch,
  presentVariant,
} from './present';

export interface EvaluationRoutesDeps {
  readonly evaluation: Pick<
    EvaluationService,
    'boolean' | 'variant' | 'batch' | 'legacyEvaluate' | 'legacyBatchEvaluate' | 'clientSnapshot'
  >;
  readonly logger: Logger;
}

/** The snapshot ETag: hex SHA-1 of the namespace version, unquoted, as Flipt sends it. */
export const snapshotEtag = (version: number): string =>
  createHash('sha1').update(String(version)).digest('hex');

/**
 * The evaluation routes, served on plain node:http ahead of Express: v2 boolean / variant /
 * batch (plain and namespace-scoped), the v1 evaluate routes, and the client-side SDK
 * snapshot with ETag / If-None-Match.
 */
export function createEvaluationRoutes(deps: EvaluationRoutesDeps): HttpRoute[] {
  const { evaluation } = deps;
  const post = (pattern: string, handle: (x: HttpExchange) => Promise<unknown>): HttpRoute => ({
    method: 'POST',
    pattern,
    handle: async (x) => sendJson(x.res, 200, await handle(x)),
  });
  const ns = (x: HttpExchange): string | undefined => x.params['namespaceKey'];

  return [
    post('/evaluate/v1/boolean', async (x) =>
      presentBoolean(await evaluation.boolean(decodeEvaluationRequest(await x.readJson()))),
    ),
    post('/evaluate/v1/variant', async (x) =>
      presentVariant(await evaluation.variant(decodeEvaluationRequest(await x.readJson()))),
    ),
    post('/evaluate/v1/batch', async (x) =>
      presentBatch(await evaluation.batch(decodeBatchRequest(await x.readJson()))),
    ),
    post('/evaluate/v1/namespaces/:namespaceKey/boolean', async (x) =>
      presentBoolean(await evaluation.boolean(decodeEvaluationRequest(await x.readJson(), ns(x)))),
    ),
    post('/evaluate/v1/namespaces/:namespaceKey/variant', async (x) =>
      presentVariant(await evaluation.variant(decodeEvaluationRequest(await x.readJson(), ns(x)))),
    ),
    post('/evaluate/v1/namespaces/:namespaceKey/batch', async (x) =>
      presentBatch(await evaluation.batch(decodeBatchRequest(await x.readJson(), ns(x)))),
    ),
    post('/api/v1/evaluate', async (x) =>
      presentLegacy(await evaluation.legacyEvaluate(decodeLegacyRequest(await x.readJson()))),
    ),
    post('/api/v1/namespaces/:namespaceKey/evaluate', async (x) =>
      presentLegacy(
        await evaluation.legacyEvaluate(decodeLegacyRequest(await x.readJson(), ns(x))),
      ),
    ),
    post('/api/v1/batch-evaluate', async (x) =>
      presentLegacyBatch(
        await evaluation.legacyBatchEvaluate(decodeLegacyBatchRequest(await x.readJson())),
      ),
    ),
    post('/api/v1/namespaces/:namespaceKey/batch-evaluate', async (x) =>
      presentLegacyBatch(
        await evaluation.legacyBatchEvaluate(decodeLegacyBatchRequest(await x.readJson(), ns(x))),
      ),
    ),
    {
      method: 'GET',
      pattern: '/internal/v1/evaluation/snapshot/namespace/:key',
      handle: async (x) => {
        const key = x.params['key'] ?? '';
        const { version, data } = await evaluation.clientSnapshot(key);
        if (version !== undefined && data !== undefined) {
          const etag = snapshotEtag(version);
          x.res.setHeader('ETag', etag);
          if (x.req.headers['if-none-match'] === etag) {
            x.res.statusCode = 304;
            x.res.end();
            return;
          }
        }
        const header = x.req.headers['x-flipt-accept-server-version'];
        const clientVersion = Array.isArray(header) ? header[0] : header;
        sendJson(x.res, 200, buildClientSnapshot(key, data, clientVersion));
      },
    },
  ];
}
