import {
  context,
  diag,
  DiagLogLevel,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { createOtlpExporter, type OtlpProtocol } from './otlp-exporters';

export interface TracingOptions {
  readonly enabled: boolean;
  /** How spans travel: OTLP over HTTP (protobuf or JSON) or over gRPC. */
  readonly protocol: OtlpProtocol;
  /**
   * The collector: for OTLP/HTTP a base URL (spans go to `<endpoint>/v1/traces`), for gRPC
   * `http://host:port` (plain), `https://host:port` (TLS) or `host:port`.
   */
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Share of new traces sampled, 0..1; a caller's sampling decision is always followed. */
  readonly samplingRatio: number;
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** How long spans wait in the batch before export (default 5000 ms). */
  readonly exportDelayMillis?: number;
  /** Told what the SDK reports as going wrong (an export that failed, spans dropped). */
  readonly onProblem?: (message: string) => void;
}

export interface Tracing {
  readonly enabled: boolean;
  readonly tracer: Tracer;
  /** Exports every span ended so far. */
  forceFlush(): Promise<void>;
  /** Flushes, stops exporting and unregisters the global tracer, propagator and context manager. */
  shutdown(): Promise<void>;
}

export interface ServerSpan {
  readonly span: Span;
  /** The context to run the request in, so child spans find their parent. */
  readonly context: Context;
}

/** Flipt's span attribute names, so traces from either server read alike. */
export const ATTR_FLIPT_NAMESPACE = 'flipt.namespace';
export const ATTR_FLIPT_FLAG = 'flipt.flag';
export const ATTR_FLIPT_MATCH = 'flipt.match';
export const ATTR_FLIPT_REASON = 'flipt.reason';
export const ATTR_FLIPT_VARIANT = 'flipt.variant';
export const ATTR_FLIPT_FLAG_ENABLED = 'flipt.flag_enabled';

const TRACER_NAME = 'vexil';

/** Set while tracing is started; every helper short-circuits on undefined. */
let activeTracer: Tracer | undefined;

/**
 * Starts the OpenTelemetry SDK when enabled: a parent-based ratio sampler, a batch span
 * processor and the OTLP exporter for `protocol`, registered globally with W3C trace-context
 * propagation and AsyncLocalStorage context. Disabled, nothing is registered: the returned
 * tracer is the API's no-op and every helper in this module returns at its first line.
 */
export function startTracing(options: TracingOptions): Tracing {
  if (!options.enabled) {
    return {
      enabled: false,
      tracer: trace.getTracer(TRACER_NAME),
      forceFlush: () => Promise.resolve(),
      shutdown: () => Promise.resolve(),
    };
  }
  if (activeTracer !== undefined) throw new Error('tracing is already started');

  const ratio = Math.min(1, Math.max(0, options.samplingRatio));
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: options.serviceName,
      [ATTR_SERVICE_VERSION]: options.serviceVersion,
    }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
    spanProcessors: [
      new BatchSpanProcessor(
        createOtlpExporter({
          protocol: options.protocol,
          endpoint: options.endpoint,
          headers: options.headers,
        }),
        { scheduledDelayMillis: options.exportDelayMillis ?? 5000 },
      ),
    ],
  });

  const onProblem = options.onProblem;
  if (onProblem !== undefined) {
    const report = (message: string, ...args: unknown[]): void =>
      onProblem([message, ...args.map(describe)].join(' '));
    diag.setLogger(
      {
        error: report,
        warn: report,
        info: () => undefined,
        debug: () => undefined,
        verbose: () => undefined,
      },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
  }
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const registered =
    context.setGlobalContextManager(contextManager) &&
    propagation.setGlobalPropagator(new W3CTraceContextPropagator()) &&
    trace.setGlobalTracerProvider(provider);
  if (!registered) {
    unregisterGlobals();
    throw new Error('another OpenTelemetry SDK is already registered in this process');
  }
  const tracer = provider.getTracer(TRACER_NAME, options.serviceVersion);
  activeTracer = tracer;

  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    tracer,
    forceFlush: () => provider.forceFlush(),
    shutdown: () =>
      (stopped ??= provider.shutdown().finally(() => {
        if (activeTracer === tracer) activeTracer = undefined;
        unregisterGlobals();
        contextManager.disable();
      })),
  };
}

const describe = (value: unknown): string =>
  value instanceof Error
    ? value.message
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

function unregisterGlobals(): void {
  trace.disable();
  propagation.disable();
  context.disable();
  diag.disable();
}

/** The tracer while tracing is on (for spans recorded after the fact). */
export function activeTracerOrUndefined(): Tracer | undefined {
  return activeTracer;
}

export function tracingActive(): boolean {
  return activeTracer !== undefined;
}

type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

const headerGetter: TextMapGetter<HeaderBag> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : value?.[0];
  },
};

/**
 * The parent context of an HTTP request: the caller's `traceparent` / `tracestate` (node:http
 * lower-cases header names), or the root context. Undefined when tracing is off.
 */
export function extractHttpContext(headers: HeaderBag): Context | undefined {
  if (activeTracer === undefined) return undefined;
  if (headers['traceparent'] === undefined) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
}

/** Anything with grpc-js Metadata's `get`. */
export interface MetadataLike {
  get(key: string): ReadonlyArray<string | Buffer>;
}

const metadataGetter: TextMapGetter<MetadataLike> = {
  keys: () => ['traceparent', 'tracestate'],
  get: (carrier, key) => {
    const value = carrier.get(key)[0];
    return typeof value === 'string' ? value : value?.toString('utf8');
  },
};

/** As extractHttpContext, from `traceparent` / `tracestate` call metadata. */
export function extractGrpcContext(metadata: MetadataLike): Context | undefined {
  if (activeTracer === undefined) return undefined;
  if (metadata.get('traceparent').length === 0) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
}

/**
 * The trace id a caller's `traceparent` names (sampled or not), for the access line of a
 * request that is not traced here; undefined when absent or malformed.
 */
export function callerTraceId(traceparent: unknown): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const m = TRACEPARENT.exec(traceparent);
  if (m === null || m[1] === 'ff' || m[2] === ZERO_TRACE_ID) return undefined;
  return m[2];
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}(?:$|-)/;
const ZERO_TRACE_ID = '0'.repeat(32);

/**
 * Starts a SERVER span under `parentContext` (from extractHttpContext / extractGrpcContext)
 * for a request whose end is signalled later (an HTTP response's `close`); run the handler
 * with `runInContext(server.context, ...)` and end it with `finishHttpServerSpan` /
 * `finishGrpcServerSpan`. Undefined when tracing is off or the sampler did not sample the
 * request: it is then served with no span and no context.
 */
export function startServerSpan(
  name: string,
  attributes: Attributes,
  parentContext: Context | undefined,
): ServerSpan | undefined {
  if (activeTracer === undefined || parentContext === undefined) return undefined;
  const span = activeTracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parentContext);
  if (!span.isRecording()) return undefined;
  return { span, context: trace.setSpan(parentContext, span) };
}

/**
 * Runs `fn` with `ctx` active, for its synchronous run and everything it leaves pending
 * (AsyncLocalStorage); a plain call when tracing is off.
 */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  if (activeTracer === undefined) return fn();
  return context.with(ctx, fn);
}

/**
 * Names an HTTP server span after its route, records the status and ends it. Only 5xx
 * marks the span failed: a 4xx is the client's error, not the server's.
 */
export function finishHttpServerSpan(
  span: Span,
  method: string,
  route: string,
  status: number,
): void {
  if (activeTracer === undefined) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** gRPC codes that mark a server span failed (OpenTelemetry RPC conventions). */
const GRPC_SERVER_ERROR_CODES = new Set([2, 4, 12, 13, 14, 15]);

export function finishGrpcServerSpan(span: Span, code: number, message?: string): void {
  if (activeTracer === undefined) return;
  span.setAttribute('rpc.grpc.status_code', code);
  if (GRPC_SERVER_ERROR_CODES.has(code)) span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

const NOOP_SPAN: Span = trace.wrapSpanContext({
  traceId: '0'.repeat(32),
  spanId: '0'.repeat(16),
  traceFlags: 0,
});

/**
 * Runs `fn` inside a SERVER span whose parent is `parentContext` (undefined, or a request the
 * sampler does not sample: `fn` gets a no-op span), with its context carried across `fn`'s
 * awaits; ends it when `fn` settles.
 */
export function withServerSpan<T>(
  name: string,
  attributes: Attributes,
  parentContext: Context | undefined,
  fn: (span: Span) => T,
): T {
  const server = startServerSpan(name, attributes, parentContext);
  if (server === undefined) return fn(NOOP_SPAN);
  return runSpan(server.span, server.context, fn);
}

/** True while a span that is recorded (a traced request's) is active. */
export function insideRecordedSpan(): boolean {
  const span = trace.getActiveSpan();
  return span !== undefined && span.isRecording();
}

/**
 * Runs `fn` inside an INTERNAL span, child of the active span; ends it when `fn` settles.
 * Outside a recorded span (tracing off, a request that is not traced, work outside any
 * request) `fn` simply runs: no span, no ids, no context switch, and `attributes` (a value
 * or a function producing it) is not even computed.
 */
export function withChildSpan<T>(
  name: string,
  attributes: Attributes | (() => Attributes),
  fn: (span: Span) => T,
): T {
  const tracer = activeTracer;
  if (tracer === undefined) return fn(NOOP_SPAN);
  const parent = context.active();
  const parentSpan = trace.getSpan(parent);
  // fn runs in the parent's context, so log lines keep the parent's trace id (if any).
  if (parentSpan === undefined || !parentSpan.isRecording()) return fn(parentSpan ?? NOOP_SPAN);
  const span = tracer.startSpan(
    name,
    {
      kind: SpanKind.INTERNAL,
      attributes: typeof attributes === 'function' ? attributes() : attributes,
    },
    parent,
  );
  return runSpan(span, trace.setSpan(parent, span), fn);
}

function runSpan<T>(span: Span, ctx: Context, fn: (span: Span) => T): T {
  let result: T;
  try {
    result = context.with(ctx, fn, undefined, span);
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
  if (isPromiseLike(result)) {
    return result.then(
      (value) => {
        endSpan(span);
        return value;
      },
      (err: unknown) => {
        endSpan(span, err);
        throw err;
      },
    ) as T;
  }
  endSpan(span);
  return result;
}

/** Ends a span, recording `error` (when given) as an exception event and an ERROR status. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    const e = error instanceof Error ? error : new Error(String(error));
    span.recordException(e);
    span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
  }
  span.end();
}

export function isPromiseLike<T>(value: T): value is T & PromiseLike<Awaited<T>> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** The trace id of the active span, for log lines; undefined when tracing is off or outside a span. */
export function currentTraceId(): string | undefined {
  if (activeTracer === undefined) return undefined;
  const sc = trace.getSpanContext(context.active());
  return sc !== undefined && isSpanContextValid(sc) ? sc.traceId : undefined;
}

/**
 * The trace id of a span, for lines written after its context is gone (an access log on
 * `finish`); undefined for the no-op span.
 */
export function traceIdOf(span: Span): string | undefined {
  const sc = span.spanContext();
  return isSpanContextValid(sc) ? sc.traceId : undefined;
}

export function currentSpanId(): string | undefined {
  if (activeTracer === undefined) return undefined;
  const sc = trace.getSpanContext(context.active());
  return sc !== undefined && isSpanContextValid(sc) ? sc.spanId : undefined;
}
