import { randomBytes } from 'node:crypto';
import {
  context as contextApi,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type AttributeValue,
  type Attributes,
  type Context,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';

/**
 * Vexil's tracer: the @opentelemetry/api Tracer and Span, recorded in plain objects that the
 * SDK's span processors and Vexil's exporter read as `ReadableSpan`s (see ADR 0006).
 *
 * A traced request is rare (one in a hundred at a typical sampling ratio), so its code runs
 * cold, from caches the untraced requests have filled; the SDK's span does much more per span
 * (time anchoring, limit checks and attribute sanitizing per call, several objects per span)
 * and measured about 100 µs of CPU per traced request at a ratio of 0.01. This one keeps a
 * span to one object, its times to two numbers, and its ids to one random read.
 *
 * Sampling is the SDK's ParentBased sampler over an edge decision: a span with a valid parent
 * (remote or local) is sampled when the parent is; a root SERVER span is sampled (whether a
 * request is traced is decided before its server span is started); any other root span is
 * sampled by its trace id against the ratio, as TraceIdRatioBased does.
 */

/** Per-span caps, the SDK's defaults. */
const MAX_ATTRIBUTES = 128;
const MAX_EVENTS = 128;
const MAX_LINKS = 128;

export interface LeanTracerProviderOptions {
  readonly resource: Resource;
  /** Share of root spans outside requests that are sampled, 0..1. */
  readonly samplingRatio: number;
  /** Told when a recorded span starts and ends (e.g. a BatchSpanProcessor). */
  readonly processor: SpanProcessor;
}

export class LeanTracerProvider implements TracerProvider {
  private readonly tracers = new Map<string, LeanTracer>();

  constructor(private readonly options: LeanTracerProviderOptions) {}

  getTracer(name: string, version?: string): Tracer {
    const key = `${name}\u0000${version ?? ''}`;
    let tracer = this.tracers.get(key);
    if (tracer === undefined) {
      tracer = new LeanTracer(this.options, { name, version });
      this.tracers.set(key, tracer);
    }
    return tracer;
  }

  forceFlush(): Promise<void> {
    return this.options.processor.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.options.processor.shutdown();
  }
}

interface Scope {
  readonly name: string;
  readonly version?: string;
}

class LeanTracer implements Tracer {
  private readonly ratioBound: number;

  constructor(
    private readonly options: LeanTracerProviderOptions,
    private readonly scope: Scope,
  ) {
    this.ratioBound = Math.min(1, Math.max(0, options.samplingRatio)) * 0x100000000;
  }

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = contextApi.active()): Span {
    const validParent = options.root === true ? undefined : validParentOf(ctx);
    const kind = options.kind ?? SpanKind.INTERNAL;
    const traceId = validParent?.traceId ?? randomId(16);
    const spanId = randomId(8);
    const sampled =
      validParent !== undefined
        ? (validParent.traceFlags & TraceFlags.SAMPLED) !== 0
        : kind === SpanKind.SERVER || this.ratioSampled(traceId);
    const spanContext: SpanContext = {
      traceId,
      spanId,
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    };
    if (validParent?.traceState !== undefined) spanContext.traceState = validParent.traceState;
    if (!sampled) return trace.wrapSpanContext(spanContext);
    const span = new LeanSpan(
      this.options,
      this.scope,
      name,
      kind,
      spanContext,
      validParent,
      options.startTime === undefined ? nowMillis() : toMillis(options.startTime),
    );
    if (options.attributes !== undefined) span.setAttributes(options.attributes);
    if (options.links !== undefined) span.addLinks(options.links);
    this.options.processor.onStart(span as unknown as Parameters<SpanProcessor['onStart']>[0], ctx);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    ctx: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan(name: string, ...rest: unknown[]): unknown {
    const fn = rest[rest.length - 1] as (span: Span) => unknown;
    const options = (rest.length >= 2 ? rest[0] : undefined) as SpanOptions | undefined;
    const parent = (rest.length >= 3 ? rest[1] : undefined) as Context | undefined;
    const ctx = parent ?? contextApi.active();
    const span = this.startSpan(name, options, ctx);
    return contextApi.with(contextWithSpan(ctx, span), fn, undefined, span);
  }

  /** TraceIdRatioBased: the trace id's last 32 bits against the ratio. */
  private ratioSampled(traceId: string): boolean {
    return parseInt(traceId.slice(24), 16) < this.ratioBound;
  }
}

/** The span context of the span in `ctx`, when valid (one of this tracer's always is). */
function validParentOf(ctx: Context): SpanContext | undefined {
  const span = trace.getSpan(ctx);
  if (span === undefined) return undefined;
  const parent = span.spanContext();
  return span instanceof LeanSpan || isSpanContextValid(parent) ? parent : undefined;
}

/** The API's key for the active span (its `createContextKey` is `Symbol.for`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
const DELETED = Symbol('deleted');

/**
 * A context holding one value over its parent's: what `trace.setSpan` makes, in one small
 * object instead of a copy of the parent's map and three closures.
 */
class ValueContext implements Context {
  constructor(
    private readonly parent: Context,
    private readonly key: symbol,
    private readonly value: unknown,
  ) {}

  getValue(key: symbol): unknown {
    if (key !== this.key) return this.parent.getValue(key);
    return this.value === DELETED ? undefined : this.value;
  }

  setValue(key: symbol, value: unknown): Context {
    return new ValueContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new ValueContext(this, key, DELETED);
  }
}

/** `parent` with `span` as its active span (as `trace.setSpan`). */
export function contextWithSpan(parent: Context, span: Span): Context {
  return new ValueContext(parent, SPAN_KEY, span);
}

class LeanSpan implements Span {
  attributes: Attributes = {};
  links: Link[] = [];
  events: TimedEvent[] = [];
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  ended = false;
  private attributeCount = 0;
  private endMillis = 0;

  constructor(
    private readonly options: LeanTracerProviderOptions,
    readonly instrumentationScope: Scope,
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    private readonly startMillis: number,
  ) {}

  get resource(): Resource {
    return this.options.resource;
  }

  get startTime(): HrTime {
    return hrTime(this.startMillis);
  }

  get endTime(): HrTime {
    return hrTime(this.endMillis);
  }

  get duration(): HrTime {
    return hrTime(this.endMillis - this.startMillis);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.ended || key.length === 0 || !isAttributeValue(value)) return this;
    if (!(key in this.attributes)) {
      if (this.attributeCount >= MAX_ATTRIBUTES) {
        this.droppedAttributesCount++;
        return this;
      }
      this.attributeCount++;
    }
    this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key of Object.keys(attributes)) {
      this.setAttribute(key, attributes[key] as AttributeValue);
    }
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    if (this.events.length >= MAX_EVENTS) {
      this.droppedEventsCount++;
      return this;
    }
    let attributes: Attributes | undefined;
    if (isTimeInput(attributesOrTime)) time = attributesOrTime;
    else attributes = attributesOrTime;
    this.events.push({
      name,
      attributes: sanitized(attributes),
      time: hrTime(time === undefined ? nowMillis() : toMillis(time)),
      droppedAttributesCount: 0,
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.links.length >= MAX_LINKS) {
      this.droppedLinksCount++;
      return this;
    }
    this.links.push({ ...link, attributes: sanitized(link.attributes) });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET) return this;
    // OK is final, as the specification asks; an ERROR's message is kept only for ERROR.
    if (this.status.code === SpanStatusCode.OK) return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.endMillis = Math.max(
      this.startMillis,
      endTime === undefined ? nowMillis() : toMillis(endTime),
    );
    this.ended = true;
    this.options.processor.onEnd(this as unknown as ReadableSpan);
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') {
      attributes['exception.message'] = exception;
    } else {
      const type =
        exception.name ?? (exception.code === undefined ? undefined : String(exception.code));
      if (type !== undefined) attributes['exception.type'] = type;
      if (exception.message !== undefined) attributes['exception.message'] = exception.message;
      if (exception.stack !== undefined) attributes['exception.stacktrace'] = exception.stack;
    }
    this.addEvent('exception', attributes, time);
  }
}

/** Wall-clock milliseconds since the epoch, to the precision of performance.now(). */
const nowMillis = (): number => performance.timeOrigin + performance.now();

/**
 * A TimeInput as epoch milliseconds: an HrTime; a Date; or a number, read as performance.now()
 * time when below the time origin (as the SDK reads it) and as epoch milliseconds otherwise.
 */
function toMillis(time: TimeInput): number {
  if (Array.isArray(time)) return time[0] * 1000 + time[1] / 1e6;
  if (time instanceof Date) return time.getTime();
  return time < performance.timeOrigin ? performance.timeOrigin + time : time;
}

function hrTime(millis: number): HrTime {
  const seconds = Math.floor(millis / 1000);
  const nanos = Math.min(999_999_999, Math.round((millis - seconds * 1000) * 1e6));
  return [seconds, nanos];
}

function isTimeInput(value: unknown): value is TimeInput {
  return typeof value === 'number' || value instanceof Date || isHrTime(value);
}

function isHrTime(value: unknown): value is HrTime {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'number' &&
    typeof value[1] === 'number'
  );
}

/** A valid attribute value: a primitive, or an array of one primitive type (nulls allowed). */
function isAttributeValue(value: unknown): value is AttributeValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
      return true;
    default: {
      if (!Array.isArray(value)) return false;
      let type: string | undefined;
      for (const element of value as unknown[]) {
        if (element === null || element === undefined) continue;
        const t = typeof element;
        if (t !== 'string' && t !== 'boolean' && t !== 'number') return false;
        if (type === undefined) type = t;
        else if (t !== type) return false;
      }
      return true;
    }
  }
}

function sanitized(attributes: Attributes | undefined): Attributes {
  const out: Attributes = {};
  if (attributes === undefined) return out;
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (key.length > 0 && isAttributeValue(value)) out[key] = value;
  }
  return out;
}

/**
 * Random ids are cut from one string of random hex digits, refilled when used up: one random
 * read and one hex conversion serve a few hundred ids.
 */
const POOL_BYTES = 4096;
let hexPool = '';
let hexOffset = 0;
const ZERO_SPAN_ID = '0'.repeat(16);
const ZERO_TRACE_ID = '0'.repeat(32);

/** `bytes` random bytes as lower-case hex, never all zeros (an invalid id). */
export function randomId(bytes: 8 | 16): string {
  const digits = bytes * 2;
  for (;;) {
    if (hexOffset + digits > hexPool.length) {
      hexPool = randomBytes(POOL_BYTES).toString('hex');
      hexOffset = 0;
    }
    const id = hexPool.slice(hexOffset, hexOffset + digits);
    hexOffset += digits;
    if (id !== ZERO_SPAN_ID && id !== ZERO_TRACE_ID) return id;
  }
}
