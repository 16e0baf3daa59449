import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import {
  currentTraceId,
  callerTraceId,
  extractHttpContext,
  finishHttpServerSpan,
  runInContext,
  startServerSpan,
  startTracing,
  traceIdOf,
  withChildSpan,
  withServerSpan,
  type Tracing,
} from '../../src/adapters/telemetry/tracing';
import {
  evaluationResultAttributes,
  traceMethods,
} from '../../src/adapters/telemetry/traced-methods';
import type { OtlpProtocol } from '../../src/adapters/telemetry/otlp-exporters';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';

/** A stand-in for a repository port: what the composition root would wrap. */
class FakeFlagStore {
  async getFlag(namespaceKey: string, key: string): Promise<{ namespaceKey: string; key: string }> {
    await new Promise((r) => setTimeout(r, 1));
    return { namespaceKey, key };
  }
}

/** A stand-in for the evaluation service. */
class FakeEvaluator {
  constructor(private readonly store: FakeFlagStore) {}
  async boolean(req: { namespaceKey: string; flagKey: string; entityId: string }) {
    await this.store.getFlag(req.namespaceKey, req.flagKey);
    return { enabled: true, reason: 'MATCH_EVALUATION_REASON', flagKey: req.flagKey };
  }
}

function get(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const CONTENT_TYPES: Record<OtlpProtocol, string> = {
  'http/protobuf': 'application/x-protobuf',
  'http/json': 'application/json',
  grpc: 'application/grpc',
};

describe.each(Object.keys(CONTENT_TYPES) as OtlpProtocol[])(
  'tracing over OTLP %s to a real receiver',
  (protocol) => {
    let receiver: OtlpReceiver;
    let tracing: Tracing;
    let server: Server;
    let port: number;
    let lastServerTraceId: string | undefined;

    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      tracing = startTracing({
        enabled: true,
        protocol,
        endpoint: protocol === 'grpc' ? receiver.grpcEndpoint : `${receiver.endpoint}/`,
        headers: { 'x-collector-token': 'let-me-in' },
        samplingRatio: 1,
        serviceName: 'vexil',
        serviceVersion: '0.1.0-test',
        exportDelayMillis: 20,
      });
      const evaluator = traceMethods(
        new FakeEvaluator(
          traceMethods(new FakeFlagStore(), 'storage', {
            attributes: { 'db.system': 'sqlite' },
          }),
        ),
        'evaluation',
        { resultAttributes: evaluationResultAttributes },
      );

      // Wired as the HTTP handler is told to: extract, start, run in context, finish on 'finish'.
      server = createServer((req, res) => {
        const method = req.method ?? 'GET';
        const traced = startServerSpan(
          method,
          { 'http.request.method': method },
          extractHttpContext(req.headers),
        );
        if (traced === undefined) {
          // Not traced (an unsampled caller): served without any span or context.
          void evaluator
            .boolean({ namespaceKey: 'production', flagKey: 'dark-mode', entityId: 'user-1' })
            .then((result) => {
              res.writeHead(200, { 'content-type': 'application/json' });
              res.end(JSON.stringify({ ...result, traceId: currentTraceId() ?? null }));
            });
          return;
        }
        const server = traced;
        res.once('finish', () => {
          lastServerTraceId = traceIdOf(server.span);
          finishHttpServerSpan(server.span, method, '/evaluate/v1/boolean', res.statusCode);
        });
        // The answer comes after awaits, so the context must follow them.
        void runInContext(server.context, async () => {
          const result = await evaluator.boolean({
            namespaceKey: 'production',
            flagKey: 'dark-mode',
            entityId: 'user-1',
          });
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ ...result, traceId: currentTraceId() ?? null }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tracing.shutdown();
      await receiver.close();
    });

    const ofTrace = (traceId: string): ReceivedSpan[] =>
      receiver.spans.filter((s) => s.traceId === traceId);

    it('continues the caller trace: server span under the traceparent, evaluation and storage spans under it', async () => {
      const res = await get(port, '/evaluate/v1/boolean', {
        traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`,
        tracestate: 'vendor=value',
      });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ enabled: true, traceId: TRACE_ID });
      expect(lastServerTraceId).toBe(TRACE_ID);

      await tracing.forceFlush();
      await receiver.waitFor(() => ofTrace(TRACE_ID).length >= 3);
      const spans = ofTrace(TRACE_ID);
      expect(spans.map((s) => s.name).sort()).toEqual([
        'POST /evaluate/v1/boolean',
        'evaluation.boolean',
        'storage.getFlag',
      ]);
      const serverSpan = spans.find((s) => s.name === 'POST /evaluate/v1/boolean');
      const evaluation = spans.find((s) => s.name === 'evaluation.boolean');
      const storage = spans.find((s) => s.name === 'storage.getFlag');

      expect(serverSpan).toMatchObject({
        parentSpanId: PARENT_SPAN_ID,
        kind: 2,
        attributes: {
          'http.request.method': 'POST',
          'http.route': '/evaluate/v1/boolean',
          'http.response.status_code': 200,
        },
        resource: { 'service.name': 'vexil', 'service.version': '0.1.0-test' },
        scope: 'vexil',
      });
      expect(evaluation).toMatchObject({
        parentSpanId: serverSpan?.spanId,
        kind: 1,
        attributes: {
          'flipt.namespace': 'production',
          'flipt.flag': 'dark-mode',
          'flipt.flag_enabled': true,
          'flipt.reason': 'MATCH_EVALUATION_REASON',
        },
      });
      expect(evaluation?.attributes).not.toHaveProperty('entityId');
      expect(storage).toMatchObject({
        parentSpanId: evaluation?.spanId,
        attributes: {
          'flipt.namespace': 'production',
          'flipt.flag': 'dark-mode',
          'db.system': 'sqlite',
        },
      });
      expect(new Set(spans.map((s) => s.spanId)).size).toBe(3);
    });

    it('sends the configured headers with every export', () => {
      expect(receiver.requests.length).toBeGreaterThan(0);
      expect(receiver.requests[0]?.contentType).toBe(CONTENT_TYPES[protocol]);
      expect(receiver.requests[0]?.headers['x-collector-token']).toBe('let-me-in');
    });

    it('follows an unsampled parent: nothing of that trace is exported', async () => {
      const unsampled = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
      const res = await get(port, '/evaluate/v1/boolean', {
        traceparent: `00-${unsampled}-${PARENT_SPAN_ID}-00`,
      });
      // Not traced here at all: no span, no active context while it is served.
      expect(JSON.parse(res.body)).toMatchObject({ traceId: null });
      expect(callerTraceId(`00-${unsampled}-${PARENT_SPAN_ID}-00`)).toBe(unsampled);
      await get(port, '/evaluate/v1/boolean', {});
      await tracing.forceFlush();
      await receiver.waitFor((spans) => spans.length >= 6);
      expect(ofTrace(unsampled)).toEqual([]);
    });

    it('starts a new trace when the caller sends none, and when traceparent is malformed', async () => {
      const before = new Set(receiver.spans.map((s) => s.traceId));
      await get(port, '/evaluate/v1/boolean', { traceparent: 'garbage' });
      await tracing.forceFlush();
      await receiver.waitFor((spans) => spans.some((s) => !before.has(s.traceId) && s.kind === 2));
      const fresh = receiver.spans.filter((s) => !before.has(s.traceId) && s.kind === 2);
      expect(fresh[0]?.parentSpanId).toBe('');
      expect(fresh[0]?.traceId).toMatch(/^[0-9a-f]{32}$/);
    });

    it('withServerSpan and withChildSpan nest and record failures', async () => {
      const traceId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2';
      const parent = extractHttpContext({ traceparent: `00-${traceId}-${PARENT_SPAN_ID}-01` });
      await expect(
        withServerSpan('flipt.Flipt/GetFlag', { 'rpc.system': 'grpc' }, parent, async () => {
          expect(currentTraceId()).toBe(traceId);
          withChildSpan('sync-child', { 'flipt.namespace': 'default' }, () => 1);
          await withChildSpan('failing-child', {}, async () => {
            throw new Error('flag "default/x" not found');
          });
        }),
      ).rejects.toThrow('not found');
      await tracing.forceFlush();
      await receiver.waitFor(() => ofTrace(traceId).length >= 3);
      const spans = ofTrace(traceId);
      const root = spans.find((s) => s.name === 'flipt.Flipt/GetFlag');
      expect(root).toMatchObject({ parentSpanId: PARENT_SPAN_ID, kind: 2, statusCode: 2 });
      expect(spans.find((s) => s.name === 'sync-child')).toMatchObject({
        parentSpanId: root?.spanId,
        statusCode: 0,
      });
      expect(spans.find((s) => s.name === 'failing-child')).toMatchObject({
        parentSpanId: root?.spanId,
        statusCode: 2,
      });
    });

    it('records a fast path only when it answers or fails, under the active span', async () => {
      const traceId = 'ccccccccccccccccccccccccccccccc3';
      class Cache {
        lookupFlag(ns: string, key: string): { enabled: boolean; reason: string } | undefined {
          if (key === 'boom') throw new Error('broken snapshot');
          return key === 'hit'
            ? { enabled: false, reason: 'DEFAULT_EVALUATION_REASON' }
            : undefined;
        }
      }
      const cache = traceMethods(new Cache(), 'evaluation', {
        resultAttributes: evaluationResultAttributes,
        fastPaths: { lookupFlag: 'boolean' },
      });
      const parent = extractHttpContext({ traceparent: `00-${traceId}-${PARENT_SPAN_ID}-01` });
      await withServerSpan('POST', {}, parent, async () => {
        expect(cache.lookupFlag('default', 'miss')).toBeUndefined();
        expect(cache.lookupFlag('default', 'hit')).toEqual({
          enabled: false,
          reason: 'DEFAULT_EVALUATION_REASON',
        });
        expect(() => cache.lookupFlag('default', 'boom')).toThrow('broken snapshot');
      });
      // Outside a traced request it is the method itself, recording nothing.
      expect(cache.lookupFlag('default', 'hit')?.enabled).toBe(false);

      await tracing.forceFlush();
      await receiver.waitFor(() => ofTrace(traceId).length >= 3);
      const spans = ofTrace(traceId);
      const root = spans.find((s) => s.name === 'POST');
      const children = spans.filter((s) => s.name === 'evaluation.boolean');
      expect(children).toHaveLength(2);
      expect(children.every((c) => c.parentSpanId === root?.spanId)).toBe(true);
      expect(children.find((c) => c.attributes['flipt.flag'] === 'hit')).toMatchObject({
        statusCode: 0,
        attributes: {
          'flipt.namespace': 'default',
          'flipt.flag_enabled': false,
          'flipt.reason': 'DEFAULT_EVALUATION_REASON',
        },
      });
      expect(children.find((c) => c.attributes['flipt.flag'] === 'boom')).toMatchObject({
        statusCode: 2,
      });
    });
  },
);

describe('tracing disabled', () => {
  it('registers nothing, exports nothing and leaves objects unwrapped', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const tracing = startTracing({
        enabled: false,
        protocol: 'http/protobuf',
        endpoint: receiver.endpoint,
        headers: {},
        samplingRatio: 1,
        serviceName: 'vexil',
        serviceVersion: 'test',
      });
      const store = new FakeFlagStore();
      expect(traceMethods(store, 'storage')).toBe(store);
      const parent = extractHttpContext({ traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` });
      const value = await withServerSpan('x', {}, parent, async (span) => {
        expect(span.isRecording()).toBe(false);
        expect(currentTraceId()).toBeUndefined();
        return withChildSpan('y', {}, () => 42);
      });
      expect(value).toBe(42);
      expect(parent).toBeUndefined();
      expect(startServerSpan('GET', {}, parent)).toBeUndefined();
      expect(runInContext(ROOT_CONTEXT, () => 'ran')).toBe('ran');
      await tracing.forceFlush();
      await tracing.shutdown();
      await new Promise((r) => setTimeout(r, 50));
      expect(receiver.requests).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe('sampling', () => {
  it('records new traces at the configured ratio and always follows the caller’s decision', async () => {
    const receiver = await startOtlpReceiver();
    const tracing = startTracing({
      enabled: true,
      protocol: 'http/protobuf',
      endpoint: receiver.endpoint,
      headers: {},
      samplingRatio: 0.25,
      serviceName: 'vexil',
      serviceVersion: 'test',
    });
    try {
      const traced = (headers: Record<string, string>): boolean => {
        const server = startServerSpan('GET', {}, extractHttpContext(headers));
        server?.span.end();
        return server !== undefined;
      };
      let sampled = 0;
      for (let i = 0; i < 4000; i++) if (traced({})) sampled++;
      expect(sampled / 4000).toBeGreaterThan(0.2);
      expect(sampled / 4000).toBeLessThan(0.3);
      for (let i = 0; i < 50; i++) {
        const traceId = (i + 1).toString(16).padStart(32, '0');
        expect(traced({ traceparent: `00-${traceId}-${PARENT_SPAN_ID}-01` })).toBe(true);
        expect(traced({ traceparent: `00-${traceId}-${PARENT_SPAN_ID}-00` })).toBe(false);
      }
      // What was sampled is what reaches the collector.
      await tracing.forceFlush();
      await receiver.waitFor((spans) => spans.length === sampled + 50);
    } finally {
      await tracing.shutdown();
      await receiver.close();
    }
  });
});
