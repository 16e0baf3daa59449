/*
 * gRPC load generator (run pinned to the load core): keeps CONCURRENCY unary Boolean calls
 * in flight on CHANNELS channels for SECONDS, then prints {"calls":…,"total":…,"seconds":…,
 * "p50Ms":…,"p99Ms":…,"errors":…} on one line (total counts the warm-up calls too).
 *   node dist/bench/grpc/load.js <host:port> <seconds> <concurrency> <channels>
 */
import * as grpc from '@grpc/grpc-js';
import { loadProtoDefinitions } from '../../src/adapters/grpc/proto-definitions';
import { entityIds } from '../http/processes';

type BooleanClient = grpc.Client & {
  Boolean(
    req: Record<string, unknown>,
    callback: (err: grpc.ServiceError | null, res?: Record<string, unknown>) => void,
  ): grpc.ClientUnaryCall;
};

const [target = '127.0.0.1:9000', secondsArg = '5', concurrencyArg = '200', channelsArg = '4'] =
  process.argv.slice(2);
const seconds = Number(secondsArg);
const concurrency = Number(concurrencyArg);
const channels = Number(channelsArg);
const flagKey = process.env['BENCH_FLAG'] ?? 'bench-flag-000';

const pkg = grpc.loadPackageDefinition(loadProtoDefinitions()) as unknown as {
  flipt: { evaluation: { EvaluationService: new (...args: unknown[]) => BooleanClient } };
};
const Service = pkg.flipt.evaluation.EvaluationService;
// Distinct channel options so grpc-js opens one HTTP/2 connection per client.
const clients = Array.from(
  { length: channels },
  (_, i) => new Service(target, grpc.credentials.createInsecure(), { 'grpc.bench_channel': i }),
);
const requests = entityIds(64).map((entityId) => ({
  namespaceKey: 'default',
  flagKey,
  entityId,
  context: { plan: 'free' },
}));

let calls = 0;
let total = 0;
let errors = 0;
let next = 0;
let stopAt = 0;
let measuring = false;
const latencies: number[] = [];

function fire(worker: number, done: () => void): void {
  if (performance.now() >= stopAt) {
    done();
    return;
  }
  const client = clients[worker % channels] as BooleanClient;
  const started = performance.now();
  client.Boolean(requests[next++ % requests.length] as Record<string, unknown>, (err) => {
    total++;
    if (measuring) {
      if (err) errors++;
      else calls++;
      latencies.push(performance.now() - started);
    }
    fire(worker, done);
  });
}

function phase(ms: number): Promise<void> {
  stopAt = performance.now() + ms;
  return Promise.all(
    Array.from({ length: concurrency }, (_, w) => new Promise<void>((r) => fire(w, r))),
  ).then(() => undefined);
}

async function main(): Promise<void> {
  await phase(Math.min(2000, seconds * 300));
  measuring = true;
  const started = performance.now();
  await phase(seconds * 1000);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.floor(q * (latencies.length - 1))] ?? 0;
  process.stdout.write(
    JSON.stringify({ calls, total, seconds: elapsed, p50Ms: at(0.5), p99Ms: at(0.99), errors }) +
      '\n',
  );
  for (const c of clients) c.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
