import { isDomainError, NotFoundError, ValidationError } from '../../errors';
import type {
  BatchEvaluationRequest,
  BooleanResult,
  BatchEvaluationResponse,
  BatchItemResponse,
  BooleanEvaluationResponse,
  EvaluationRequest,
  Explanation,
  LegacyBatchEvaluationRequest,
  LegacyBatchEvaluationResponse,
  LegacyEvaluationRequest,
  LegacyEvaluationResponse,
  NamespaceData,
  VariantEvaluationResponse,
  VariantResult,
} from '../../model';
import type { Clock, IdGenerator, Logger, Stopwatch } from '../../../ports';
import {
  evaluateBatch,
  evaluateBoolean,
  evaluateVariant,
  explainFlag,
  UnevaluableFlagError,
  type CompiledNamespace,
} from '../../evaluation';
import type { NamespaceSnapshots } from './namespace-snapshots';

export const DEFAULT_NAMESPACE = 'default';
const nsOf = (key: string): string => (key === '' ? DEFAULT_NAMESPACE : key);

export interface EvaluationObserver {
  /** One flag evaluated (for metrics): never called with entity ids. */
  evaluated?(event: {
    namespaceKey: string;
    flagKey: string;
    durationMs: number;
    boolean?: BooleanEvaluationResponse;
    variant?: VariantResult;
    error?: unknown;
  }): void;
}

export type ExplainResponse =
  | { readonly boolean: BooleanEvaluationResponse; readonly explanation: Explanation }
  | { readonly variant: VariantEvaluationResponse; readonly explanation: Explanation };

export interface EvaluationServiceDeps {
  readonly snapshots: NamespaceSnapshots;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly stopwatch: Stopwatch;
  readonly maxBatchSize: number;
  readonly observer?: EvaluationObserver;
  /** Told, once per flag and snapshot version, of stored data that cannot be evaluated. */
  readonly logger?: Logger;
}

export interface ClientSnapshotSource {
  readonly version: number | undefined;
  readonly data: NamespaceData | undefined;
}

/**
 * Evaluation use cases (v2 boolean / variant / batch, v1 evaluate / batch-evaluate) over
 * compiled namespace snapshots. Request ids, timestamps and durations are filled here so
 * every transport answers alike.
 */
export class EvaluationService {
  private readonly reported = new Set<string>();

  constructor(private readonly deps: EvaluationServiceDeps) {}

  async boolean(req: EvaluationRequest): Promise<BooleanEvaluationResponse> {
    const started = this.deps.stopwatch.nowMs();
    // A cached snapshot is used without awaiting anything; only a miss waits for a load.
    const compiled =
      this.peekCompiled(req.namespaceKey, req.flagKey) ??
      (await this.compiledFor(req.namespaceKey, req.flagKey));
    return this.booleanWith(compiled, req, started);
  }

  /**
   * boolean() answered synchronously when the namespace's snapshot is cached and usable
   * right now; undefined otherwise (then boolean() loads it). Same answer, errors and
   * observer calls as boolean(), without a promise on the hot path.
   */
  booleanCached(req: EvaluationRequest): BooleanEvaluationResponse | undefined {
    const started = this.deps.stopwatch.nowMs();
    const compiled = this.peekCompiled(req.namespaceKey, req.flagKey);
    return compiled === undefined ? undefined : this.booleanWith(compiled, req, started);
  }

  private booleanWith(
    compiled: CompiledNamespace,
    req: EvaluationRequest,
    started: number,
  ): BooleanEvaluationResponse {
    let result: BooleanResult;
    try {
      result = evaluateBoolean(compiled, req);
    } catch (error) {
      this.failed(req.namespaceKey, req.flagKey, started, error);
      this.unevaluable(nsOf(req.namespaceKey), req.flagKey, compiled.version, error);
      throw error;
    }
    const response: BooleanEvaluationResponse = {
      enabled: result.enabled,
      reason: result.reason,
      flagKey: result.flagKey,
      segmentKeys: result.segmentKeys,
      requestId: req.requestId === '' ? this.deps.ids.uuid() : req.requestId,
      requestDurationMillis: this.elapsedMs(started),
      timestamp: this.deps.clock.now(),
    };
    const observer = this.deps.observer;
    if (observer?.evaluated !== undefined) {
      observer.evaluated({
        namespaceKey: nsOf(req.namespaceKey),
        flagKey: req.flagKey,
        durationMs: response.requestDurationMillis,
        boolean: response,
      });
    }
    return response;
  }

  async variant(req: EvaluationRequest): Promise<VariantEvaluationResponse> {
    const started = this.deps.stopwatch.nowMs();
    const compiled = await this.compiledFor(req.namespaceKey, req.flagKey);
    const result = this.observe(
      req.namespaceKey,
      req.flagKey,
      started,
      () => evaluateVariant(compiled, req),
      compiled.version,
    );
    const response = { ...result, ...this.envelope(req.requestId, started) };
    this.deps.observer?.evaluated?.({
      namespaceKey: nsOf(req.namespaceKey),
      flagKey: req.flagKey,
      durationMs: response.requestDurationMillis,
      variant: result,
    });
    return response;
  }

  async batch(req: BatchEvaluationRequest): Promise<BatchEvaluationResponse> {
    const started = this.deps.stopwatch.nowMs();
    this.checkBatchSize(req.requests.length);
    const compiled = await this.compiledForAll(req.requests);
    const items = evaluateBatch(
      (ns) => compiled.get(nsOf(ns)),
      req.requests,
      (i, error) => {
        const inner = req.requests[i] as EvaluationRequest;
        const ns = nsOf(inner.namespaceKey);
        this.unevaluable(ns, inner.flagKey, compiled.get(ns)?.version, error);
        this.failed(inner.namespaceKey, inner.flagKey, started, error);
      },
    );
    const requestId = req.requestId === '' ? this.deps.ids.uuid() : req.requestId;
    const timestamp = this.deps.clock.now();
    const requestDurationMillis = this.elapsedMs(started);
    const responses: BatchItemResponse[] = items.map((item, i) => {
      const inner = req.requests[i];
      const innerEnvelope = { requestId: inner?.requestId ?? '', requestDurationMillis, timestamp };
      switch (item.type) {
        case 'BOOLEAN_EVALUATION_RESPONSE_TYPE': {
          const boolean = { ...item.boolean, ...innerEnvelope };
          this.deps.observer?.evaluated?.({
            namespaceKey: nsOf(inner?.namespaceKey ?? ''),
            flagKey: item.boolean.flagKey,
            durationMs: requestDurationMillis,
            boolean,
          });
          return { type: item.type, boolean };
        }
        case 'VARIANT_EVALUATION_RESPONSE_TYPE':
          this.deps.observer?.evaluated?.({
            namespaceKey: nsOf(inner?.namespaceKey ?? ''),
            flagKey: item.variant.flagKey,
            durationMs: requestDurationMillis,
            variant: item.variant,
          });
          return { type: item.type, variant: { ...item.variant, ...innerEnvelope } };
        default:
          return item;
      }
    });
    return { requestId, responses, requestDurationMillis };
  }

  async legacyEvaluate(req: LegacyEvaluationRequest): Promise<LegacyEvaluationResponse> {
    checkLegacyRequest(req);
    const started = this.deps.stopwatch.nowMs();
    const compiled = await this.compiledFor(req.namespaceKey, req.flagKey);
    const result = this.observe(
      req.namespaceKey,
      req.flagKey,
      started,
      () => evaluateVariant(compiled, req),
      compiled.version,
    );
    const { requestId, requestDurationMillis, timestamp } = this.envelope(req.requestId, started);
    this.deps.observer?.evaluated?.({
      namespaceKey: nsOf(req.namespaceKey),
      flagKey: req.flagKey,
      durationMs: requestDurationMillis,
      variant: result,
    });
    return legacyResponse(req, result, { requestId, requestDurationMillis, timestamp });
  }

  async legacyBatchEvaluate(
    req: LegacyBatchEvaluationRequest,
  ): Promise<LegacyBatchEvaluationResponse> {
    const started = this.deps.stopwatch.nowMs();
    this.checkBatchSize(req.requests.length);
    for (const r of req.requests) {
      if (r.namespaceKey !== '' && r.namespaceKey !== req.namespaceKey) {
        throw new ValidationError(
          'namespace_key',
          'must be the same for all requests if specified',
        );
      }
    }
    const namespaceKey = nsOf(req.namespaceKey);
    const flagKeys = req.requests.map((r) => r.flagKey);
    const compiled =
      this.peekCompiled(namespaceKey, flagKeys) ??
      (await this.deps.snapshots.compiledFor(namespaceKey, flagKeys));
    const responses: LegacyEvaluationResponse[] = [];
    for (const inner of req.requests) {
      const r = { ...inner, namespaceKey: req.namespaceKey };
      let result: VariantResult;
      try {
        if (compiled === undefined) throw flagNotFound(namespaceKey, r.flagKey);
        result = evaluateVariant(compiled, r);
      } catch (err) {
        this.deps.observer?.evaluated?.({
          namespaceKey,
          flagKey: r.flagKey,
          durationMs: this.elapsedMs(started),
          error: err,
        });
        if (err instanceof NotFoundError && req.excludeNotFound) continue;
        // One flag whose stored configuration cannot be evaluated does not fail the others.
        if (!unevaluable(err)) throw err;
        this.unevaluable(namespaceKey, r.flagKey, compiled?.version, err);
        result = unevaluableLegacyResult(r.flagKey);
      }
      this.deps.observer?.evaluated?.({
        namespaceKey,
        flagKey: r.flagKey,
        durationMs: this.elapsedMs(started),
        variant: result,
      });
      responses.push(
        legacyResponse(r, result, {
          requestId: '',
          requestDurationMillis: 0,
          timestamp: this.deps.clock.now(),
        }),
      );
    }
    const requestId = req.requestId === '' ? this.deps.ids.uuid() : req.requestId;
    return { requestId, responses, requestDurationMillis: this.elapsedMs(started) };
  }

  /**
   * The answer of boolean() or variant() (whichever the flag's type calls for), with the
   * path the evaluator took to it. For people checking a flag: not counted in the
   * evaluation metrics.
   */
  async explain(req: EvaluationRequest): Promise<ExplainResponse> {
    const started = this.deps.stopwatch.nowMs();
    const compiled = await this.compiledFor(req.namespaceKey, req.flagKey);
    const explained = explainFlag(compiled, req);
    const envelope = this.envelope(req.requestId, started);
    return 'boolean' in explained
      ? { boolean: { ...explained.boolean, ...envelope }, explanation: explained.explanation }
      : { variant: { ...explained.variant, ...envelope }, explanation: explained.explanation };
  }

  /** The namespace as the client-side snapshot route serves it. */
  async clientSnapshot(namespaceKey: string): Promise<ClientSnapshotSource> {
    const snapshot = await this.deps.snapshots.get(nsOf(namespaceKey));
    return { version: snapshot?.version, data: snapshot?.data };
  }

  /**
   * Milliseconds since `started`, to the microsecond: finer digits say nothing about a
   * request's duration, and a short decimal is cheaper to write on every answer.
   */
  private elapsedMs(started: number): number {
    return Math.round((this.deps.stopwatch.nowMs() - started) * 1000) / 1000;
  }

  private checkBatchSize(size: number): void {
    if (size > this.deps.maxBatchSize) {
      throw new ValidationError('requests', `must contain at most ${this.deps.maxBatchSize} items`);
    }
  }

  private envelope(requestId: string, started: number) {
    return {
      requestId: requestId === '' ? this.deps.ids.uuid() : requestId,
      requestDurationMillis: this.elapsedMs(started),
      timestamp: this.deps.clock.now(),
    };
  }

  private observe<T>(
    namespaceKey: string,
    flagKey: string,
    started: number,
    fn: () => T,
    version?: number,
  ): T {
    try {
      return fn();
    } catch (error) {
      this.failed(namespaceKey, flagKey, started, error);
      this.unevaluable(nsOf(namespaceKey), flagKey, version, error);
      throw error;
    }
  }

  /**
   * Stored data that cannot be evaluated (a rank below the previous one, an unknown
   * constraint or flag type) is logged once per flag and snapshot version, so the log says
   * which flag to fix without a line per request.
   */
  private unevaluable(
    namespaceKey: string,
    flagKey: string,
    version: number | undefined,
    error: unknown,
  ): void {
    const logger = this.deps.logger;
    if (logger === undefined || !unevaluable(error)) return;
    const mark = `${namespaceKey}\u0000${flagKey}\u0000${version ?? ''}`;
    if (this.reported.has(mark)) return;
    if (this.reported.size >= 1000) this.reported.clear();
    this.reported.add(mark);
    const message = error instanceof Error ? error.message : String(error);
    if (isDomainError(error)) {
      logger.warn('flag configuration cannot be evaluated', {
        namespaceKey,
        flagKey,
        error: message,
      });
    } else {
      logger.error('unexpected error while evaluating a flag', {
        namespaceKey,
        flagKey,
        error: message,
        stack: error instanceof Error ? error.stack : undefined,
      });
    }
  }

  private failed(namespaceKey: string, flagKey: string, started: number, error: unknown): void {
    this.deps.observer?.evaluated?.({
      namespaceKey: nsOf(namespaceKey),
      flagKey,
      durationMs: this.elapsedMs(started),
      error,
    });
  }

  private peekCompiled(
    namespaceKey: string,
    flagKeys: string | readonly string[],
  ): CompiledNamespace | undefined {
    return this.deps.snapshots.peek(nsOf(namespaceKey), flagKeys)?.compiled;
  }

  private async compiledFor(namespaceKey: string, flagKey: string): Promise<CompiledNamespace> {
    const ns = nsOf(namespaceKey);
    const compiled =
      this.peekCompiled(ns, flagKey) ?? (await this.deps.snapshots.compiledFor(ns, [flagKey]));
    if (compiled === undefined) throw flagNotFound(ns, flagKey);
    return compiled;
  }

  /** Per namespace of the batch, what evaluates its flags (all read at once while warming up). */
  private async compiledForAll(
    requests: readonly EvaluationRequest[],
  ): Promise<Map<string, CompiledNamespace>> {
    const flagsOf = new Map<string, string[]>();
    for (const r of requests) {
      const ns = nsOf(r.namespaceKey);
      const keys = flagsOf.get(ns);
      if (keys === undefined) flagsOf.set(ns, [r.flagKey]);
      else keys.push(r.flagKey);
    }
    const out = new Map<string, CompiledNamespace>();
    for (const [ns, flagKeys] of flagsOf) {
      const compiled =
        this.peekCompiled(ns, flagKeys) ?? (await this.deps.snapshots.compiledFor(ns, flagKeys));
      if (compiled !== undefined) out.set(ns, compiled);
    }
    return out;
  }
}

const flagNotFound = (ns: string, flagKey: string) =>
  new NotFoundError(`flag "${ns}/${flagKey}" not found`);

function checkLegacyRequest(req: LegacyEvaluationRequest): void {
  if (req.flagKey === '') throw new ValidationError('flagKey', 'must not be empty');
  if (req.entityId === '') throw new ValidationError('entityId', 'must not be empty');
}

/** Stored data the evaluator cannot follow, or a fault of the evaluator itself. */
const unevaluable = (err: unknown): boolean =>
  err instanceof UnevaluableFlagError || !isDomainError(err);

/** Legacy answer for a flag whose stored configuration cannot be evaluated. */
const unevaluableLegacyResult = (flagKey: string): VariantResult => ({
  match: false,
  reason: 'UNKNOWN_EVALUATION_REASON',
  legacyReason: 'ERROR_EVALUATION_REASON',
  flagKey,
  segmentKeys: [],
  variantKey: '',
  variantAttachment: '',
});

function legacyResponse(
  req: LegacyEvaluationRequest,
  result: VariantResult,
  envelope: { requestId: string; requestDurationMillis: number; timestamp: string },
): LegacyEvaluationResponse {
  return {
    requestId: envelope.requestId,
    entityId: req.entityId,
    requestContext: req.context,
    match: result.match,
    flagKey: result.flagKey,
    segmentKey: result.segmentKeys[0] ?? '',
    timestamp: envelope.timestamp,
    value: result.variantKey,
    requestDurationMillis: envelope.requestDurationMillis,
    attachment: result.variantAttachment,
    reason: result.legacyReason,
    namespaceKey: req.namespaceKey,
    segmentKeys: result.segmentKeys,
  };
}
