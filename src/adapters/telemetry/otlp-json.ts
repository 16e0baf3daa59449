import type { AttributeValue, Attributes, HrTime, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * The ExportTraceServiceRequest for `spans` in OTLP's JSON encoding: ids as lower-case hex,
 * enums as numbers, 64-bit integers as decimal strings. Spans are grouped by resource and
 * instrumentation scope.
 */
export function encodeOtlpJson(spans: readonly ReadableSpan[]): string {
  const byResource = new Map<ReadableSpan['resource'], Map<string, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = byResource.get(span.resource);
    if (scopes === undefined) byResource.set(span.resource, (scopes = new Map()));
    const scope = span.instrumentationScope;
    const key = `${scope.name}\u0000${scope.version ?? ''}\u0000${scope.schemaUrl ?? ''}`;
    const list = scopes.get(key);
    if (list === undefined) scopes.set(key, [span]);
    else list.push(span);
  }
  const resourceSpans: unknown[] = [];
  for (const [resource, scopes] of byResource) {
    const scopeSpans: unknown[] = [];
    for (const list of scopes.values()) {
      const scope = list[0]!.instrumentationScope;
      scopeSpans.push({
        scope: { name: scope.name, version: scope.version ?? '' },
        spans: list.map(encodeSpan),
        ...(scope.schemaUrl === undefined ? {} : { schemaUrl: scope.schemaUrl }),
      });
    }
    resourceSpans.push({
      resource: { attributes: encodeAttributes(resource.attributes), droppedAttributesCount: 0 },
      scopeSpans,
      ...(resource.schemaUrl === undefined ? {} : { schemaUrl: resource.schemaUrl }),
    });
  }
  return JSON.stringify({ resourceSpans });
}

/** OTLP span flags: the W3C trace flags, plus whether the parent is known to be remote. */
const FLAG_HAS_IS_REMOTE = 0x100;
const FLAG_IS_REMOTE = 0x200;

function encodeSpan(span: ReadableSpan): unknown {
  const ctx = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    traceState: ctx.traceState?.serialize() ?? '',
    parentSpanId: parent?.spanId ?? '',
    flags: spanFlags(ctx, parent),
    name: span.name,
    // The API's SpanKind counts from INTERNAL = 0; OTLP's from UNSPECIFIED = 0.
    kind: span.kind + 1,
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    attributes: encodeAttributes(span.attributes),
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map((event) => ({
      timeUnixNano: nanos(event.time),
      name: event.name,
      attributes: encodeAttributes(event.attributes ?? {}),
      droppedAttributesCount: event.droppedAttributesCount ?? 0,
    })),
    droppedEventsCount: span.droppedEventsCount,
    links: span.links.map((link) => ({
      traceId: link.context.traceId,
      spanId: link.context.spanId,
      traceState: link.context.traceState?.serialize() ?? '',
      attributes: encodeAttributes(link.attributes ?? {}),
      droppedAttributesCount: link.droppedAttributesCount ?? 0,
      flags: spanFlags(link.context, undefined),
    })),
    droppedLinksCount: span.droppedLinksCount,
    status: {
      code: span.status.code,
      ...(span.status.message === undefined ? {} : { message: span.status.message }),
    },
  };
}

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

function encodeAttributes(attributes: Attributes): unknown[] {
  const out: unknown[] = [];
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (value !== undefined) out.push({ key, value: encodeValue(value) });
  }
  return out;
}

function encodeValue(value: AttributeValue | null | undefined): unknown {
  switch (typeof value) {
    case 'string':
      return { stringValue: value };
    case 'boolean':
      return { boolValue: value };
    case 'number':
      if (Number.isSafeInteger(value)) return { intValue: String(value) };
      // JSON has no NaN or infinities; the protobuf JSON mapping spells them as strings.
      return { doubleValue: Number.isFinite(value) ? value : String(value) };
    default:
      if (Array.isArray(value)) {
        return {
          arrayValue: { values: (value as unknown[]).map((v) => encodeValue(v as AttributeValue)) },
        };
      }
      return {};
  }
}
