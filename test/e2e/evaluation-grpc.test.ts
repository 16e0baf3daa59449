import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import { RED_ATTACHMENT, seedConfiguration, type Json } from '../support/seed-config';

/*
 * flipt.evaluation.EvaluationService and DataService over native gRPC, with a plain grpc-js
 * client built from Vexil's evaluation.proto (Flipt's package, message names and field
 * numbers): same answers and error codes as the REST routes of the same process.
 */

const PROTO_DIR = join(__dirname, '../../src/adapters/grpc/proto');

let vexil: VexilProcess;
let evaluation: grpc.Client;
let data: grpc.Client;

type Call = (req: unknown, cb: (err: grpc.ServiceError | null, res: Json) => void) => void;

function unary(client: grpc.Client, method: string, req: unknown, md?: grpc.Metadata) {
  return new Promise<Json>((resolve, reject) => {
    const fn = (client as unknown as Record<string, Call>)[method];
    if (fn === undefined) throw new Error(`no method ${method}`);
    const cb = (err: grpc.ServiceError | null, res: Json) => (err ? reject(err) : resolve(res));
    if (md) {
      (fn as unknown as (r: unknown, m: grpc.Metadata, c: typeof cb) => void).call(
        client,
        req,
        md,
        cb,
      );
    } else fn.call(client, req, cb);
  });
}

async function rest(path: string, body: unknown): Promise<Json> {
  const res = await fetch(`${vexil.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  vexil = await startVexil();
  await seedConfiguration(vexil.baseUrl);
  const def = protoLoader.loadSync('evaluation.proto', {
    keepCase: false,
    enums: String,
    longs: Number,
    defaults: true,
    // No virtual oneof-name fields: messages compare field by field with the JSON documents.
    oneofs: false,
    includeDirs: [PROTO_DIR],
  });
  const pkg = grpc.loadPackageDefinition(def) as Json;
  const address = `127.0.0.1:${vexil.grpcPort}`;
  const creds = grpc.credentials.createInsecure();
  evaluation = new pkg.flipt.evaluation.EvaluationService(address, creds);
  data = new pkg.flipt.evaluation.DataService(address, creds);
});

afterAll(async () => {
  evaluation?.close();
  data?.close();
  await vexil?.stop();
});

/** Drops the per-call envelope so gRPC and REST answers compare field by field. */
function stable(r: Json): Json {
  const { requestId: _r, requestDurationMillis: _d, timestamp: _t, ...rest } = r;
  return rest;
}

describe('EvaluationService', () => {
  const cases = [
    { flagKey: 'color', entityId: 'alice', context: { email: 'alice@example.com' } },
    { flagKey: 'color', entityId: 'bob', context: { plan: 'beta', mobile: 'true' } },
    { flagKey: 'color', entityId: 'vip-1', context: {} },
    { flagKey: 'color', entityId: 'nobody', context: {} },
    { flagKey: 'theme', entityId: 'x', context: {} },
    { flagKey: 'legacy-off', entityId: 'x', context: {} },
  ];

  it('Variant: same results as REST, with the envelope filled', async () => {
    for (const req of cases) {
      const g = await unary(evaluation, 'Variant', req);
      const r = await rest('/evaluate/v1/variant', req);
      expect(r.status).toBe(200);
      expect(stable(g)).toEqual(stable(r.body));
      expect(g.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof g.requestDurationMillis).toBe('number');
      expect(Number(g.timestamp.seconds)).toBeGreaterThan(Date.now() / 1000 - 60);
    }
    const red = await unary(evaluation, 'Variant', { ...cases[0], requestId: 'grpc-1' });
    expect(red).toMatchObject({
      requestId: 'grpc-1',
      match: true,
      variantKey: 'red',
      variantAttachment: RED_ATTACHMENT,
      reason: 'MATCH_EVALUATION_REASON',
      segmentKeys: ['internal'],
    });
  });

  it('Boolean: same results as REST', async () => {
    for (let i = 0; i < 20; i++) {
      const req = { flagKey: 'new-ui', entityId: `e-${i}`, context: {} };
      const g = await unary(evaluation, 'Boolean', req);
      const r = await rest('/evaluate/v1/boolean', req);
      expect(stable(g)).toEqual(stable(r.body));
    }
    const matched = await unary(evaluation, 'Boolean', {
      flagKey: 'new-ui',
      entityId: 'a',
      context: { email: 'a@example.com' },
      namespaceKey: 'default',
    });
    expect(matched).toMatchObject({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      segmentKeys: ['internal'],
      flagKey: 'new-ui',
    });
  });

  it('Batch: boolean, variant and not-found items', async () => {
    const g = await unary(evaluation, 'Batch', {
      requestId: 'gb-1',
      requests: [
        { flagKey: 'kill-switch', entityId: 'x' },
        { flagKey: 'color', entityId: 'vip-2', requestId: 'inner' },
        { flagKey: 'nope', entityId: 'x', namespaceKey: 'default' },
      ],
    });
    expect(g.requestId).toBe('gb-1');
    expect(g.responses.map((x: Json) => x.type)).toEqual([
      'BOOLEAN_EVALUATION_RESPONSE_TYPE',
      'VARIANT_EVALUATION_RESPONSE_TYPE',
      'ERROR_EVALUATION_RESPONSE_TYPE',
    ]);
    expect(g.responses[0].booleanResponse).toMatchObject({
      enabled: true,
      reason: 'DEFAULT_EVALUATION_REASON',
      requestId: '',
    });
    expect(g.responses[1].variantResponse).toMatchObject({
      variantKey: 'green',
      requestId: 'inner',
    });
    expect(g.responses[2].errorResponse).toEqual({
      flagKey: 'nope',
      namespaceKey: 'default',
      reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
    });
    const generated = await unary(evaluation, 'Batch', { requests: [] });
    expect(generated.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('errors: NOT_FOUND and INVALID_ARGUMENT with the REST messages', async () => {
    await expect(
      unary(evaluation, 'Boolean', { flagKey: 'x', entityId: 'e' }),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND, details: 'flag "default/x" not found' });
    await expect(
      unary(evaluation, 'Variant', { flagKey: 'x', entityId: 'e', namespaceKey: 'other' }),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND, details: 'flag "other/x" not found' });
    await expect(
      unary(evaluation, 'Boolean', { flagKey: 'color', entityId: 'e' }),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'flag type VARIANT_FLAG_TYPE invalid',
    });
    await expect(
      unary(evaluation, 'Variant', { flagKey: 'new-ui', entityId: 'e' }),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'flag type BOOLEAN_FLAG_TYPE invalid',
    });
  });
});

describe('DataService.EvaluationSnapshotNamespace', () => {
  it('serves the REST snapshot document in message form, gated by metadata', async () => {
    const md = new grpc.Metadata();
    md.set('x-flipt-accept-server-version', '1.47.0');
    const g = await unary(data, 'EvaluationSnapshotNamespace', { key: 'default' }, md);
    const res = await fetch(`${vexil.baseUrl}/internal/v1/evaluation/snapshot/namespace/default`, {
      headers: { 'x-flipt-accept-server-version': '1.47.0' },
    });
    const r = (await res.json()) as Json;
    expect(g.namespace).toEqual({ key: 'default' });
    expect(g.flags.map((f: Json) => f.key)).toEqual(r.flags.map((f: Json) => f.key));
    // Unset message fields decode as null; timestamps are {seconds, nanos} on the wire.
    const strip = (v: Json): Json => {
      if (Array.isArray(v)) return v.map(strip);
      if (v === null || typeof v !== 'object') return v;
      const out: Json = {};
      for (const [k, x] of Object.entries(v)) {
        if (x !== null && k !== 'createdAt' && k !== 'updatedAt') out[k] = strip(x);
      }
      return out;
    };
    for (let i = 0; i < r.flags.length; i++) {
      expect(strip(g.flags[i])).toEqual(strip(r.flags[i]));
      expect(Number(g.flags[i].createdAt.seconds)).toBe(
        Math.floor(Date.parse(r.flags[i].createdAt) / 1000),
      );
    }
    const color = g.flags.find((f: Json) => f.key === 'color');
    expect(color.defaultVariant.key).toBe('blue');
    expect(color.rules[2].segments[0].constraints[0].type).toBe(
      'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE',
    );

    const old = await unary(data, 'EvaluationSnapshotNamespace', { key: 'default' });
    const oldColor = old.flags.find((f: Json) => f.key === 'color');
    expect(oldColor.defaultVariant ?? undefined).toBeUndefined();
    expect(oldColor.rules[2].segments[0].constraints[0].type).toBe(
      'UNKNOWN_CONSTRAINT_COMPARISON_TYPE',
    );

    const none = await unary(data, 'EvaluationSnapshotNamespace', { key: 'nowhere' });
    expect(none).toMatchObject({ namespace: { key: 'nowhere' }, flags: [] });
  });
});
