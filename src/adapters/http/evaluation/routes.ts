import type { EvaluationService } from '../../../domain/services/evaluation';
import type { BooleanEvaluationResponse, EvaluationRequest } from '../../../domain/model';
import type { Logger } from '../../../ports';
import { sendJson } from '../http-error';
import type { JsonRoute } from '../http-handler';
import type { HttpRoute } from '../route-table';
import type { ClientSnapshotDocuments } from '../../snapshot';
import { snapshotRoute } from './snapshot-route';

export { snapshotEtag } from './snapshot-route';
import {
  decodeBatchRequest,
  decodeEvaluationRequest,
  decodeLegacyBatchRequest,
  decodeLegacyRequest,
} from './decode';
import {
  presentBatch,
  presentBooleanJson,
  presentExplain,
  presentLegacy,
  presentLegacyBatch,
  presentVariant,
} from './present';

export interface EvaluationRoutesDeps {
  readonly evaluation: Pick<
    EvaluationService,
    'boolean' | 'variant' | 'batch' | 'legacyEvaluate' | 'legacyBatchEvaluate' | 'clientSnapshot'
  > &
    Partial<Pick<EvaluationService, 'explain'>> &
    Partial<Pick<EvaluationService, 'booleanCached'>>;
  readonly logger: Logger;
  /** Client snapshot documents, shared with the gRPC DataService. */
  readonly snapshotDocuments?: ClientSnapshotDocuments;
}

type BooleanApi = EvaluationRoutesDeps['evaluation'];

/**
 * The boolean answer, synchronously when the service can give it without waiting
 * (booleanCached), else through boolean(). A service that is not ready yet may hand back a
 * rejected promise from either; it is passed on as is, so the error answer is the same.
 */
function answerBoolean(evaluation: BooleanApi, req: EvaluationRequest): unknown {
  const now: unknown = evaluation.booleanCached?.(req);
  if (now === undefined) return evaluation.boolean(req).then(presentBooleanJson);
  if (isThenable(now)) return now.then((r) => presentBooleanJson(r as BooleanEvaluationResponse));
  return presentBooleanJson(now as BooleanEvaluationResponse);
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/**
 * The evaluation routes, served on plain node:http ahead of the management routes: v2 boolean / variant /
 * batch (plain and namespace-scoped), the v1 evaluate routes, and the client-side SDK
 * snapshot with ETag / If-None-Match.
 */
export function createEvaluationRoutes(deps: EvaluationRoutesDeps): HttpRoute[] {
  const { evaluation } = deps;
  // JSON routes: the handler reads, parses and answers them on its lean path; `handle` is
  // the same thing through the generic exchange.
  const post = (pattern: string, answer: JsonRoute['answer']): JsonRoute => ({
    method: 'POST',
    pattern,
    answer,
    handle: async (x) => sendJson(x.res, 200, await answer(await x.readJson(), x.params, x.ctx)),
  });
  const ns = (params: Readonly<Record<string, string>>): string | undefined =>
    params['namespaceKey'];

  return [
    post('/evaluate/v1/boolean', (body, _params, ctx) =>
      answerBoolean(evaluation, decodeEvaluationRequest(body, undefined, ctx.requestId)),
    ),
    post('/evaluate/v1/variant', async (body, _params, ctx) =>
      presentVariant(
        await evaluation.variant(decodeEvaluationRequest(body, undefined, ctx.requestId)),
      ),
    ),
    post('/evaluate/v1/batch', async (body, _params, ctx) =>
      presentBatch(await evaluation.batch(decodeBatchRequest(body, undefined, ctx.requestId))),
    ),
    post('/evaluate/v1/namespaces/:namespaceKey/boolean', (body, params, ctx) =>
      answerBoolean(evaluation, decodeEvaluationRequest(body, ns(params), ctx.requestId)),
    ),
    post('/evaluate/v1/namespaces/:namespaceKey/variant', async (body, params, ctx) =>
      presentVariant(
        await evaluation.variant(decodeEvaluationRequest(body, ns(params), ctx.requestId)),
      ),
    ),
    post('/evaluate/v1/namespaces/:namespaceKey/batch', async (body, params, ctx) =>
      presentBatch(await evaluation.batch(decodeBatchRequest(body, ns(params), ctx.requestId))),
    ),
    ...(evaluation.explain === undefined
      ? []
      : [
          post('/evaluate/v1/explain', async (body, _params, ctx) =>
            presentExplain(
              await (evaluation.explain as NonNullable<typeof evaluation.explain>)(
                decodeEvaluationRequest(body, undefined, ctx.requestId),
              ),
            ),
          ),
        ]),
    post('/api/v1/evaluate', async (body, _params, ctx) =>
      presentLegacy(
        await evaluation.legacyEvaluate(decodeLegacyRequest(body, undefined, ctx.requestId)),
      ),
    ),
    post('/api/v1/namespaces/:namespaceKey/evaluate', async (body, params, ctx) =>
      presentLegacy(
        await evaluation.legacyEvaluate(decodeLegacyRequest(body, ns(params), ctx.requestId)),
      ),
    ),
    post('/api/v1/batch-evaluate', async (body, _params, ctx) =>
      presentLegacyBatch(
        await evaluation.legacyBatchEvaluate(
          decodeLegacyBatchRequest(body, undefined, ctx.requestId),
        ),
      ),
    ),
    post('/api/v1/namespaces/:namespaceKey/batch-evaluate', async (body, params, ctx) =>
      presentLegacyBatch(
        await evaluation.legacyBatchEvaluate(
          decodeLegacyBatchRequest(body, ns(params), ctx.requestId),
        ),
      ),
    ),
    snapshotRoute(evaluation, deps.snapshotDocuments),
  ];
}
