import {
  context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  TraceFlags,
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
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { HybridContextManager } from './async-context-manager';
import { contextWithSpan, LeanTracerProvider } from './lean-tracer';
import { OtlpJsonExporter } from './otlp-exporter';
import { EncodingSpanBatcher } from './span-batcher';

export interface TracingOptions {
  readonly enabled: boolean;
  /** OTLP/HTTP base URL, e.g. http://collector:4318; spans go to `<endpoint>/v1/traces`. */
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Share of new traces sampled, 0..1; a sampled parent is always followed. */
  readonly samplingRatio: number;
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** How long spans wait in the batch before export (default 5000 ms). */
  readonly exportDelayMillis?: number;
  /** Told when spans could not be exported (throttled: see OtlpJsonExporterOptions). */
  readonly onExportFailure?: (error: Error, failedExports: number) => void;
  /** Told when ended spans were dropped because too many waited for export (throttled). */
  readonly onSpansDropped?: (count: number) => void;
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
let activeContextManager: HybridContextManager | undefined;
/** tracing.sampling_ratio of the started tracer. */
let samplingRatio = 1;

const NOOP_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Starts OTLP trace export when enabled. Disabled, nothing is registered: the returned
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

  const exporter = new OtlpJsonExporter({
    url: tracesUrl(options.endpoint),
    headers: options.headers,
    userAgent: `${options.serviceName}/${options.serviceVersion}`,
    ...(options.onExportFailure === undefined ? {} : { onFailure: options.onExportFailure }),
  });
  exporter.start();
  const ratio = Math.min(1, Math.max(0, options.samplingRatio));
  // Whether a request is traced is decided where it arrives (see extractHttpContext), before
  // any span exists, so the tracer samples every root SERVER span it is asked to start; other
  // root spans (work outside any request) follow the ratio.
  const provider = new LeanTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: options.serviceName,
      [ATTR_SERVICE_VERSION]: options.serviceVersion,
    }),
    samplingRatio: ratio,
    processor: new EncodingSpanBatcher(exporter, {
      delayMillis: options.exportDelayMillis ?? 5000,
      ...(options.onSpansDropped === undefined ? {} : { onDropped: options.onSpansDropped }),
    }),
  });

  const contextManager = new HybridContextManager();
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
  activeContextManager = contextManager;
  samplingRatio = ratio;

  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    tracer,
    forceFlush: () => provider.forceFlush(),
    shutdown: () =>
      (stopped ??= provider.shutdown().finally(() => {
        if (activeTracer === tracer) {
          activeTracer = undefined;
          activeContextManager = undefined;
        }
        unregisterGlobals();
        contextManager.disable();
      })),
  };
}

function unregisterGlobals(): void {
  trace.disable();
  propagation.disable();
  context.disable();
}

/** `<endpoint>/v1/traces`, unless the endpoint already names that path. */
export function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
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
 * Whether a request arriving now is traced, decided before any span exists: a caller's valid
 * `traceparent` decides by its sampled flag (the trace is the caller's), otherwise the
 * sampling ratio does. Returns the context to start the server span in (holding the remote
 * parent, if any), or undefined when the request is not traced: it then costs no span, no
 * ids and no context switch.
 */
function edgeDecision(extracted: Context | undefined): Context | undefined {
  if (extracted !== undefined) {
    const parent = trace.getSpanContext(extracted);
    if (parent !== undefined && isSpanContextValid(parent)) {
      return (parent.traceFlags & TraceFlags.SAMPLED) !== 0 ? extracted : undefined;
    }
  }
  return samplingRatio >= 1 || Math.random() < samplingRatio ? ROOT_CONTEXT : undefined;
}

/**
 * The context to trace an HTTP request in (its `traceparent` / `tracestate` remote parent;
 * node:http lower-cases header names), or undefined when it is not traced (see edgeDecision).
 */
export function extractHttpContext(headers: HeaderBag): Context | undefined {
  if (activeTracer === undefined) return undefined;
  return edgeDecision(
    headers['traceparent'] === undefined
      ? undefined
      : propagation.extract(ROOT_CONTEXT, headers, headerGetter),
  );
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

/** As extractHttpContext, from `traceparent` / `tracestate` call metadata. */
export function extractGrpcContext(metadata: MetadataLike): Context | undefined {
  if (activeTracer === undefined) return undefined;
  return edgeDecision(
    metadata.get('traceparent').length === 0
      ? undefined
      : propagation.extract(ROOT_CONTEXT, metadata, metadataGetter),
  );
}

/**
 * Starts a SERVER span under `parentContext` (from extractHttpContext / extractGrpcContext)
 * for a request whose end is signalled later (an HTTP response's `close`); run the handler
 * with `runInContext(server.context, ...)` and end it with `finishHttpServerSpan` /
 * `finishGrpcServerSpan`. Undefined when tracing is off or the request is not traced.
 */
export function startServerSpan(
  name: string,
  attributes: Attributes,
  parentContext: Context | undefined,
): ServerSpan | undefined {
  if (activeTracer === undefined || parentContext === undefined) return undefined;
  const span = activeTracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parentContext);
  return { span, context: contextWithSpan(parentContext, span) };
}

/**
 * Runs `fn` with `ctx` active for its synchronous run (a no-op wrapper when tracing is off).
 * Work it leaves pending keeps the context only inside runInAsyncContext.
 */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  const manager = activeContextManager;
  if (manager === undefined) return fn();
  return manager.with(ctx, fn);
}

/** Runs `fn` with `ctx` active across all its awaits, until its promise settles. */
export function runInAsyncContext<T>(ctx: Context, fn: () => Promise<T>): Promise<T> {
  const manager = activeContextManager;
  if (activeTracer === undefined || manager === undefined) return fn();
  return manager.runAsync(ctx, fn);
}

/**
 * As runInAsyncContext for work whose end is signalled rather than awaited: call the
 * returned function once it is over (an HTTP response's 'close').
 */
export function enterAsyncContext(ctx: Context, fn: () => void): () => void {
  const manager = activeContextManager;
  if (activeTracer === undefined || manager === undefined) {
    fn();
    return () => undefined;
  }
  return manager.enterAsync(ctx, fn).release;
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

/**
 * Runs `fn` inside a SERVER span whose parent is `parentContext` (undefined: the request is
 * not traced, `fn` gets the no-op span), with its context carried across `fn`'s awaits;
 * ends it when `fn` settles.
 */
export function withServerSpan<T>(
  name: string,
  attributes: Attributes,
  parentContext: Context | undefined,
  fn: (span: Span) => T,
): T {
  const manager = activeContextManager;
  if (activeTracer === undefined || manager === undefined || parentContext === undefined) {
    return fn(NOOP_SPAN);
  }
  const span = activeTracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parentContext);
  const done = (error?: unknown): void => endSpan(span, error);
  let entered: { result: T; release: () => void };
  try {
    entered = manager.enterAsync(contextWithSpan(parentContext, span), () => fn(span));
  } catch (err) {
    done(err);
    throw err;
  }
  const { result, release } = entered;
  if (isPromiseLike(result)) {
    return result.then(
      (value) => {
        release();
        done();
        return value;
      },
      (err: unknown) => {
        release();
        done(err);
        throw err;
      },
    ) as T;
  }
  release();
  done();
  return result;
}

/** True while a span that is recorded (a traced request's) is active. */
function insideRecordedSpan(): boolean {
  const manager = activeContextManager;
  if (manager === undefined) return false;
  // Outside any traced work the active context is the root one (the common case).
  const active = manager.active();
  if (active === ROOT_CONTEXT) return false;
  const span = trace.getSpan(active);
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
  const manager = activeContextManager;
  if (tracer === undefined || manager === undefined) return fn(NOOP_SPAN);
  const parent = manager.active();
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
  return runSpan(manager, span, contextWithSpan(parent, span), fn);
}

function runSpan<T>(
  manager: HybridContextManager,
  span: Span,
  ctx: Context,
  fn: (span: Span) => T,
): T {
  let result: T;
  try {
    result = manager.with(ctx, fn, undefined, span);
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

function isPromiseLike<T>(value: T): value is T & PromiseLike<Awaited<T>> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** The trace id of the active span, for log lines; undefined when tracing is off or outside a span. */
export function currentTraceId(): string | undefined {
  const manager = activeContextManager;
  if (manager === undefined) return undefined;
  const sc = trace.getSpanContext(manager.active());
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
  const manager = activeContextManager;
  if (manager === undefined) return undefined;
  const sc = trace.getSpanContext(manager.active());
  return sc !== undefined && isSpanContextValid(sc) ? sc.spanId : undefined;
}

export interface TraceMethodsOptions {
  /** Added to every span (e.g. `{ 'db.system': 'postgresql' }`). */
  readonly attributes?: Attributes;
  /** Attributes from the result (resolved, when it is a promise), e.g. the evaluation outcome. */
  readonly resultAttributes?: (result: unknown) => Attributes;
  /**
   * Synchronous methods that may decline, returning undefined without doing anything (a
   * fast path the caller tries first), by the span name (after the prefix) to record when
   * they do answer, e.g. `{ booleanCached: 'boolean' }`. A call that declines leaves no span.
   */
  readonly fastPaths?: Readonly<Record<string, string>>;
}

/**
 * Wraps every method of `target` (a repository, the evaluation service) so each call made
 * inside a traced request runs in a child span named `<prefix>.<method>`, with the namespace
 * and flag keys of its arguments (see keyAttributesFor); other calls go straight to the
 * method. Returns `target` itself when tracing is off, so the disabled path costs nothing per
 * call. Call it after `startTracing`.
 *
 * The wrapper is an object whose prototype is `target`, holding one wrapped function per
 * method: reading a method is a plain property read (no proxy trap on every call), and
 * anything else reads through to `target`. Methods run with `target` as `this`.
 */
export function traceMethods<T extends object>(
  target: T,
  prefix: string,
  options: TraceMethodsOptions = {},
): T {
  if (activeTracer === undefined) return target;
  const { attributes: fixed, resultAttributes } = options;
  const wrapper = Object.create(target) as Record<string, unknown>;
  for (const property of methodNames(target)) {
    const method = (target as Record<string, unknown>)[property] as (...args: unknown[]) => unknown;
    const fastPath = options.fastPaths?.[property];
    const name = `${prefix}.${fastPath ?? property}`;
    const keysOf = keyAttributesFor(property);
    const attributesOf = (args: unknown[]): Attributes =>
      fixed === undefined ? keysOf(args) : { ...fixed, ...keysOf(args) };
    /** The call made inside a recorded span: in a child span, or a fast path's record. */
    const traced = (...args: unknown[]): unknown => {
      if (fastPath !== undefined) {
        return recordAnswered(name, attributesOf(args), resultAttributes, () =>
          method.apply(target, args),
        );
      }
      return withChildSpan(
        name,
        () => attributesOf(args),
        (span) => {
          const result = method.apply(target, args);
          if (resultAttributes === undefined) return result;
          if (!isPromiseLike(result)) {
            span.setAttributes(resultAttributes(result));
            return result;
          }
          return Promise.resolve(result).then((resolved) => {
            span.setAttributes(resultAttributes(resolved));
            return resolved;
          });
        },
      );
    };
    // Most calls are made outside a recorded span and go straight to the method. The traced
    // call is a function of its own, and the arguments are only ever passed on, once: V8 then
    // forwards them without building an array, and allocates nothing in this function for
    // the traced call's closures, however often it has seen traced calls.
    wrapper[property] = (...args: unknown[]): unknown =>
      (insideRecordedSpan() ? traced : method).apply(target, args);
  }
  return wrapper as T;
}

/**
 * Runs a synchronous fast path, and records its span (child of the active one, from when it
 * started) only if it answered or failed.
 */
function recordAnswered(
  name: string,
  attributes: Attributes,
  resultAttributes: ((result: unknown) => Attributes) | undefined,
  run: () => unknown,
): unknown {
  const startTime = performance.timeOrigin + performance.now();
  let result: unknown;
  let failure: { error: unknown } | undefined;
  try {
    result = run();
  } catch (error) {
    failure = { error };
  }
  const tracer = activeTracer;
  const manager = activeContextManager;
  if (
    (result !== undefined || failure !== undefined) &&
    tracer !== undefined &&
    manager !== undefined
  ) {
    const span = tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, attributes, startTime },
      manager.active(),
    );
    if (failure === undefined && resultAttributes !== undefined) {
      span.setAttributes(resultAttributes(result));
    }
    endSpan(span, failure?.error);
  }
  if (failure !== undefined) throw failure.error;
  return result;
}

/** Names of the functions `target` has, itself or along its prototype chain (not Object's). */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (
    let o: object | null = target;
    o !== null && o !== Object.prototype;
    o = Object.getPrototypeOf(o) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name === 'constructor' || names.has(name)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(o, name);
      if (descriptor !== undefined && typeof descriptor.value === 'function') names.add(name);
    }
  }
  return [...names];
}

/**
 * Namespace and flag keys from the arguments of a repository or service method:
 * `(namespaceKey, key)` string arguments, or a request object with `namespaceKey` and
 * `flagKey` (or `key`). Entity ids and contexts are deliberately not recorded. Made once per
 * method: in `getFlag(ns, key)` or `createFlag({ key })` the key is a flag key; elsewhere it
 * is a segment, rule or rollout key.
 */
export function keyAttributesFor(method: string): (args: readonly unknown[]) => Attributes {
  const keyAttribute = FLAG_METHOD.test(method) ? ATTR_FLIPT_FLAG : 'vexil.key';
  return (args) => {
    const [first, second] = args;
    if (typeof first === 'string') {
      return typeof second === 'string'
        ? { [ATTR_FLIPT_NAMESPACE]: first, [keyAttribute]: second }
        : { [ATTR_FLIPT_NAMESPACE]: first };
    }
    if (typeof first !== 'object' || first === null) return {};
    const req = first as { namespaceKey?: unknown; flagKey?: unknown; key?: unknown };
    const out: Attributes = {};
    if (typeof req.namespaceKey === 'string') {
      out[ATTR_FLIPT_NAMESPACE] = req.namespaceKey === '' ? 'default' : req.namespaceKey;
    }
    if (typeof req.flagKey === 'string') out[ATTR_FLIPT_FLAG] = req.flagKey;
    else if (typeof req.key === 'string') out[keyAttribute] = req.key;
    return out;
  };
}

const FLAG_METHOD = /Flags?$/;

/** The outcome of a boolean or variant evaluation, under Flipt's attribute names. */
export function evaluationResultAttributes(result: unknown): Attributes {
  if (typeof result !== 'object' || result === null) return {};
  const r = result as {
    enabled?: unknown;
    match?: unknown;
    reason?: unknown;
    variantKey?: unknown;
  };
  const out: Attributes = {};
  if (typeof r.enabled === 'boolean') out[ATTR_FLIPT_FLAG_ENABLED] = r.enabled;
  if (typeof r.match === 'boolean') out[ATTR_FLIPT_MATCH] = r.match;
  if (typeof r.reason === 'string') out[ATTR_FLIPT_REASON] = r.reason;
  if (typeof r.variantKey === 'string') out[ATTR_FLIPT_VARIANT] = r.variantKey;
  return out;
}
