import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { startVexil, type VexilProcess } from '../support/vexil-process';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const traceparent = `00-${TRACE_ID}-${PARENT_SPAN}-01`;

const byParent = (spans: readonly ReceivedSpan[], parent: string) =>
  spans.filter((s) => s.parentSpanId === parent && s.traceId === TRACE_ID);

describe('tracing through the running server', () => {
  let receiver: OtlpReceiver;
  let vexil: VexilProcess;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    vexil = await startVexil({
      VEXIL_TRACING_ENABLED: 'true',
      VEXIL_TRACING_OTLP_ENDPOINT: receiver.endpoint,
    });
  });

  afterAll(async () => {
    await vexil?.stop();
    await receiver?.close();
  });

  it('exports HTTP and gRPC server spans under the caller’s trace, with evaluation and storage children', async () => {
    const post = (path: string, body: object) =>
      fetch(`${vexil.baseUrl}${path}`, {
        method: 'POST',
        headers: { traceparent },
        body: JSON.stringify(body),
      });
    expect(
      (
        await post('/api/v1/namespaces/default/flags', {
          key: 'traced',
          name: 'Traced',
          type: 'BOOLEAN_FLAG_TYPE',
          enabled: true,
        })
      ).status,
    ).toBe(200);
    // The first evaluation loads the namespace's snapshot; the second is answered from it at once.
    for (const entityId of ['e1', 'e2']) {
      expect((await post('/evaluate/v1/boolean', { flagKey: 'traced', entityId })).status).toBe(
        200,
      );
    }

    const def = protoLoader.loadSync(
      join(__dirname, '../../src/adapters/grpc/proto/evaluation.proto'),
      { keepCase: false, enums: String, defaults: true, oneofs: true },
    );
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      flipt: { evaluation: { EvaluationService: grpc.ServiceClientConstructor } };
    };
    const client = new pkg.flipt.evaluation.EvaluationService(
      `127.0.0.1:${vexil.grpcPort}`,
      grpc.credentials.createInsecure(),
    ) as unknown as grpc.Client & {
      boolean(
        req: object,
        md: grpc.Metadata,
        cb: (e: Error | null, r: { enabled: boolean }) => void,
      ): void;
    };
    const md = new grpc.Metadata();
    md.set('traceparent', traceparent);
    const answer = await new Promise<{ enabled: boolean }>((resolve, reject) =>
      client.boolean({ flagKey: 'traced', entityId: 'e1' }, md, (e, r) =>
        e ? reject(e) : resolve(r),
      ),
    );
    client.close();
    expect(answer.enabled).toBe(true);

    // Stopping flushes the batch exporter.
    expect(await vexil.stop()).toBe(0);
    await receiver.waitFor((spans) => byParent(spans, PARENT_SPAN).length >= 3, 10_000);

    const servers = byParent(receiver.spans, PARENT_SPAN);
    const names = servers.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['flipt.evaluation.EvaluationService/Boolean']));
    const httpSpans = servers.filter((s) => s.attributes['http.request.method'] === 'POST');
    expect(httpSpans).toHaveLength(3);
    for (const server of servers) {
      expect(server.kind).toBe(2); // SERVER
      const children = byParent(receiver.spans, server.spanId);
      expect(children.length).toBeGreaterThan(0);
    }
    const evaluations = receiver.spans.filter((s) => s.name === 'evaluation.boolean');
    expect(evaluations.length).toBeGreaterThanOrEqual(3);
    for (const e of evaluations) {
      expect(servers.map((s) => s.spanId)).toContain(e.parentSpanId);
      expect(e.attributes['flipt.flag']).toBe('traced');
      expect(e.attributes['flipt.namespace']).toBe('default');
      // The outcome, whether the evaluation was answered at once from the cached snapshot or
      // after loading it.
      expect(typeof e.attributes['flipt.flag_enabled']).toBe('boolean');
      expect(e.attributes['flipt.reason']).toEqual(expect.stringMatching(/_EVALUATION_REASON$/));
    }
    const storage = receiver.spans.filter((s) => s.name.startsWith('storage.'));
    expect(storage.map((s) => s.name)).toEqual(expect.arrayContaining(['storage.createFlag']));
    expect(receiver.spans.every((s) => s.resource['service.name'] === 'vexil')).toBe(true);
  });
});

describe('sampling decided where a request arrives', () => {
  let receiver: OtlpReceiver;
  let vexil: VexilProcess;
  const UNSAMPLED_TRACE = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2';

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    vexil = await startVexil({
      VEXIL_TRACING_ENABLED: 'true',
      VEXIL_TRACING_SAMPLING_RATIO: '0',
      VEXIL_TRACING_OTLP_ENDPOINT: receiver.endpoint,
      VEXIL_LOG_LEVEL: 'info',
    });
  });

  afterAll(async () => {
    await vexil?.stop();
    await receiver?.close();
  });

  it('at ratio 0 traces only callers that sampled, and logs an unsampled caller’s trace id', async () => {
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(`${vexil.baseUrl}/evaluate/v1/boolean`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
    const create = await fetch(`${vexil.baseUrl}/api/v1/namespaces/default/flags`, {
      method: 'POST',
      body: JSON.stringify({ key: 'ratio0', name: 'R', type: 'BOOLEAN_FLAG_TYPE' }),
    });
    expect(create.status).toBe(200);
    for (let i = 0; i < 20; i++) {
      expect((await post({ flagKey: 'ratio0', entityId: `e${i}` })).status).toBe(200);
    }
    const unsampled = await post(
      { flagKey: 'ratio0', entityId: 'u' },
      { traceparent: `00-${UNSAMPLED_TRACE}-${PARENT_SPAN}-00`, 'x-request-id': 'unsampled-1' },
    );
    expect(unsampled.status).toBe(200);
    const sampled = await post({ flagKey: 'ratio0', entityId: 's' }, { traceparent });
    expect(sampled.status).toBe(200);

    expect(await vexil.stop()).toBe(0);
    await receiver.waitFor((spans) => byParent(spans, PARENT_SPAN).length >= 1, 10_000);
    // Only the sampled caller's request was recorded: its server span and its evaluation.
    const traces = new Set(receiver.spans.map((s) => s.traceId));
    expect([...traces]).toEqual([TRACE_ID]);
    const server = byParent(receiver.spans, PARENT_SPAN);
    expect(server.map((s) => s.name)).toEqual(['POST /evaluate/v1/boolean']);
    const child = receiver.spans.filter((s) => s.parentSpanId === server[0]?.spanId);
    expect(child).toHaveLength(1);
    expect(child[0]?.name).toMatch(/^evaluation\.boolean/);

    const access = vexil.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['requestId'] === 'unsampled-1');
    expect(access).toMatchObject({ message: 'http request', traceId: UNSAMPLED_TRACE });
  });
});
