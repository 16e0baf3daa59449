import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { loadProtoDefinitions } from '../../src/adapters/grpc/proto-definitions';
import { createIsolatedDatabase, type IsolatedDatabase } from '../support/databases';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import { listServicesByReflection } from '../unit/grpc/grpc-test-support';
import {
  anyFloat,
  anyInt,
  anyString,
  dumpNamespace,
  FUZZED,
  fuzzBackends,
  scaled,
  seedNamespace,
  SENTINEL,
  type Pool,
} from './fault-support';

/*
 * Property-based fuzzing of every unary gRPC method a real process (SQLite) serves: messages
 * generated from the request types' descriptors (existing keys and ids mixed with hostile
 * values, unknown enum numbers, non-finite floats, long lists), plus raw bytes that are no
 * protobuf message at all. Whatever comes in: no INTERNAL, UNKNOWN, DATA_LOSS or UNAVAILABLE
 * status, an answer before the deadline, the connection still usable, and a namespace no
 * call named unchanged at the end. UNIMPLEMENTED is expected only from methods Vexil does not
 * implement (OIDC, Kubernetes, GitHub), which answer it to any request.
 */

const RUNS = scaled(8, 200);
const DEADLINE_MS = 5000;
const SERVER_FAULTS = new Set([
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.DATA_LOSS,
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
]);

jest.setTimeout(scaled(240_000, 3_600_000));

type Definition = ReturnType<typeof loadProtoDefinitions>;
interface FieldDescriptor {
  readonly name: string;
  readonly label: string;
  readonly type: string;
  readonly typeName: string;
}
interface MethodDefinition {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  readonly requestType: { readonly type: { readonly name: string } };
  readonly requestSerialize: (value: unknown) => Buffer;
}

const definition: Definition = loadProtoDefinitions();
let vexil: VexilProcess;
let db: IsolatedDatabase | undefined;
let pool: Pool;
let client: grpc.Client;
let sentinelBefore: string;
const codes = new Map<string, number>();
let calls = 0;

/** The descriptor of a message type, by a name relative to the package of `from`. */
interface NestedType {
  readonly name: string;
  readonly options?: { readonly mapEntry?: boolean } | null;
}

function lookup(
  typeName: string,
  from: string,
): { name: string; field: FieldDescriptor[]; nestedType: NestedType[] } {
  const parts = from.split('.');
  for (let i = parts.length; i >= 0; i--) {
    const full = [...parts.slice(0, i), typeName].join('.');
    const entry = (definition as Record<string, unknown>)[full] as
      { type?: { field?: FieldDescriptor[]; nestedType?: NestedType[] } } | undefined;
    if (entry?.type?.field !== undefined) {
      return { name: full, field: entry.type.field, nestedType: entry.type.nestedType ?? [] };
    }
  }
  // Well-known types (google.protobuf.Empty, ...) are named without their package.
  const known = Object.keys(definition).find((k) => k.endsWith(`.${typeName}`));
  if (known !== undefined && known !== from) return lookup(known, '');
  throw new Error(`message type ${typeName} not found from ${from}`);
}

function scalar(type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'TYPE_STRING':
      return anyString(pool);
    case 'TYPE_BOOL':
      return fc.boolean();
    case 'TYPE_FLOAT':
    case 'TYPE_DOUBLE':
      return anyFloat;
    case 'TYPE_ENUM':
      return fc.integer({ min: -1, max: 9 });
    case 'TYPE_BYTES':
      return fc.uint8Array({ maxLength: 16 }).map((b) => Buffer.from(b));
    default:
      // Integers of every width; a value out of an int32's range wraps as protobuf does.
      return anyInt.map((n) => (Number.isFinite(n) ? Math.trunc(n) % 2 ** 31 : 0));
  }
}

function messageOf(typeName: string, depth: number): fc.Arbitrary<Record<string, unknown>> {
  if (typeName === 'google.protobuf.Struct') {
    return fc.dictionary(fc.string({ maxLength: 6 }), anyString(pool), { maxKeys: 3 }).map((d) => ({
      fields: Object.fromEntries(Object.entries(d).map(([k, v]) => [k, { stringValue: v }])),
    }));
  }
  if (typeName === 'google.protobuf.Timestamp') {
    return fc.record({ seconds: fc.integer({ min: -1e11, max: 1e11 }), nanos: fc.integer() });
  }
  const { name, field, nestedType } = lookup(typeName, typeName);
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of field) {
    let one: fc.Arbitrary<unknown>;
    const mapEntry = nestedType.find((n) => n.name === f.typeName && n.options?.mapEntry === true);
    if (mapEntry !== undefined) {
      // map<string, string>: an object of strings to the serializer
      shape[f.name] = fc.dictionary(anyString(pool), anyString(pool), { maxKeys: 3 });
      continue;
    }
    if (f.type === 'TYPE_MESSAGE') {
      if (depth > 3) continue;
      one = messageOf(lookup(f.typeName, name).name, depth + 1);
    } else {
      one = scalar(f.type);
    }
    shape[f.name] =
      f.label === 'LABEL_REPEATED'
        ? fc.oneof(
            { weight: 5, arbitrary: fc.array(one, { maxLength: 4 }) },
            { weight: 1, arbitrary: fc.array(one, { minLength: 101, maxLength: 160 }) },
          )
        : one;
  }
  return fc.record(shape, { requiredKeys: [] });
}

interface Outcome {
  readonly code: number;
  readonly details: string;
}

function call(method: MethodDefinition, request: Buffer): Promise<Outcome> {
  calls += 1;
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      method.path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      request,
      new grpc.Metadata(),
      { deadline: Date.now() + DEADLINE_MS },
      (err) => resolve({ code: err?.code ?? 0, details: err?.details ?? '' }),
    );
  });
}

function unaryMethods(services: readonly string[]): Array<[string, MethodDefinition]> {
  const out: Array<[string, MethodDefinition]> = [];
  for (const service of services) {
    const methods = (definition as Record<string, unknown>)[service] as Record<
      string,
      MethodDefinition
    >;
    for (const [rpc, m] of Object.entries(methods)) {
      if (!m.requestStream && !m.responseStream) out.push([`${service}/${rpc}`, m]);
    }
  }
  return out;
}

describe.each(fuzzBackends('postgres'))('fuzzing every gRPC method on $name', (backend) => {
  beforeAll(async () => {
    codes.clear();
    calls = 0;
    db = await createIsolatedDatabase(backend, 'fuzz');
    vexil = await startVexil({
      VEXIL_DB_URL: db.url,
      VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
    });
    await seedNamespace(vexil.baseUrl, SENTINEL);
    sentinelBefore = await dumpNamespace(vexil.baseUrl, SENTINEL);
    pool = await seedNamespace(vexil.baseUrl, FUZZED);
    client = new grpc.Client(`127.0.0.1:${vexil.grpcPort}`, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await vexil?.stop();
    await db?.drop();
  });

  it(`answers ${RUNS} generated and ${RUNS} undecodable requests per method without a server fault or a hang`, async () => {
    const served = (await listServicesByReflection(vexil.grpcPort)).filter(
      (s) => !s.startsWith('grpc.reflection'),
    );
    const methods = unaryMethods(served);
    const healthy = methods.find(([name]) => name === 'flipt.Flipt/ListNamespaces')?.[1];
    if (healthy === undefined) throw new Error('flipt.Flipt is not served');
    for (const [name, method] of methods) {
      const serialize = method.requestSerialize;
      const unimplemented = (await call(method, serialize({}))).code === grpc.status.UNIMPLEMENTED;
      const check = async (request: Buffer, what: string): Promise<void> => {
        const out = await call(method, request);
        codes.set(
          grpc.status[out.code] ?? String(out.code),
          (codes.get(grpc.status[out.code] ?? '') ?? 0) + 1,
        );
        if (
          SERVER_FAULTS.has(out.code) ||
          (out.code === grpc.status.UNIMPLEMENTED && !unimplemented)
        ) {
          throw new Error(
            `${name} (${what}) -> ${grpc.status[out.code]} ${out.details.slice(0, 300)}`,
          );
        }
      };
      await fc.assert(
        fc.asyncProperty(
          messageOf(lookup(method.requestType.type.name, name.split('/')[0] ?? '').name, 0),
          async (message) => {
            let bytes: Buffer;
            try {
              bytes = serialize(message);
            } catch {
              return; // not encodable as this message (e.g. a string where a number goes)
            }
            await check(bytes, JSON.stringify(message).slice(0, 300));
          },
        ),
        { numRuns: RUNS },
      );
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 64 }), async (raw) =>
          check(Buffer.from(raw), `raw ${Buffer.from(raw).toString('hex')}`),
        ),
        { numRuns: RUNS },
      );
      // The connection is still usable after everything this method was sent.
      expect((await call(healthy, healthy.requestSerialize({}))).code).toBe(grpc.status.OK);
    }
    console.log(
      `gRPC fuzz on ${backend.name}: ${methods.length} methods, ${calls} calls; codes ` +
        JSON.stringify(Object.fromEntries([...codes].sort())),
    );
    expect(vexil.lines.filter((l) => /unexpected error/i.test(l))).toEqual([]);
  });

  it('left the namespace no call named exactly as it was', async () => {
    expect(await dumpNamespace(vexil.baseUrl, SENTINEL)).toBe(sentinelBefore);
  });
});
