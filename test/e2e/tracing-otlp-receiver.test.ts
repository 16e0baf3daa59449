import { request } from 'node:http';
import { SpanKind, SpanStatusCode, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

function post(url: string, contentType: string, body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': contentType } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(Buffer.from(body));
  });
}

describe('the test OTLP receiver', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(() => receiver.close());

  it('decodes the same spans from OTLP/JSON and OTLP/protobuf bodies', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'vexil' }),
      spanProcessors: [new SimpleSpanProcessor(memory)],
    });
    const tracer = provider.getTracer('scope-a');
    const root = tracer.startSpan('root', {
      kind: SpanKind.SERVER,
      attributes: { n: 3, ok: true },
    });
    const child = tracer.startSpan(
      'child',
      { attributes: { 'flipt.flag': 'dark-mode', ratio: 0.5 } },
      trace.setSpan(ROOT_CONTEXT, root),
    );
    child.setStatus({ code: SpanStatusCode.ERROR });
    child.end();
    root.end();
    const spans = memory.getFinishedSpans();

    const json = JsonTraceSerializer.serializeRequest(spans);
    const proto = ProtobufTraceSerializer.serializeRequest(spans);
    if (json === undefined || proto === undefined) throw new Error('serializer returned nothing');
    expect(await post(`${receiver.endpoint}/v1/traces`, 'application/json', json)).toBe(200);
    const fromJson = receiver.spans.splice(0);
    expect(await post(`${receiver.endpoint}/v1/traces`, 'application/x-protobuf', proto)).toBe(200);
    const fromProto = receiver.spans.splice(0);

    expect(fromProto).toEqual(fromJson);
    const [c, r] = fromJson;
    expect(r).toMatchObject({
      name: 'root',
      kind: 2,
      parentSpanId: '',
      attributes: { n: 3, ok: true },
      resource: { 'service.name': 'vexil' },
      scope: 'scope-a',
    });
    expect(c).toMatchObject({
      name: 'child',
      parentSpanId: r?.spanId,
      traceId: r?.traceId,
      attributes: { 'flipt.flag': 'dark-mode', ratio: 0.5 },
      statusCode: 2,
    });
    expect(r?.traceId).toBe(root.spanContext().traceId);
    await provider.shutdown();
  });

  it('refuses other paths and content types', async () => {
    expect(
      await post(`${receiver.endpoint}/v1/metrics`, 'application/json', new Uint8Array()),
    ).toBe(404);
    expect(await post(`${receiver.endpoint}/v1/traces`, 'text/plain', new Uint8Array())).toBe(415);
  });
});
