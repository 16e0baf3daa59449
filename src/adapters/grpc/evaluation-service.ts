import {
  InvalidArgumentError,
  isDomainError,
  NotFoundError,
  ValidationError,
} from '../../domain/errors';
import type {
  BatchEvaluationRequest,
  BatchItemResult,
  BooleanResult,
  EvaluationRequest,
  Timestamp,
  VariantResult,
} from '../../domain/model';
import type { IdGenerator } from '../../ports';
import { SERVICE_NAMES } from './proto-definitions';
import type { CallContext, GrpcServiceModule, UnaryHandler } from './unary';
import {
  toOptionalTimestampMessage,
  toTimestampMessage,
  type TimestampMessage,
} from './wire-types';

/** What the evaluation use case offers the transports (pure results; ids and timing are ours). */
export interface EvaluationApi {
  boolean(req: EvaluationRequest): Promise<BooleanResult>;
  variant(req: EvaluationRequest): Promise<VariantResult>;
  /** Not-found flags come back as error items; any other failure rejects the whole batch. */
  batch(req: BatchEvaluationRequest): Promise<readonly BatchItemResult[]>;
}

/**
 * The client-side snapshot in Flipt's JSON shape (lowerCamelCase, enums by name, timestamps
 * as RFC 3339 text), so HTTP and gRPC serve one document. Timestamps are converted here.
 */
export interface EvaluationSnapshotDocument {
  readonly namespace: { readonly key: string };
  readonly flags: readonly SnapshotFlag[];
}
interface SnapshotSegment {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly matchType: string;
  readonly createdAt?: Timestamp;
  readonly updatedAt?: Timestamp;
  readonly constraints: readonly object[];
}
interface SnapshotFlag {
  readonly createdAt?: Timestamp;
  readonly updatedAt?: Timestamp;
  readonly rules: readonly { readonly segments: readonly SnapshotSegment[] }[];
  readonly rollouts: readonly {
    readonly segment?: { readonly segments: readonly SnapshotSegment[] };
  }[];
}

export interface SnapshotApi {
  /**
   * `acceptServerVersion` is the client's `x-flipt-accept-server-version` metadata (undefined
   * when absent); it gates fields older clients cannot read.
   */
  evaluationSnapshotNamespace(
    req: { readonly key: string; readonly reference: string },
    opts: { readonly acceptServerVersion?: string },
  ): Promise<EvaluationSnapshotDocument>;
}

export interface GrpcEvaluationDeps {
  readonly api: EvaluationApi;
  /** DataService is registered only when given. */
  readonly snapshots?: SnapshotApi;
  /** Wall clock for response timestamps; defaults to the system clock. */
  readonly now?: () => Timestamp;
}

type Msg = Readonly<Record<string, unknown>>;

const str = (m: Msg, f: string): string => (typeof m[f] === 'string' ? (m[f] as string) : '');
const bool = (m: Msg, f: string): boolean => m[f] === true;
const context = (m: Msg): Record<string, string> => {
  const v = m['context'];
  const out: Record<string, string> = {};
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) out[k] = typeof x === 'string' ? x : '';
  }
  return out;
};
const items = (m: Msg, f: string): Msg[] =>
  Array.isArray(m[f])
    ? (m[f] as unknown[]).filter((x): x is Msg => !!x && typeof x === 'object')
    : [];

function v2Request(m: Msg, requestId: string): EvaluationRequest {
  return {
    requestId,
    namespaceKey: str(m, 'namespaceKey'),
    flagKey: str(m, 'flagKey'),
    entityId: str(m, 'entityId'),
    context: context(m),
    reference: str(m, 'reference'),
  };
}

const systemNow = (): Timestamp => {
  const iso = new Date().toISOString();
  return `${iso.slice(0, 23)}000Z`;
};

/** Measures a handler the way Flipt's evaluation interceptor does: start to end, in ms. */
function stopwatch(): () => number {
  const start = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - start) / 1e6;
}

function booleanResponse(
  r: BooleanResult,
  requestId: string,
  durationMs: number,
  ts: TimestampMessage,
) {
  return {
    enabled: r.enabled,
    reason: r.reason,
    requestId,
    requestDurationMillis: durationMs,
    timestamp: ts,
    flagKey: r.flagKey,
    segmentKeys: [...r.segmentKeys],
  };
}

function variantResponse(
  r: VariantResult,
  requestId: string,
  durationMs: number,
  ts: TimestampMessage,
) {
  return {
    match: r.match,
    segmentKeys: [...r.segmentKeys],
    reason: r.reason,
    variantKey: r.variantKey,
    variantAttachment: r.variantAttachment,
    requestId,
    requestDurationMillis: durationMs,
    timestamp: ts,
    flagKey: r.flagKey,
  };
}

function snapshotSegment(s: SnapshotSegment) {
  return {
    ...s,
    createdAt: toOptionalTimestampMessage(s.createdAt),
    updatedAt: toOptionalTimestampMessage(s.updatedAt),
  };
}

function snapshotMessage(doc: EvaluationSnapshotDocument) {
  return {
    namespace: doc.namespace,
    flags: doc.flags.map((f) => ({
      ...f,
      createdAt: toOptionalTimestampMessage(f.createdAt),
      updatedAt: toOptionalTimestampMessage(f.updatedAt),
      rules: f.rules.map((r) => ({ ...r, segments: r.segments.map(snapshotSegment) })),
      rollouts: f.rollouts.map((r) =>
        r.segment
          ? { ...r, segment: { ...r.segment, segments: r.segment.segments.map(snapshotSegment) } }
          : r,
      ),
    })),
  };
}

/**
 * flipt.evaluation.EvaluationService, DataService (when snapshots are configured) and the
 * legacy flipt.Flipt Evaluate / BatchEvaluate, which run the variant evaluator.
 */
export function createEvaluationServices(
  deps: GrpcEvaluationDeps,
  ids: IdGenerator,
): {
  services: GrpcServiceModule[];
  legacy: { Evaluate: UnaryHandler<Msg, unknown>; BatchEvaluate: UnaryHandler<Msg, unknown> };
} {
  const { api } = deps;
  const now = deps.now ?? systemNow;
  // Flipt keeps a client-chosen request id and generates one only when it is empty.
  const requestIdFor = (m: Msg): string => str(m, 'requestId') || ids.uuid();

  const evaluation: GrpcServiceModule = {
    serviceName: SERVICE_NAMES.evaluation,
    handlers: {
      Boolean: async (m: Msg) => {
        const elapsed = stopwatch();
        const requestId = requestIdFor(m);
        const r = await api.boolean(v2Request(m, requestId));
        return booleanResponse(r, requestId, elapsed(), toTimestampMessage(now()));
      },
      Variant: async (m: Msg) => {
        const elapsed = stopwatch();
        const requestId = requestIdFor(m);
        const r = await api.variant(v2Request(m, requestId));
        return variantResponse(r, requestId, elapsed(), toTimestampMessage(now()));
      },
      Batch: async (m: Msg) => {
        const elapsed = stopwatch();
        const requestId = requestIdFor(m);
        const results = await api.batch({
          requestId,
          reference: str(m, 'reference'),
          // Inner requests keep their own ids as sent, possibly "".
          requests: items(m, 'requests').map((r) => v2Request(r, str(r, 'requestId'))),
        });
        const durationMs = elapsed();
        const ts = toTimestampMessage(now());
        const inner = items(m, 'requests');
        return {
          requestId,
          responses: results.map((res, i) => {
            const itemId = str(inner[i] ?? {}, 'requestId');
            switch (res.type) {
              case 'BOOLEAN_EVALUATION_RESPONSE_TYPE':
                return {
                  type: res.type,
                  booleanResponse: booleanResponse(res.boolean, itemId, durationMs, ts),
                };
              case 'VARIANT_EVALUATION_RESPONSE_TYPE':
                return {
                  type: res.type,
                  variantResponse: variantResponse(res.variant, itemId, durationMs, ts),
                };
              case 'ERROR_EVALUATION_RESPONSE_TYPE':
                return { type: res.type, errorResponse: { ...res.error } };
            }
          }),
          requestDurationMillis: durationMs,
        };
      },
    },
  };

  const services: GrpcServiceModule[] = [evaluation];
  const snapshots = deps.snapshots;
  if (snapshots) {
    services.push({
      serviceName: SERVICE_NAMES.data,
      handlers: {
        EvaluationSnapshotNamespace: async (m: Msg, ctx: CallContext) => {
          const version = ctx.metadata.get('x-flipt-accept-server-version')[0];
          const doc = await snapshots.evaluationSnapshotNamespace(
            { key: str(m, 'key'), reference: str(m, 'reference') },
            { acceptServerVersion: typeof version === 'string' ? version : undefined },
          );
          return snapshotMessage(doc);
        },
      },
    });
  }

  const legacyResponse = (
    m: Msg,
    r: VariantResult,
    requestId: string,
    durationMs: number,
    ts: TimestampMessage,
  ) => ({
    requestId,
    entityId: str(m, 'entityId'),
    requestContext: context(m),
    match: r.match,
    flagKey: r.flagKey,
    segmentKey: r.segmentKeys[0] ?? '',
    timestamp: ts,
    value: r.variantKey,
    requestDurationMillis: durationMs,
    attachment: r.variantAttachment,
    reason: r.legacyReason,
    namespaceKey: str(m, 'namespaceKey'),
    segmentKeys: [...r.segmentKeys],
  });

  const validateLegacy = (m: Msg): void => {
    if (str(m, 'flagKey') === '') throw new ValidationError('flagKey', 'must not be empty');
    if (str(m, 'entityId') === '') throw new ValidationError('entityId', 'must not be empty');
  };

  const legacyRequest = (m: Msg, requestId: string, namespaceKey: string): EvaluationRequest => ({
    ...v2Request(m, requestId),
    namespaceKey,
    reference: '',
  });

  const legacy = {
    Evaluate: async (m: Msg) => {
      const elapsed = stopwatch();
      validateLegacy(m);
      const requestId = requestIdFor(m);
      const r = await api.variant(legacyRequest(m, requestId, str(m, 'namespaceKey')));
      return legacyResponse(m, r, requestId, elapsed(), toTimestampMessage(now()));
    },
    BatchEvaluate: async (m: Msg) => {
      const elapsed = stopwatch();
      const requestId = requestIdFor(m);
      const namespaceKey = str(m, 'namespaceKey');
      const inner = items(m, 'requests');
      for (const r of inner) {
        const ns = str(r, 'namespaceKey');
        if (ns !== '' && ns !== namespaceKey) {
          throw new InvalidArgumentError(
            'invalid field namespace_key: must be the same for all requests if specified',
          );
        }
      }
      const responses = [];
      for (const r of inner) {
        try {
          const result = await api.variant(legacyRequest(r, '', namespaceKey));
          responses.push({ r, result });
        } catch (err) {
          if (bool(m, 'excludeNotFound') && isDomainError(err) && err instanceof NotFoundError) {
            continue;
          }
          throw err;
        }
      }
      const ts = toTimestampMessage(now());
      return {
        requestId,
        responses: responses.map(({ r, result }) => legacyResponse(r, result, '', 0, ts)),
        requestDurationMillis: elapsed(),
      };
    },
  };

  return { services, legacy };
}
