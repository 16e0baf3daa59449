import type { AttributeValue, Attributes, HrTime, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * The ExportTraceServiceRequest for `spans` in OTLP's JSON encoding: ids as lower-case hex,
 * enums as numbers, 64-bit integers as decimal strings. Spans are grouped by resource and
 * instrumentation scope.
 */
export function encodeOtlpJson(spans: readonly ReadableSpan[]): string {
  return encodeOtlpBody(spans).toString('utf8');
}

/** encodeOtlpJson as the UTF-8 bytes that are posted. */
export function encodeOtlpBody(spans: readonly ReadableSpan[]): Buffer {
  const groups = new EncodedSpans();
  for (const span of spans) groups.add(span);
  return groups.toBody();
}

/**
 * Spans encoded one by one as they are added, grouped by resource and instrumentation scope,
 * and written out as one ExportTraceServiceRequest. Each span's JSON text is copied into
 * buffers outside V8's heap as soon as it is written, so the text dies young: spans waiting
 * for their batch are nothing the garbage collector copies, promotes or marks, and the batch
 * is bytes ready to be posted.
 */
export class EncodedSpans {
  private readonly byResource = new Map<ReadableSpan['resource'], Map<string, ScopeSpans>>();
  private count = 0;

  /** How many spans were added. */
  get size(): number {
    return this.count;
  }

  add(span: ReadableSpan): void {
    let scopes = this.byResource.get(span.resource);
    if (scopes === undefined) this.byResource.set(span.resource, (scopes = new Map()));
    const scope = span.instrumentationScope;
    const key = `${scope.name}\u0000${scope.version ?? ''}\u0000${scope.schemaUrl ?? ''}`;
    let group = scopes.get(key);
    if (group === undefined) scopes.set(key, (group = { scope, spans: new TextChunks() }));
    group.spans.append(spanJson(span));
    this.count++;
  }

  /** The request's JSON, as UTF-8. */
  toBody(): Buffer {
    const parts: Buffer[] = [];
    const text = (t: string): void => void parts.push(Buffer.from(t, 'utf8'));
    text('{"resourceSpans":[');
    let firstResource = true;
    for (const [resource, scopes] of this.byResource) {
      text(
        `${firstResource ? '' : ','}{"resource":{"attributes":${attributesJson(resource.attributes)},` +
          `"droppedAttributesCount":0},"scopeSpans":[`,
      );
      firstResource = false;
      let firstScope = true;
      for (const { scope, spans } of scopes.values()) {
        text(
          `${firstScope ? '' : ','}{"scope":` +
            `${JSON.stringify({ name: scope.name, version: scope.version ?? '' })},"spans":[`,
        );
        firstScope = false;
        parts.push(...spans.chunks());
        text(`]${schemaUrlMember(scope.schemaUrl)}}`);
      }
      text(`]${schemaUrlMember(resource.schemaUrl)}}`);
    }
    text(']}');
    return Buffer.concat(parts);
  }
}

interface ScopeSpans {
  readonly scope: ReadableSpan['instrumentationScope'];
  readonly spans: TextChunks;
}

/** Comma-separated texts, appended as UTF-8 into buffers of at least CHUNK_BYTES. */
class TextChunks {
  private readonly full: Buffer[] = [];
  private current: Buffer | undefined;
  private used = 0;
  private count = 0;

  append(text: string): void {
    const separator = this.count > 0 ? 1 : 0;
    const bytes = separator + Buffer.byteLength(text, 'utf8');
    if (this.current === undefined || this.used + bytes > this.current.length) {
      if (this.current !== undefined) this.full.push(this.current.subarray(0, this.used));
      this.current = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, bytes));
      this.used = 0;
    }
    if (separator === 1) this.current[this.used++] = COMMA;
    this.used += this.current.write(text, this.used, 'utf8');
    this.count++;
  }

  chunks(): Buffer[] {
    return this.current === undefined
      ? this.full
      : [...this.full, this.current.subarray(0, this.used)];
  }
}

const CHUNK_BYTES = 64 * 1024;
const COMMA = 0x2c;

function schemaUrlMember(schemaUrl: string | undefined): string {
  return schemaUrl === undefined ? '' : `,"schemaUrl":${JSON.stringify(schemaUrl)}`;
}

/** OTLP span flags: the W3C trace flags, plus whether the parent is known to be remote. */
const FLAG_HAS_IS_REMOTE = 0x100;
const FLAG_IS_REMOTE = 0x200;

/**
 * One span's JSON, written out directly: the text JSON.stringify would give for the OTLP span
 * object, without building that object first. Its parts are joined into one flat string
 * rather than concatenated: V8 keeps a concatenation as a tree of its pieces, which it would
 * flatten (one more copy) before writing it out as UTF-8.
 */
export function spanJson(span: ReadableSpan): string {
  const ctx = span.spanContext();
  const parent = span.parentSpanContext;
  const status = span.status;
  return [
    `{"traceId":${quote(ctx.traceId)},"spanId":${quote(ctx.spanId)},`,
    `"traceState":${quote(ctx.traceState?.serialize() ?? '')},`,
    `"parentSpanId":${quote(parent?.spanId ?? '')},"flags":${spanFlags(ctx, parent)},`,
    // The API's SpanKind counts from INTERNAL = 0; OTLP's from UNSPECIFIED = 0.
    `"name":${quote(span.name)},"kind":${span.kind + 1},`,
    `"startTimeUnixNano":"${nanos(span.startTime)}","endTimeUnixNano":"${nanos(span.endTime)}",`,
    `"attributes":${attributesJson(span.attributes)},`,
    `"droppedAttributesCount":${span.droppedAttributesCount},`,
    `"events":[${span.events.map(eventJson).join(',')}],`,
    `"droppedEventsCount":${span.droppedEventsCount},`,
    `"links":[${span.links.map(linkJson).join(',')}],"droppedLinksCount":${span.droppedLinksCount},`,
    `"status":{"code":${status.code}`,
    status.message === undefined ? '}}' : `,"message":${quote(status.message)}}}`,
  ].join('');
}

function eventJson(event: ReadableSpan['events'][number]): string {
  return (
    `{"timeUnixNano":"${nanos(event.time)}","name":${quote(event.name)},` +
    `"attributes":${attributesJson(event.attributes ?? {})},` +
    `"droppedAttributesCount":${event.droppedAttributesCount ?? 0}}`
  );
}

function linkJson(link: ReadableSpan['links'][number]): string {
  const ctx = link.context;
  return (
    `{"traceId":${quote(ctx.traceId)},"spanId":${quote(ctx.spanId)},` +
    `"traceState":${quote(ctx.traceState?.serialize() ?? '')},` +
    `"attributes":${attributesJson(link.attributes ?? {})},` +
    `"droppedAttributesCount":${link.droppedAttributesCount ?? 0},` +
    `"flags":${spanFlags(ctx, undefined)}}`
  );
}

const quote = (text: string): string => JSON.stringify(text);

function spanFlags(ctx: SpanContext, parent: SpanContext | undefined): number {
  const flags = ctx.traceFlags & 0xff;
  if (parent === undefined) return flags;
  return flags | FLAG_HAS_IS_REMOTE | (parent.isRemote === true ? FLAG_IS_REMOTE : 0);
}

/** [seconds, nanoseconds] as the decimal count of nanoseconds since the epoch. */
export function nanos(time: HrTime): string {
  if (time[0] === 0) return String(time[1]);
  const fraction = String(time[1]);
  return `${time[0]}${'000000000'.slice(fraction.length)}${fraction}`;
}

function attributesJson(attributes: Attributes): string {
  let out = '';
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (value === undefined) continue;
    out += `${out === '' ? '' : ','}{"key":${quote(key)},"value":${valueJson(value)}}`;
  }
  return `[${out}]`;
}

function valueJson(value: AttributeValue | null | undefined): string {
  switch (typeof value) {
    case 'string':
      return `{"stringValue":${quote(value)}}`;
    case 'boolean':
      return `{"boolValue":${value}}`;
    case 'number':
      if (Number.isSafeInteger(value)) return `{"intValue":"${value}"}`;
      // JSON has no NaN or infinities; the protobuf JSON mapping spells them as strings.
      return `{"doubleValue":${Number.isFinite(value) ? JSON.stringify(value) : `"${value}"`}}`;
    default:
      if (Array.isArray(value)) {
        const values = (value as unknown[]).map((v) => valueJson(v as AttributeValue));
        return `{"arrayValue":{"values":[${values.join(',')}]}}`;
      }
      return '{}';
  }
}
