import type * as grpc from '@grpc/grpc-js';
import {
  bindGrpcServer,
  createGrpcServer,
  shutdownGrpcServer,
} from '../../src/adapters/grpc/server';
import {
  clientFor,
  FakeHealth,
  fakeManagementApi,
  memoryLogger,
  sequentialIds,
} from '../unit/grpc/grpc-test-support';

describe('gRPC server lifecycle', () => {
  it('a graceful shutdown tells watchers NOT_SERVING and closes their streams', async () => {
    const health = new FakeHealth();
    const server = createGrpcServer({
      management: fakeManagementApi(),
      health,
      logger: memoryLogger(),
      ids: sequentialIds(),
    });
    const port = await bindGrpcServer(server, '127.0.0.1', 0);
    const h = clientFor('grpc.health.v1.Health', port);
    const statuses: string[] = [];
    const stream = (h['Watch'] as (req: object) => grpc.ClientReadableStream<{ status: string }>)({
      service: '',
    });
    const ended = new Promise<void>((resolve) => {
      stream.on('data', (r) => statuses.push(r.status));
      stream.on('end', resolve);
      stream.on('error', () => resolve());
    });
    await new Promise((r) => stream.once('data', r));
    await shutdownGrpcServer(server, 2000);
    await ended;
    expect(statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect(health.listenerCount).toBe(0);
    h.close();
  });

  it('binds to an ephemeral port and forces the shutdown after the timeout', async () => {
    const server = createGrpcServer({
      management: fakeManagementApi(),
      health: new FakeHealth(),
      logger: memoryLogger(),
      ids: sequentialIds(),
    });
    const port = await bindGrpcServer(server, 'localhost', 0);
    expect(port).toBeGreaterThan(0);
    const started = Date.now();
    await shutdownGrpcServer(server, 50);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
