import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';

/**
 * A minimal OTLP trace receiver for tests: accepts an ExportTraceServiceRequest over HTTP
 * (POST /v1/traces, as JSON or protobuf) and over gRPC (TraceService/Export), and keeps the
 * spans, with ids as lower-case hex.
 */

export type AttributeValue = string | number | boolean | null;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind number: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, AttributeValue>;
  readonly resource: Record<string, AttributeValue>;
  readonly scope: string;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
}

export interface ReceivedRequest {
  readonly contentType: string;
  readonly headers: IncomingHttpHeaders;
}

export interface OtlpReceiver {
  /** Base URL to configure as the exporter endpoint (the receiver serves `/v1/traces`). */
  readonly endpoint: string;
  /** `http://127.0.0.1:<port>` of the OTLP/gRPC service (plain text). */
  readonly grpcEndpoint: string;
  readonly spans: ReceivedSpan[];
  readonly requests: ReceivedRequest[];
  /** Resolves once `predicate` holds for the spans received so far. */
  waitFor(
    predicate: (spans: readonly ReceivedSpan[]) => boolean,
    timeoutMs?: number,
  ): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      try {
        if (contentType === 'application/json') {
          spans.push(...fromJson(JSON.parse(body.toString('utf8')) as JsonRequest));
        } else if (contentType === 'application/x-protobuf') {
          spans.push(...fromProtobuf(body));
        } else {
          res.writeHead(415).end();
          return;
        }
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
        return;
      }
      requests.push({ contentType, headers: req.headers });
      for (const wake of waiters) wake();
      if (contentType === 'application/json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const grpcServer = new grpc.Server();
  const bytes = (b: Buffer): Buffer => b;
  grpcServer.addService(
    {
      export: {
        path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        requestStream: false,
        responseStream: false,
        requestSerialize: bytes,
        requestDeserialize: bytes,
        responseSerialize: bytes,
        responseDeserialize: bytes,
      },
    },
    {
      export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
        try {
          spans.push(...fromProtobuf(call.request));
        } catch (err) {
          done({ code: grpc.status.INVALID_ARGUMENT, details: String(err) });
          return;
        }
        const headers: IncomingHttpHeaders = {};
        for (const [key, value] of Object.entries(call.metadata.getMap())) {
          headers[key] = String(value);
        }
        requests.push({ contentType: 'application/grpc', headers });
        for (const wake of waiters) wake();
        // An empty ExportTraceServiceResponse.
        done(null, Buffer.alloc(0));
      },
    },
  );
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );

  return {
    endpoint: `http://127.0.0.1:${port}`,
    grpcEndpoint: `http://127.0.0.1:${grpcPort}`,
    spans,
    requests,
    waitFor: (predicate, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (predicate(spans)) {
          resolve();
          return;
        }
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`OTLP receiver: condition not met after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = (): void => {
          if (!predicate(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      }),
    close: async () => {
      grpcServer.forceShutdown();
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      });
    },
  };
}

// ---- OTLP/JSON -------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}
interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: JsonKeyValue[];
  status?: { code?: number };
}
interface JsonRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: JsonSpan[] }>;
  }>;
}

function fromJson(body: JsonRequest): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: jsonId(s.traceId),
          spanId: jsonId(s.spanId),
          parentSpanId: jsonId(s.parentSpanId ?? ''),
          name: s.name,
          kind: s.kind ?? 0,
          attributes: jsonAttributes(s.attributes),
          resource,
          scope: ss.scope?.name ?? '',
          statusCode: s.status?.code ?? 0,
        });
      }
    }
  }
  return out;
}

/** OTLP/JSON ids are hex; accept base64 too (the protobuf JSON mapping of bytes). */
function jsonId(id: string): string {
  if (id === '' || /^[0-9a-f]+$/i.test(id)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list ?? []) {
    const v = kv.value ?? {};
    if (v.stringValue !== undefined) out[kv.key] = v.stringValue;
    else if (v.boolValue !== undefined) out[kv.key] = v.boolValue;
    else if (v.intValue !== undefined) out[kv.key] = Number(v.intValue);
    else if (v.doubleValue !== undefined) out[kv.key] = v.doubleValue;
    else out[kv.key] = null;
  }
  return out;
}

// ---- OTLP/protobuf (just the fields above) ------------------------------------------------

interface Field {
  readonly no: number;
  readonly wire: number;
  /** varint / fixed values */
  readonly num: bigint;
  readonly bytes: Buffer;
}

function* fields(buf: Buffer): Generator<Field> {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[pos++];
      if (b === undefined) throw new Error('truncated varint');
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const tag = Number(varint());
    const no = tag >>> 3;
    const wire = tag & 7;
    const empty = Buffer.alloc(0);
    if (wire === 0) yield { no, wire, num: varint(), bytes: empty };
    else if (wire === 1) {
      yield { no, wire, num: buf.readBigUInt64LE(pos), bytes: buf.subarray(pos, pos + 8) };
      pos += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      yield { no, wire, num: 0n, bytes: buf.subarray(pos, pos + len) };
      pos += len;
    } else if (wire === 5) {
      yield { no, wire, num: BigInt(buf.readUInt32LE(pos)), bytes: buf.subarray(pos, pos + 4) };
      pos += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
}

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rsField of fields(body)) {
    if (rsField.no !== 1) continue; // ExportTraceServiceRequest.resource_spans
    let resource: Record<string, AttributeValue> = {};
    const scopeSpans: Buffer[] = [];
    for (const f of fields(rsField.bytes)) {
      if (f.no === 1) resource = pbResource(f.bytes);
      else if (f.no === 2) scopeSpans.push(f.bytes);
    }
    for (const ss of scopeSpans) {
      let scope = '';
      const spanBufs: Buffer[] = [];
      for (const f of fields(ss)) {
        if (f.no === 1) {
          for (const sf of fields(f.bytes)) if (sf.no === 1) scope = sf.bytes.toString('utf8');
        } else if (f.no === 2) spanBufs.push(f.bytes);
      }
      for (const sb of spanBufs) out.push(pbSpan(sb, resource, scope));
    }
  }
  return out;
}

function pbResource(buf: Buffer): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const f of fields(buf)) if (f.no === 1) pbKeyValue(f.bytes, out);
  return out;
}

function pbSpan(
  buf: Buffer,
  resource: Record<string, AttributeValue>,
  scope: string,
): ReceivedSpan {
  let traceId = '';
  let spanId = '';
  let parentSpanId = '';
  let name = '';
  let kind = 0;
  let statusCode = 0;
  const attributes: Record<string, AttributeValue> = {};
  for (const f of fields(buf)) {
    if (f.no === 1) traceId = f.bytes.toString('hex');
    else if (f.no === 2) spanId = f.bytes.toString('hex');
    else if (f.no === 4) parentSpanId = f.bytes.toString('hex');
    else if (f.no === 5) name = f.bytes.toString('utf8');
    else if (f.no === 6) kind = Number(f.num);
    else if (f.no === 9) pbKeyValue(f.bytes, attributes);
    else if (f.no === 15) {
      for (const sf of fields(f.bytes)) if (sf.no === 3) statusCode = Number(sf.num);
    }
  }
  return { traceId, spanId, parentSpanId, name, kind, attributes, resource, scope, statusCode };
}

function pbKeyValue(buf: Buffer, into: Record<string, AttributeValue>): void {
  let key = '';
  let value: AttributeValue = null;
  for (const f of fields(buf)) {
    if (f.no === 1) key = f.bytes.toString('utf8');
    else if (f.no === 2) {
      for (const v of fields(f.bytes)) {
        if (v.no === 1) value = v.bytes.toString('utf8');
        else if (v.no === 2) value = v.num !== 0n;
        else if (v.no === 3) value = Number(BigInt.asIntN(64, v.num));
        else if (v.no === 4) value = v.bytes.readDoubleLE(0);
      }
    }
  }
  into[key] = value;
}
