import {
  context,
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { HybridContextManager } from '../../../src/adapters/telemetry/async-context-manager';
import {
  contextWithSpan,
  LeanTracerProvider,
  randomId,
} from '../../../src/adapters/telemetry/lean-tracer';
import { receiveOursAndReference } from '../../support/otlp-receiver';

const resource = resourceFromAttributes({ 'service.name': 'vexil' });

function lean(samplingRatio = 1): { tracer: Tracer; finished: () => ReadableSpan[] } {
  const memory = new InMemorySpanExporter();
  const provider = new LeanTracerProvider({
    resource,
    samplingRatio,
    processor: new SimpleSpanProcessor(memory),
  });
  return {
    tracer: provider.getTracer('vexil', '1.0.0'),
    finished: () => memory.getFinishedSpans(),
  };
}

function sdk(): { tracer: Tracer; finished: () => ReadableSpan[] } {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource,
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  return {
    tracer: provider.getTracer('vexil', '1.0.0'),
    finished: () => memory.getFinishedSpans(),
  };
}

const remoteParent = (flags: TraceFlags) =>
  trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: flags,
    isRemote: true,
    traceState: new TraceState('vendor=abc'),
  });

/** The same calls on any tracer: a server span under a remote parent, a child, a link. */
function scenario(tracer: Tracer): void {
  const server = tracer.startSpan(
    'POST',
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': 'POST', bad: { nested: 1 } as never, none: undefined },
      links: [
        {
          context: {
            traceId: '11111111111111111111111111111111',
            spanId: '2222222222222222',
            traceFlags: TraceFlags.NONE,
          },
          attributes: { why: 'batch', mixed: [1, 'a'] as never },
        },
      ],
    },
    remoteParent(TraceFlags.SAMPLED),
  );
  const child = tracer.startSpan(
    'evaluation.boolean',
    { attributes: { 'flipt.flag': 'dark-mode', tags: ['a', null, 'b'], n: 2 ** 60 } },
    trace.setSpan(ROOT_CONTEXT, server),
  );
  child.addEvent('retry', { attempt: 2 });
  child.recordException(new TypeError('no such flag'));
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'no such flag' });
  child.setStatus({ code: SpanStatusCode.UNSET });
  child.end();
  child.setAttribute('after-end', true);
  server.updateName('POST /evaluate/v1/boolean');
  server.setAttributes({ 'http.route': '/evaluate/v1/boolean', 'http.response.status_code': 200 });
  server.setStatus({ code: SpanStatusCode.OK });
  server.setStatus({ code: SpanStatusCode.ERROR, message: 'ignored: OK is final' });
  server.end();
  server.end();
}

/** What a collector sees of spans, with ids and times replaced by their relations. */
function seen(spans: ReadableSpan[]): unknown {
  const body = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString()) as {
    resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>;
  };
  const all = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  const ids = new Map(all.map((s, i) => [s['spanId'], `#${i}`]));
  return all.map((s) => {
    const { spanId, parentSpanId, startTimeUnixNano, endTimeUnixNano, events, ...rest } = s;
    const start = BigInt(startTimeUnixNano as string);
    const end = BigInt(endTimeUnixNano as string);
    return {
      ...rest,
      spanId: ids.get(spanId),
      parentSpanId: ids.get(parentSpanId) ?? parentSpanId,
      ordered: end >= start,
      events: (events as Array<Record<string, unknown>>).map(({ timeUnixNano, ...event }) => ({
        ...event,
        inSpan: BigInt(timeUnixNano as string) >= start && BigInt(timeUnixNano as string) <= end,
      })),
    };
  });
}

describe('LeanTracerProvider', () => {
  it('records what the OpenTelemetry SDK records for the same calls', () => {
    const ours = lean();
    const reference = sdk();
    scenario(ours.tracer);
    scenario(reference.tracer);
    expect(ours.finished()).toHaveLength(2);
    const recorded = seen(ours.finished());
    // Stack traces differ between the two runs (they name the line of each call).
    const withoutStacks = (x: unknown) =>
      JSON.parse(
        JSON.stringify(x).replace(
          /"stringValue":"TypeError: no such flag[^"]*"/,
          '"stringValue":"<stack>"',
        ),
      );
    expect(withoutStacks(recorded)).toEqual(withoutStacks(seen(reference.finished())));
  });

  it('reaches a collector the same through Vexil’s encoder and the reference encoder', async () => {
    const ours = lean();
    scenario(ours.tracer);
    const spans = ours.finished();
    const { ours: mine, reference } = await receiveOursAndReference(spans);
    expect(mine).toHaveLength(2);
    expect(mine).toEqual(reference);
  });

  it('follows the parent: same trace, the parent’s state, recorded only when it is sampled', () => {
    const { tracer, finished } = lean(0);
    const sampled = tracer.startSpan('a', {}, remoteParent(TraceFlags.SAMPLED));
    const unsampled = tracer.startSpan('b', {}, remoteParent(TraceFlags.NONE));
    expect(sampled.isRecording()).toBe(true);
    expect(unsampled.isRecording()).toBe(false);
    for (const span of [sampled, unsampled]) {
      expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(span.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.spanContext().spanId).not.toBe('b7ad6b7169203331');
      expect(span.spanContext().traceState?.serialize()).toBe('vendor=abc');
    }
    expect(unsampled.spanContext().traceFlags).toBe(TraceFlags.NONE);
    sampled.end();
    unsampled.end();
    expect(finished().map((s) => s.name)).toEqual(['a']);
    expect(finished()[0]!.parentSpanContext?.isRemote).toBe(true);
  });

  it('records every root SERVER span and samples other roots by trace id', () => {
    const none = lean(0);
    expect(none.tracer.startSpan('s', { kind: SpanKind.SERVER }).isRecording()).toBe(true);
    expect(none.tracer.startSpan('job').isRecording()).toBe(false);
    const all = lean(1);
    expect(all.tracer.startSpan('job').isRecording()).toBe(true);
    const quarter = lean(0.25);
    let recorded = 0;
    for (let i = 0; i < 4000; i++) if (quarter.tracer.startSpan('job').isRecording()) recorded++;
    expect(recorded).toBeGreaterThan(800);
    expect(recorded).toBeLessThan(1200);
  });

  it('ignores the parent of a span started as a root', () => {
    const { tracer } = lean();
    const span = tracer.startSpan('r', { root: true }, remoteParent(TraceFlags.SAMPLED));
    expect(span.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('keeps at most 128 attributes, counting the others as dropped', () => {
    const { tracer, finished } = lean();
    const span = tracer.startSpan('x');
    for (let i = 0; i < 130; i++) span.setAttribute(`k${i}`, i);
    span.setAttribute('k0', 'replaced');
    span.end();
    const [recorded] = finished();
    expect(Object.keys(recorded!.attributes)).toHaveLength(128);
    expect(recorded!.attributes['k0']).toBe('replaced');
    expect(recorded!.droppedAttributesCount).toBe(2);
  });

  it('takes start and end times as Dates, epoch or performance milliseconds, and HrTime', () => {
    const { tracer, finished } = lean();
    const start = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
    tracer.startSpan('a', { startTime: new Date(start) }).end([start / 1000 + 1, 500_000_000]);
    tracer.startSpan('b', { startTime: start }).end(start - 1000);
    const before = Date.now();
    tracer.startSpan('c', { startTime: performance.now() }).end();
    const [a, b, c] = finished();
    expect(a!.startTime).toEqual([Math.floor(start / 1000), 250_000_000]);
    expect(a!.endTime).toEqual([Math.floor(start / 1000) + 1, 750_000_000]);
    expect(a!.duration).toEqual([1, 500_000_000]);
    // An end before the start is moved to the start.
    expect(b!.endTime).toEqual(b!.startTime);
    const cStart = c!.startTime[0] * 1000 + c!.startTime[1] / 1e6;
    expect(Math.abs(cStart - before)).toBeLessThan(1000);
  });

  it('runs startActiveSpan’s function with the span active', () => {
    const manager = new HybridContextManager();
    context.setGlobalContextManager(manager);
    try {
      const { tracer } = lean();
      let active: Span | undefined;
      const result = tracer.startActiveSpan('outer', (span) => {
        active = trace.getActiveSpan();
        span.end();
        return 42;
      });
      expect(result).toBe(42);
      expect(active?.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
      tracer.startActiveSpan('with-options', { kind: SpanKind.CLIENT }, ROOT_CONTEXT, (span) => {
        expect(trace.getActiveSpan()).toBe(span);
        span.end();
      });
    } finally {
      context.disable();
    }
  });
});

describe('randomId', () => {
  it('gives distinct lower-case hex ids of the asked length', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = randomId(i % 2 === 0 ? 8 : 16);
      expect(id).toMatch(i % 2 === 0 ? /^[0-9a-f]{16}$/ : /^[0-9a-f]{32}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(2000);
  });
});

describe('contextWithSpan', () => {
  it('holds the span for the API and every other value of its parent', () => {
    const { tracer } = lean();
    const other = createContextKey('other');
    const parent = ROOT_CONTEXT.setValue(other, 'kept');
    const span = tracer.startSpan('s');
    const ctx = contextWithSpan(parent, span);
    expect(trace.getSpan(ctx)).toBe(span);
    expect(trace.getSpanContext(ctx)).toEqual(span.spanContext());
    expect(ctx.getValue(other)).toBe('kept');
    expect(trace.getSpan(parent)).toBeUndefined();

    const more = ctx.setValue(createContextKey('more'), 1);
    expect(trace.getSpan(more)).toBe(span);
    expect(trace.getSpan(trace.deleteSpan(more))).toBeUndefined();
    expect(ctx.deleteValue(other).getValue(other)).toBeUndefined();
    expect(ctx.getValue(other)).toBe('kept');

    // A child started under it has the span as its parent.
    const child = tracer.startSpan('child', {}, ctx) as unknown as ReadableSpan;
    expect(child.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(child.spanContext().traceId).toBe(span.spanContext().traceId);
  });
});
