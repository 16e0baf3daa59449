import * as grpc from '@grpc/grpc-js';
import {
  bindGrpcServer,
  createGrpcServer,
  shutdownGrpcServer,
} from '../../src/adapters/grpc/server';
import { MAX_ERROR_MESSAGE_BYTES } from '../../src/adapters/status';
import { InMemoryStore } from '../../src/adapters/storage/memory/in-memory-store';
import { ConfigStore } from '../../src/domain/services/config';
import { SystemClock } from '../../src/adapters/system/clock';
import { RandomIdGenerator } from '../../src/adapters/system/ids';
import { createManagementService } from '../../src/domain/services/management-service';
import { clientFor, FakeHealth, memoryLogger, sequentialIds } from '../unit/grpc/grpc-test-support';

/*
 * A bad call never harms the next one on the same connection: errors that would quote a
 * huge value are cut short, and an oversize message is refused with RESOURCE_EXHAUSTED.
 */

const LIMIT = 256 * 1024;

let server: grpc.Server;
let flipt: ReturnType<typeof clientFor>;

beforeAll(async () => {
  const ids = new RandomIdGenerator();
  const clock = new SystemClock();
  const store = new InMemoryStore({ clock });
  server = createGrpcServer({
    management: createManagementService({
      config: new ConfigStore({ unitOfWork: store.unitOfWork, clock, ids }),
      notifier: { namespaceChanged: () => undefined },
    }),
    health: new FakeHealth(),
    logger: memoryLogger(),
    ids: sequentialIds(),
    maxMessageBytes: LIMIT,
  });
  flipt = clientFor('flipt.Flipt', await bindGrpcServer(server, '127.0.0.1', 0));
});

afterAll(async () => {
  flipt.close();
  await shutdownGrpcServer(server, 1000);
});

interface Outcome {
  code: number;
  details: string;
  ms: number;
}

/** One call with a deadline: its status (0 on success) and how long it took. */
function call(method: string, request: object, deadlineMs = 5000): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const fn = flipt[method] as (...args: unknown[]) => unknown;
    fn.call(
      flipt,
      request,
      new grpc.Metadata(),
      { deadline: Date.now() + deadlineMs },
      (err: grpc.ServiceError | null) =>
        resolve({ code: err?.code ?? 0, details: err?.details ?? '', ms: Date.now() - started }),
    );
  });
}

const healthy = () => call('ListNamespaces', {});

describe('gRPC calls with huge values', () => {
  it.each([
    ['GetFlag', { namespaceKey: 'default', key: 'k'.repeat(200 * 1024) }, grpc.status.NOT_FOUND],
    ['GetNamespace', { key: 'é'.repeat(100 * 1024) }, grpc.status.NOT_FOUND],
    [
      'CreateConstraint',
      {
        namespaceKey: 'default',
        segmentKey: 's'.repeat(200 * 1024),
        type: 'STRING_COMPARISON_TYPE',
        property: 'p',
        operator: 'eq',
        value: 'v',
      },
      grpc.status.NOT_FOUND,
    ],
    [
      'CreateConstraint',
      {
        namespaceKey: 'default',
        segmentKey: 's',
        type: 'STRING_COMPARISON_TYPE',
        property: 'p',
        operator: '\u0001'.repeat(40 * 1024),
        value: 'v',
      },
      grpc.status.INVALID_ARGUMENT,
    ],
  ])(
    '%s answers at once with a bounded message, and the connection stays usable',
    async (method, request, code) => {
      const out = await call(method, request);
      expect(out.code).toBe(code);
      expect(out.ms).toBeLessThan(2000);
      expect(Buffer.byteLength(out.details)).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_BYTES);
      expect(out.details.endsWith('...')).toBe(true);
      expect(await healthy()).toMatchObject({ code: 0 });
    },
  );

  it('a message over the limit is refused with RESOURCE_EXHAUSTED, and the next call works', async () => {
    const out = await call('CreateFlag', { key: 'f', name: 'n'.repeat(LIMIT + 1) });
    expect(out.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(out.ms).toBeLessThan(2000);
    expect(await healthy()).toMatchObject({ code: 0 });
  });

  it('a message under the limit with a name over its size is a 400-like INVALID_ARGUMENT', async () => {
    const out = await call('CreateFlag', { key: 'f', name: 'n'.repeat(1000) });
    expect(out).toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'invalid field name: must be at most 255 characters',
    });
  });

  it('bytes that are no protobuf message are INVALID_ARGUMENT, not INTERNAL', async () => {
    const out = await new Promise<{ code: number; details: string }>((resolve) => {
      flipt.makeUnaryRequest(
        '/flipt.Flipt/GetFlag',
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from([0x08, 0xff]), // a varint cut short,
        new grpc.Metadata(),
        { deadline: Date.now() + 5000 },
        (err) => resolve({ code: err?.code ?? 0, details: err?.details ?? '' }),
      );
    });
    expect(out).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'request message could not be decoded',
    });
    expect(await healthy()).toMatchObject({ code: 0 });
  });
});
