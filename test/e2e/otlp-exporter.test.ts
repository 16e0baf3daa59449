import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { ExportResultCode, TraceState, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { OtlpJsonExporter, retryAfterMillis } from '../../src/adapters/telemetry/otlp-exporter';
import { encodeOtlpJson, nanos } from '../../src/adapters/telemetry/otlp-json';
import { receiveOursAndReference } from '../support/otlp-receiver';

/** Spans from the real SDK: a server span with a child, a link, an event and every value type. */
function sampleSpans(odd: number = Number.NaN): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'vexil', 'service.version': '1.2.3' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('vendor=abc'),
  });
  const root = provider.getTracer('vexil', '1.2.3').startSpan(
    'POST /evaluate/v1/boolean',
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.route': '/evaluate/v1/boolean', status: 200, ok: true, ratio: 0.25 },
      links: [
        {
          context: {
            traceId: '11111111111111111111111111111111',
            spanId: '2222222222222222',
            traceFlags: TraceFlags.NONE,
          },
          attributes: { why: 'batch' },
        },
      ],
    },
    remoteParent,
  );
  const child = provider
    .getTracer('storage')
    .startSpan(
      'store.getFlag',
      { attributes: { tags: ['a', 'b'], big: 2 ** 60, odd } },
      trace.setSpan(ROOT_CONTEXT, root),
    );
  child.addEvent('retry', { attempt: 2 });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'database went away' });
  child.end();
  root.end();
  return memory.getFinishedSpans();
}

describe('OTLP/JSON encoding', () => {
  it('writes nanoseconds since the epoch as decimal strings', () => {
    expect(nanos([0, 5])).toBe('5');
    expect(nanos([1, 5])).toBe('1000000005');
    expect(nanos([1_700_000_000, 123_456_789])).toBe('1700000000123456789');
    expect(nanos([1_700_000_000, 0])).toBe('1700000000000000000');
  });

  it('encodes ids, kinds, times, attributes, events, links and status as OTLP/JSON', () => {
    const [child, root] = sampleSpans();
    const body = JSON.parse(encodeOtlpJson([child!, root!])) as {
      resourceSpans: Array<{
        resource: { attributes: unknown[] };
        scopeSpans: Array<{
          scope: { name: string; version: string };
          spans: Array<Record<string, string>>;
        }>;
      }>;
    };
    expect(body.resourceSpans).toHaveLength(1);
    const [rs] = body.resourceSpans;
    expect(rs!.resource.attributes).toEqual(
      expect.arrayContaining([
        { key: 'service.name', value: { stringValue: 'vexil' } },
        { key: 'service.version', value: { stringValue: '1.2.3' } },
      ]),
    );
    // One entry per instrumentation scope, in order of first appearance.
    expect(rs!.scopeSpans.map((s) => s.scope)).toEqual([
      { name: 'storage', version: '' },
      { name: 'vexil', version: '1.2.3' },
    ]);
    const c = rs!.scopeSpans[0]!.spans[0]!;
    const r = rs!.scopeSpans[1]!.spans[0]!;

    expect(r).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      parentSpanId: 'b7ad6b7169203331',
      traceState: 'vendor=abc',
      // sampled, and the parent is known to be remote
      flags: 0x301,
      name: 'POST /evaluate/v1/boolean',
      kind: 2,
      attributes: [
        { key: 'http.route', value: { stringValue: '/evaluate/v1/boolean' } },
        { key: 'status', value: { intValue: '200' } },
        { key: 'ok', value: { boolValue: true } },
        { key: 'ratio', value: { doubleValue: 0.25 } },
      ],
      links: [
        {
          traceId: '11111111111111111111111111111111',
          spanId: '2222222222222222',
          attributes: [{ key: 'why', value: { stringValue: 'batch' } }],
          flags: 0,
        },
      ],
      status: { code: 0 },
    });
    expect(r.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(r.startTimeUnixNano).toMatch(/^\d{19}$/);
    expect(BigInt(r.endTimeUnixNano!)).toBeGreaterThanOrEqual(BigInt(r.startTimeUnixNano!));

    expect(c).toMatchObject({
      traceId: r.traceId,
      parentSpanId: r.spanId,
      flags: 0x101,
      kind: 1,
      attributes: [
        {
          key: 'tags',
          value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } },
        },
        // Past 2^53 an integer is no longer exact: sent as a double, never as "1e+18".
        { key: 'big', value: { doubleValue: 2 ** 60 } },
        { key: 'odd', value: { doubleValue: 'NaN' } },
      ],
      events: [{ name: 'retry', attributes: [{ key: 'attempt', value: { intValue: '2' } }] }],
      status: { code: 2, message: 'database went away' },
    });
  });

  it('is read by a receiver exactly as the OpenTelemetry reference encoder is', async () => {
    // The reference writes NaN as JSON null; OTLP's JSON mapping (and this encoder) says "NaN".
    const spans = sampleSpans(1.5);
    const { ours, reference } = await receiveOursAndReference(spans);
    expect(ours).toHaveLength(2);
    expect(ours).toEqual(reference);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates, and ignores anything else', () => {
    expect(retryAfterMillis('3')).toBe(3000);
    expect(retryAfterMillis('0.5')).toBe(500);
    expect(retryAfterMillis('0.0015')).toBe(2);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMillis('Thu, 01 Jan 2026 00:00:02 GMT', now)).toBe(2000);
    expect(retryAfterMillis('Thu, 01 Jan 2025 00:00:02 GMT', now)).toBe(0);
    expect(retryAfterMillis(undefined)).toBeUndefined();
    expect(retryAfterMillis('')).toBeUndefined();
    expect(retryAfterMillis('soon')).toBeUndefined();
  });
});

interface Collector {
  readonly url: string;
  readonly received: Array<{ headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

/** A collector answering each POST with the next of `answers` (the last one repeats). */
async function startCollector(
  answers: Array<{ status: number; headers?: Record<string, string>; body?: string }>,
): Promise<Collector> {
  const received: Collector['received'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[Math.min(received.length, answers.length) - 1]!;
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function exportOnce(exporter: OtlpJsonExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

describe('OtlpJsonExporter', () => {
  const collectors: Collector[] = [];
  const exporters: OtlpJsonExporter[] = [];
  const collector = async (...answers: Parameters<typeof startCollector>[0]) => {
    const c = await startCollector(answers);
    collectors.push(c);
    return c;
  };
  const exporter = (options: Partial<ConstructorParameters<typeof OtlpJsonExporter>[0]>) => {
    const e = new OtlpJsonExporter({
      url: 'http://127.0.0.1:1/v1/traces',
      headers: {},
      userAgent: 'vexil/test',
      retryDelayMillis: 10,
      ...options,
    });
    exporters.push(e);
    return e;
  };
  afterEach(async () => {
    await Promise.all(exporters.splice(0).map((e) => e.shutdown()));
    await Promise.all(collectors.splice(0).map((c) => c.close()));
  });

  it('posts the spans as JSON with the configured headers', async () => {
    const c = await collector({ status: 200 });
    const e = exporter({ url: c.url, headers: { Authorization: 'Bearer s3cret', 'X-Team': 'a' } });
    const spans = sampleSpans();
    expect(await exportOnce(e, spans)).toEqual({ code: ExportResultCode.SUCCESS });
    expect(c.received).toHaveLength(1);
    const [{ headers, body }] = c.received as [Collector['received'][0]];
    expect(headers['content-type']).toBe('application/json');
    expect(headers['authorization']).toBe('Bearer s3cret');
    expect(headers['x-team']).toBe('a');
    expect(headers['user-agent']).toBe('vexil/test');
    expect(body).toBe(encodeOtlpJson(spans));
  });

  it('starts its worker when asked, before any export, and only once', async () => {
    const c = await collector({ status: 200 });
    const e = exporter({ url: c.url });
    const workerOf = () => (e as unknown as { worker?: Worker }).worker;
    expect(workerOf()).toBeUndefined();
    e.start();
    const started = workerOf();
    expect(started).toBeInstanceOf(Worker);
    e.start();
    expect(workerOf()).toBe(started);
    expect(await exportOnce(e, sampleSpans())).toEqual({ code: ExportResultCode.SUCCESS });
    expect(workerOf()).toBe(started);
    await e.shutdown();
    e.start();
    expect(workerOf()).toBeUndefined();
  });

  it('retries a retryable answer and succeeds when the collector recovers', async () => {
    const c = await collector(
      { status: 503 },
      { status: 429, headers: { 'retry-after': '0' } },
      {
        status: 200,
      },
    );
    const failures: string[] = [];
    const e = exporter({
      url: c.url,
      retryDelayMillis: 7,
      onFailure: (err) => failures.push(err.message),
    });
    const timers = jest.spyOn(global, 'setTimeout');
    try {
      expect(await exportOnce(e, sampleSpans())).toEqual({ code: ExportResultCode.SUCCESS });
      // Waits of whole milliseconds (see retryWithBackoff), the jittered one (3.5 to 7 ms
      // before rounding) included.
      const delays = timers.mock.calls.map(([, ms]) => ms ?? 0);
      expect(delays.filter((ms) => ms >= 3 && ms <= 7)).toHaveLength(1);
      for (const ms of delays) expect(Number.isInteger(ms)).toBe(true);
    } finally {
      timers.mockRestore();
    }
    expect(c.received).toHaveLength(3);
    expect(failures).toEqual([]);
  });

  it('gives up at once on an answer that cannot succeed, and says why', async () => {
    const c = await collector({ status: 400, body: 'bad span' });
    const failures: Array<[string, number]> = [];
    const e = exporter({ url: c.url, onFailure: (err, n) => failures.push([err.message, n]) });
    const result = await exportOnce(e, sampleSpans());
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(result.error?.message).toBe('OTLP collector answered 400: bad span');
    expect(c.received).toHaveLength(1);
    expect(failures).toEqual([['OTLP collector answered 400: bad span', 1]]);
  });

  it('stops retrying at the deadline when the collector cannot be reached', async () => {
    const e = exporter({ url: 'http://127.0.0.1:1/v1/traces', timeoutMillis: 300 });
    const started = Date.now();
    const result = await exportOnce(e, sampleSpans());
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(result.error?.message).toMatch(/^OTLP export to http:\/\/127\.0\.0\.1:1 failed: /);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports failures at most once a minute, with the count since the last report', async () => {
    const c = await collector({ status: 500 });
    const failures: number[] = [];
    const e = exporter({ url: c.url, onFailure: (_err, n) => failures.push(n) });
    for (let i = 0; i < 3; i++) {
      expect((await exportOnce(e, sampleSpans())).code).toBe(ExportResultCode.FAILED);
    }
    expect(failures).toEqual([1]);
  });

  it('waits for exports in flight on shutdown, then refuses new ones', async () => {
    const c = await collector({ status: 200 });
    const e = exporter({ url: c.url });
    const pending = exportOnce(e, sampleSpans());
    await e.shutdown();
    expect(c.received).toHaveLength(1);
    expect(await pending).toEqual({ code: ExportResultCode.SUCCESS });
    const after = await exportOnce(e, sampleSpans());
    expect(after.code).toBe(ExportResultCode.FAILED);
  });

  it('posts from a worker thread, started again if it dies', async () => {
    const c = await collector({ status: 200 });
    const e = exporter({ url: c.url });
    const workerOf = () => (e as unknown as { worker?: Worker }).worker;
    expect(workerOf()).toBeUndefined();
    expect(await exportOnce(e, sampleSpans())).toEqual({ code: ExportResultCode.SUCCESS });
    const first = workerOf();
    expect(first).toBeInstanceOf(Worker);
    await first!.terminate();
    expect(await exportOnce(e, sampleSpans())).toEqual({ code: ExportResultCode.SUCCESS });
    expect(workerOf()).toBeInstanceOf(Worker);
    expect(workerOf()).not.toBe(first);
    expect(c.received).toHaveLength(2);
  });

  it('refuses an endpoint that is not http or https', () => {
    expect(() => exporter({ url: 'ftp://collector/v1/traces' })).toThrow(/http:\/\/ or https:\/\//);
  });
});
