import * as path from 'path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ManagementApi } from '../../../src/domain/services/api';
import type { HealthReporter, HealthSnapshot, IdGenerator, Logger } from '../../../src/ports';
import { loadProtoDefinitions } from '../../../src/adapters/grpc/proto-definitions';

/** A ManagementApi whose every method is a jest mock (rejecting until a test says otherwise). */
export type FakeManagementApi = { [K in keyof ManagementApi]: jest.Mock };

const MANAGEMENT_METHODS: readonly (keyof ManagementApi)[] = [
  'getNamespace',
  'listNamespaces',
  'createNamespace',
  'updateNamespace',
  'deleteNamespace',
  'getFlag',
  'listFlags',
  'createFlag',
  'updateFlag',
  'deleteFlag',
  'createVariant',
  'updateVariant',
  'deleteVariant',
  'getSegment',
  'listSegments',
  'createSegment',
  'updateSegment',
  'deleteSegment',
  'createConstraint',
  'updateConstraint',
  'deleteConstraint',
  'getRule',
  'listRules',
  'createRule',
  'updateRule',
  'deleteRule',
  'orderRules',
  'createDistribution',
  'updateDistribution',
  'deleteDistribution',
  'getRollout',
  'listRollouts',
  'createRollout',
  'updateRollout',
  'deleteRollout',
  'orderRollouts',
];

export function fakeManagementApi(): FakeManagementApi {
  const api = {} as Record<string, jest.Mock>;
  for (const m of MANAGEMENT_METHODS) {
    api[m] = jest.fn(async () => {
      throw new Error(`unexpected call to ${m}`);
    });
  }
  return api as FakeManagementApi;
}

/** A HealthReporter a test can flip. */
export class FakeHealth implements HealthReporter {
  private snapshot: HealthSnapshot = { status: 'SERVING' };
  private readonly listeners = new Set<(s: HealthSnapshot) => void>();
  current(): HealthSnapshot {
    return this.snapshot;
  }
  subscribe(listener: (s: HealthSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(snapshot: HealthSnapshot): void {
    this.snapshot = snapshot;
    for (const l of this.listeners) l(snapshot);
  }
  get listenerCount(): number {
    return this.listeners.size;
  }
}

export interface LogLine {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

export function memoryLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, fields });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export function sequentialIds(): IdGenerator {
  let n = 0;
  return { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
}

type AnyClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

/** A client for one service of Vexil's protos. */
export function clientFor(
  service: string,
  port: number,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
): AnyClient {
  const pkg = grpc.loadPackageDefinition(loadProtoDefinitions());
  const ctor = service
    .split('.')
    .reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], pkg) as
    grpc.ServiceClientConstructor | undefined;
  if (!ctor) throw new Error(`no client for ${service}`);
  return new ctor(`127.0.0.1:${port}`, credentials) as unknown as AnyClient;
}

/** Promise form of a unary call; rejects with the grpc ServiceError. */
export function unary<Res = Record<string, unknown>>(
  client: AnyClient,
  method: string,
  request: object,
  metadata: grpc.Metadata = new grpc.Metadata(),
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const fn = client[method];
    if (!fn) throw new Error(`no method ${method}`);
    fn.call(client, request, metadata, (err: grpc.ServiceError | null, res: Res) => {
      if (err) reject(err);
      else resolve(res);
    });
  });
}

/** A reflection (v1alpha) client, from the protos @grpc/reflection ships. */
export function reflectionClient(port: number): AnyClient {
  const dir = path.dirname(require.resolve('@grpc/reflection/package.json'));
  const def = protoLoader.loadSync(
    path.join(dir, 'build/proto/grpc/reflection/v1alpha/reflection.proto'),
    { keepCase: true, defaults: true, oneofs: true },
  );
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: { reflection: { v1alpha: { ServerReflection: grpc.ServiceClientConstructor } } };
  };
  const Ctor = pkg.grpc.reflection.v1alpha.ServerReflection;
  return new Ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as AnyClient;
}

export async function listServicesByReflection(port: number): Promise<string[]> {
  const client = reflectionClient(port);
  try {
    return await new Promise<string[]>((resolve, reject) => {
      type ReflectionResponse = { list_services_response?: { service: { name: string }[] } };
      const stream = (
        client['ServerReflectionInfo'] as () => grpc.ClientDuplexStream<object, ReflectionResponse>
      )();
      stream.on('data', (res: ReflectionResponse) => {
        resolve((res.list_services_response?.service ?? []).map((s) => s.name));
        stream.end();
      });
      stream.on('error', reject);
      stream.write({ list_services: '' });
    });
  } finally {
    client.close();
  }
}
