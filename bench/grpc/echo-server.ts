/*
 * The baseline of the gRPC benchmark: a grpc-js server with Vexil's own
 * flipt.evaluation.EvaluationService definition whose Boolean answers a fixed response of
 * the same shape at once. What is left is grpc-js and protobuf coding, i.e. the floor.
 *   node dist/bench/grpc/echo-server.js   (prints {"message":"listening","port":N})
 */
import * as grpc from '@grpc/grpc-js';
import { serviceDefinition, SERVICE_NAMES } from '../../src/adapters/grpc/proto-definitions';

const server = new grpc.Server();
server.addService(serviceDefinition(SERVICE_NAMES.evaluation), {
  Boolean: (
    call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>,
    callback: grpc.sendUnaryData<unknown>,
  ) => {
    const req = call.request;
    callback(null, {
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      requestId: '00000000-0000-4000-8000-000000000000',
      requestDurationMillis: 0.01,
      timestamp: { seconds: Math.floor(Date.now() / 1000), nanos: 0 },
      flagKey: req['flagKey'],
      segmentKeys: [],
    });
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  process.stdout.write(JSON.stringify({ message: 'listening', port }) + '\n');
});
process.on('SIGTERM', () => server.forceShutdown());
