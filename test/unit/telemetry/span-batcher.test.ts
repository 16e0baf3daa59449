import { ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { LeanTracerProvider } from '../../../src/adapters/telemetry/lean-tracer';
import { encodeOtlpJson } from '../../../src/adapters/telemetry/otlp-json';
import {
  EncodingSpanBatcher,
  type EncodedSpanSink,
  type SpanBatcherOptions,
} from '../../../src/adapters/telemetry/span-batcher';

const resource = resourceFromAttributes({ 'service.name': 'vexil' });

interface OtlpBody {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string }> };
    scopeSpans: Array<{ scope: { name: string; version: string }; spans: Array<{ name: string }> }>;
  }>;
}

/** A sink recording the bodies sent; each send waits until `settle` is called for it. */
class RecordingSink implements EncodedSpanSink {
  readonly bodies: string[] = [];
  readonly waiting: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  shutdowns = 0;

  send(body: Uint8Array): Promise<void> {
    this.bodies.push(Buffer.from(body).toString('utf8'));
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Settles the oldest send still waiting. */
  settle(error?: Error): void {
    const next = this.waiting.shift();
    if (next === undefined) throw new Error('no send is waiting');
    if (error === undefined) next.resolve();
    else next.reject(error);
  }

  shutdown(): Promise<void> {
    this.shutdowns++;
    return Promise.resolve();
  }

  names(index: number): string[] {
    const body = JSON.parse(this.bodies[index]!) as OtlpBody;
    return body.resourceSpans.flatMap((r) =>
      r.scopeSpans.flatMap((s) => s.spans.map((x) => x.name)),
    );
  }
}

function setup(options: SpanBatcherOptions = {}): {
  sink: RecordingSink;
  batcher: EncodingSpanBatcher;
  tracer: Tracer;
  /** Ends one span per name (each a root SERVER span: sampled). */
  spans: (...names: string[]) => void;
} {
  const sink = new RecordingSink();
  const batcher = new EncodingSpanBatcher(sink, {
    delayMillis: 60_000,
    encodeChunkSpans: 1,
    ...options,
  });
  const tracer = new LeanTracerProvider({
    resource,
    samplingRatio: 1,
    processor: batcher,
  }).getTracer('vexil', '1.0.0');
  const spans = (...names: string[]): void => {
    for (const name of names) tracer.startSpan(name, { kind: SpanKind.SERVER }, ROOT_CONTEXT).end();
  };
  return { sink, batcher, tracer, spans };
}

/** Lets settled sends' continuations run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('EncodingSpanBatcher', () => {
  it('sends a batch as soon as it is full, encoded exactly as the exporter encodes the spans', () => {
    const memory = new InMemorySpanExporter();
    const sink = new RecordingSink();
    const batcher = new EncodingSpanBatcher(sink, {
      delayMillis: 60_000,
      maxBatchSpans: 3,
      encodeChunkSpans: 1,
    });
    const both = {
      onStart: () => undefined,
      onEnd: (span: ReadableSpan) => {
        batcher.onEnd(span);
        new SimpleSpanProcessor(memory).onEnd(span);
      },
      forceFlush: () => Promise.resolve(),
      shutdown: () => Promise.resolve(),
    };
    const provider = new LeanTracerProvider({ resource, samplingRatio: 1, processor: both });
    const tracer = provider.getTracer('vexil', '1.0.0');
    const other = provider.getTracer('other');
    const root = tracer.startSpan(
      'root',
      { kind: SpanKind.SERVER, attributes: { a: 1 } },
      ROOT_CONTEXT,
    );
    other.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, root)).end();
    expect(sink.bodies).toHaveLength(0);
    root.end();
    expect(sink.bodies).toHaveLength(0);
    tracer.startSpan('third', { kind: SpanKind.SERVER }, ROOT_CONTEXT).end();

    expect(sink.bodies).toHaveLength(1);
    expect(sink.bodies[0]).toBe(encodeOtlpJson(memory.getFinishedSpans()));
    const body = JSON.parse(sink.bodies[0]!) as OtlpBody;
    expect(body.resourceSpans).toHaveLength(1);
    expect(body.resourceSpans[0]!.scopeSpans.map((s) => [s.scope.name, s.spans.length])).toEqual([
      ['other', 1],
      ['vexil', 2],
    ]);
  });

  it('writes names and values that need escaping as valid JSON', () => {
    const { sink, tracer } = setup({ maxBatchSpans: 1 });
    const odd = 'say "hi"\\ \n\u0000\u2028 é 🚩';
    const span = tracer.startSpan(
      odd,
      { kind: SpanKind.SERVER, attributes: { [odd]: odd } },
      ROOT_CONTEXT,
    );
    span.setStatus({ code: 2, message: odd });
    span.end();
    const body = JSON.parse(sink.bodies[0]!) as {
      resourceSpans: Array<{
        scopeSpans: Array<{
          spans: Array<{
            name: string;
            attributes: Array<{ key: string; value: { stringValue: string } }>;
            status: { code: number; message: string };
          }>;
        }>;
      }>;
    };
    const encoded = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    expect(encoded.name).toBe(odd);
    expect(encoded.attributes).toEqual([{ key: odd, value: { stringValue: odd } }]);
    expect(encoded.status).toEqual({ code: 2, message: odd });
  });

  it('keeps batches larger than its 64 KiB buffers whole, multi-byte text included', () => {
    const { sink, tracer } = setup({ maxBatchSpans: 400 });
    const text = (i: number) => `${i} é € 🚩 ${'x'.repeat(300)}`;
    const huge = `🚩${'y'.repeat(100_000)}é`;
    for (let i = 0; i < 400; i++) {
      tracer
        .startSpan(
          `span ${i}`,
          { kind: SpanKind.SERVER, attributes: { text: i === 200 ? huge : text(i) } },
          ROOT_CONTEXT,
        )
        .end();
    }
    expect(sink.bodies).toHaveLength(1);
    expect(Buffer.byteLength(sink.bodies[0]!)).toBeGreaterThan(3 * 64 * 1024);
    const body = JSON.parse(sink.bodies[0]!) as {
      resourceSpans: Array<{
        scopeSpans: Array<{
          spans: Array<{ name: string; attributes: Array<{ value: { stringValue: string } }> }>;
        }>;
      }>;
    };
    const encoded = body.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(encoded.map((s) => s.name)).toEqual(Array.from({ length: 400 }, (_, i) => `span ${i}`));
    encoded.forEach((s, i) =>
      expect(s.attributes[0]!.value.stringValue).toBe(i === 200 ? huge : text(i)),
    );
  });

  it('sends what it holds once the delay after its first span has passed', async () => {
    const { sink, spans } = setup({ delayMillis: 30 });
    spans('a');
    await new Promise((resolve) => setTimeout(resolve, 10));
    spans('b');
    expect(sink.bodies).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(sink.bodies).toHaveLength(1);
    expect(sink.names(0)).toEqual(['a', 'b']);
    sink.settle();
  });

  it('encodes ended spans a chunk at a time: when the chunk is full, or at the end of the turn', async () => {
    const { sink, batcher, tracer, spans } = setup({ maxBatchSpans: 3, encodeChunkSpans: 3 });
    spans('a', 'b');
    expect(sink.bodies).toHaveLength(0);
    spans('c');
    expect(sink.names(0)).toEqual(['a', 'b', 'c']);

    spans('d', 'e', 'f');
    expect(sink.names(1)).toEqual(['d', 'e', 'f']);
    // A span is read (encoded) only once its turn is over.
    let encoded = 0;
    const span = tracer.startSpan('g', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    span.end();
    const view = Object.create(span) as ReadableSpan;
    Object.defineProperty(view, 'name', { get: () => (encoded++, 'g') });
    batcher.onEnd(view);
    expect(encoded).toBe(0);
    await turn();
    expect(encoded).toBe(1);
    // 'g' (twice: the span and the view) waits for its batch (60 s) or a flush.
    expect(sink.bodies).toHaveLength(2);
    spans('h');
    const flushing = batcher.forceFlush();
    expect(sink.names(2)).toEqual(['g', 'g', 'h']);
    sink.settle();
    sink.settle();
    sink.settle();
    await flushing;
  });

  it('skips spans that are not sampled', () => {
    const { sink, batcher, tracer } = setup({ maxBatchSpans: 1 });
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.NONE,
      isRemote: true,
    });
    tracer.startSpan('ignored', { kind: SpanKind.SERVER }, unsampled).end();
    // A processor may also be handed a span that records without being sampled.
    const recorded = tracer.startSpan('recorded', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    const view = Object.create(recorded) as ReadableSpan;
    Object.defineProperty(view, 'spanContext', {
      value: () => ({ ...recorded.spanContext(), traceFlags: TraceFlags.NONE }),
    });
    batcher.onEnd(view);
    expect(sink.bodies).toHaveLength(0);
  });

  it('keeps at most the given batches in flight, then drops spans beyond the queue and says how many', async () => {
    const dropped: number[] = [];
    const { sink, spans } = setup({
      maxBatchSpans: 2,
      maxQueuedSpans: 4,
      maxExportsInFlight: 1,
      onDropped: (count) => dropped.push(count),
    });
    spans('a1', 'a2');
    expect(sink.bodies).toHaveLength(1);
    spans('b1', 'b2', 'b3', 'b4', 'lost1', 'lost2', 'lost3');
    expect(sink.bodies).toHaveLength(1);

    sink.settle();
    await turn();
    expect(sink.bodies).toHaveLength(2);
    expect(sink.names(1)).toEqual(['b1', 'b2', 'b3', 'b4']);
    expect(dropped).toEqual([3]);

    // Drops are reported at most once a minute: these wait for the next report.
    spans('c1', 'c2', 'c3', 'c4', 'lost4');
    sink.settle();
    await turn();
    expect(sink.names(2)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(dropped).toEqual([3]);
    sink.settle();
  });

  it('goes on sending after a batch is given up', async () => {
    const { sink, spans } = setup({ maxBatchSpans: 1, maxExportsInFlight: 1 });
    spans('first');
    sink.settle(new Error('collector away'));
    await turn();
    spans('second');
    expect(sink.names(1)).toEqual(['second']);
    sink.settle();
  });

  it('flushes what it holds and waits for batches in flight; shutdown flushes, then stops', async () => {
    const { sink, batcher, spans } = setup({ maxBatchSpans: 2 });
    spans('a', 'b', 'c');
    expect(sink.bodies).toHaveLength(1);
    let flushed = false;
    const flushing = batcher.forceFlush().then(() => (flushed = true));
    expect(sink.bodies).toHaveLength(2);
    expect(sink.names(1)).toEqual(['c']);
    sink.settle();
    await turn();
    expect(flushed).toBe(false);
    sink.settle();
    await flushing;

    spans('d');
    const stopping = batcher.shutdown();
    expect(batcher.shutdown()).toBe(stopping);
    expect(sink.names(2)).toEqual(['d']);
    sink.settle();
    await stopping;
    expect(sink.shutdowns).toBe(1);
    spans('after', 'shutdown');
    await batcher.forceFlush();
    expect(sink.bodies).toHaveLength(3);
  });
});
