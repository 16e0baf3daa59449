import type {
  BatchEvaluationRequest,
  BatchEvaluationResponse,
  BooleanEvaluationResponse,
  EvaluationRequest,
  LegacyBatchEvaluationRequest,
  LegacyBatchEvaluationResponse,
  LegacyEvaluationRequest,
  LegacyEvaluationResponse,
  NamespaceData,
  VariantEvaluationResponse,
} from '../../domain/model';
import { SERVICE_NAMES } from './proto-definitions';
import { ClientSnapshotDocuments, DEFAULT_SNAPSHOT_MAX_BYTES } from '../snapshot';
import { presentClientSnapshot } from './snapshot-presenter';
import type { CallContext, GrpcServiceModule, UnaryHandler } from './unary';
import { toTimestampMessage } from './wire-types';

/**
 * What the evaluation use cases offer the transports; src/domain/services/evaluation's
 * EvaluationService satisfies it. Responses come complete (request ids, timestamps and
 * durations filled by the use case), so every transport answers alike.
 */
export interface EvaluationApi {
  boolean(req: EvaluationRequest): Promise<BooleanEvaluationResponse>;
  variant(req: EvaluationRequest): Promise<VariantEvaluationResponse>;
  batch(req: BatchEvaluationRequest): Promise<BatchEvaluationResponse>;
  legacyEvaluate(req: LegacyEvaluationRequest): Promise<LegacyEvaluationResponse>;
  legacyBatchEvaluate(req: LegacyBatchEvaluationRequest): Promise<LegacyBatchEvaluationResponse>;
  /** Everything of one namespace for the client-side snapshot; data undefined when unknown. */
  clientSnapshot(namespaceKey: string): Promise<{
    readonly version?: number | undefined;
    readonly data: NamespaceData | undefined;
  }>;
}

export interface GrpcEvaluationDeps {
  readonly api: EvaluationApi;
  /** DataService (client-side snapshot) is registered unless this is false. */
  readonly dataService?: boolean;
  /** Client snapshot documents, shared with the HTTP route (built once per version). */
  readonly snapshotDocuments?: ClientSnapshotDocuments;
}

type Msg = Readonly<Record<string, unknown>>;

const str = (m: Msg, f: string): string => (typeof m[f] === 'string' ? (m[f] as string) : '');
const context = (m: Msg): Record<string, string> => {
  const v = m['context'];
  const out: Record<string, string> = {};
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) out[k] = typeof x === 'string' ? x : '';
  }
  return out;
};
const items = (m: Msg, f: string): Msg[] => {
  const v = m[f];
  return Array.isArray(v) ? v.filter((x): x is Msg => !!x && typeof x === 'object') : [];
};

/** The message's request id, or the call's own id (the one in the access line) when it has none. */
const requestIdOf = (m: Msg, fallback: string): string => str(m, 'requestId') || fallback;

function v2Request(m: Msg, fallbackRequestId = ''): EvaluationRequest {
  return {
    requestId: requestIdOf(m, fallbackRequestId),
    namespaceKey: str(m, 'namespaceKey'),
    flagKey: str(m, 'flagKey'),
    entityId: str(m, 'entityId'),
    context: context(m),
    reference: str(m, 'reference'),
  };
}

function legacyRequest(m: Msg, fallbackRequestId = ''): LegacyEvaluationRequest {
  return {
    requestId: requestIdOf(m, fallbackRequestId),
    namespaceKey: str(m, 'namespaceKey'),
    flagKey: str(m, 'flagKey'),
    entityId: str(m, 'entityId'),
    context: context(m),
  };
}

function presentBoolean(r: BooleanEvaluationResponse) {
  return {
    enabled: r.enabled,
    reason: r.reason,
    requestId: r.requestId,
    requestDurationMillis: r.requestDurationMillis,
    timestamp: toTimestampMessage(r.timestamp),
    flagKey: r.flagKey,
    segmentKeys: [...r.segmentKeys],
  };
}

function presentVariant(r: VariantEvaluationResponse) {
  return {
    match: r.match,
    segmentKeys: [...r.segmentKeys],
    reason: r.reason,
    variantKey: r.variantKey,
    variantAttachment: r.variantAttachment,
    requestId: r.requestId,
    requestDurationMillis: r.requestDurationMillis,
    timestamp: toTimestampMessage(r.timestamp),
    flagKey: r.flagKey,
  };
}

function presentBatch(r: BatchEvaluationResponse) {
  return {
    requestId: r.requestId,
    responses: r.responses.map((item) => {
      switch (item.type) {
        case 'BOOLEAN_EVALUATION_RESPONSE_TYPE':
          return { type: item.type, booleanResponse: presentBoolean(item.boolean) };
        case 'VARIANT_EVALUATION_RESPONSE_TYPE':
          return { type: item.type, variantResponse: presentVariant(item.variant) };
        case 'ERROR_EVALUATION_RESPONSE_TYPE':
          return {
            type: item.type,
            errorResponse: {
              flagKey: item.error.flagKey,
              namespaceKey: item.error.namespaceKey,
              reason: item.error.reason,
            },
          };
      }
    }),
    requestDurationMillis: r.requestDurationMillis,
  };
}

function presentLegacy(r: LegacyEvaluationResponse) {
  return {
    requestId: r.requestId,
    entityId: r.entityId,
    requestContext: { ...r.requestContext },
    match: r.match,
    flagKey: r.flagKey,
    segmentKey: r.segmentKey,
    timestamp: toTimestampMessage(r.timestamp),
    value: r.value,
    requestDurationMillis: r.requestDurationMillis,
    attachment: r.attachment,
    reason: r.reason,
    namespaceKey: r.namespaceKey,
    segmentKeys: [...r.segmentKeys],
  };
}

/**
 * flipt.evaluation.EvaluationService, DataService, and the handlers of the legacy
 * flipt.Flipt Evaluate / BatchEvaluate RPCs.
 */
export function createEvaluationServices(deps: GrpcEvaluationDeps): {
  services: GrpcServiceModule[];
  legacy: { Evaluate: UnaryHandler<Msg, unknown>; BatchEvaluate: UnaryHandler<Msg, unknown> };
} {
  const { api } = deps;
  const services: GrpcServiceModule[] = [
    {
      serviceName: SERVICE_NAMES.evaluation,
      handlers: {
        Boolean: async (m: Msg, ctx: CallContext) =>
          presentBoolean(await api.boolean(v2Request(m, ctx.requestId))),
        Variant: async (m: Msg, ctx: CallContext) =>
          presentVariant(await api.variant(v2Request(m, ctx.requestId))),
        Batch: async (m: Msg, ctx: CallContext) =>
          presentBatch(
            await api.batch({
              requestId: requestIdOf(m, ctx.requestId),
              reference: str(m, 'reference'),
              requests: items(m, 'requests').map((item) => v2Request(item)),
            }),
          ),
      },
    },
  ];

  if (deps.dataService !== false) {
    const documents =
      deps.snapshotDocuments ??
      new ClientSnapshotDocuments({ maxBytes: DEFAULT_SNAPSHOT_MAX_BYTES });
    services.push({
      serviceName: SERVICE_NAMES.data,
      handlers: {
        EvaluationSnapshotNamespace: async (m: Msg, ctx: CallContext) => {
          const key = str(m, 'key');
          const version = ctx.metadata.get('x-flipt-accept-server-version')[0];
          const { version: at, data } = await api.clientSnapshot(key);
          const document = documents.get(
            key,
            at,
            data,
            typeof version === 'string' ? version : undefined,
          );
          return presentClientSnapshot(document.object);
        },
      },
    });
  }

  const legacy = {
    Evaluate: async (m: Msg, ctx: CallContext) =>
      presentLegacy(await api.legacyEvaluate(legacyRequest(m, ctx.requestId))),
    BatchEvaluate: async (m: Msg, ctx: CallContext) => {
      const r = await api.legacyBatchEvaluate({
        requestId: requestIdOf(m, ctx.requestId),
        namespaceKey: str(m, 'namespaceKey'),
        requests: items(m, 'requests').map((item) => legacyRequest(item)),
        excludeNotFound: m['excludeNotFound'] === true,
      });
      return {
        requestId: r.requestId,
        responses: r.responses.map(presentLegacy),
        requestDurationMillis: r.requestDurationMillis,
      };
    },
  };

  return { services, legacy };
}
