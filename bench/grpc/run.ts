/*
 * gRPC Boolean throughput: Vexil's flipt.evaluation.EvaluationService/Boolean beside a
 * grpc-js server answering a fixed response from the same service definition, alternated
 * round by round. Servers on core 0; the load generator (grpc-js, many calls in flight) is
 * a separate process on core 1.
 *   npm run bench:grpc [-- --duration=8 --rounds=3 --concurrency=100 --channels=2]
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import {
  median,
  numberOption,
  requireTool,
  seedBooleanFlag,
  seedSegment,
  LOAD_CORE,
  SERVER_CORE,
  startNode,
  startVexil,
  type Child,
  type Vexil,
} from '../http/processes';

const argv = process.argv.slice(2);
const DURATION = numberOption('duration', argv, 8);
const ROUNDS = numberOption('rounds', argv, 3);
const CONCURRENCY = numberOption('concurrency', argv, 100);
const CHANNELS = numberOption('channels', argv, 2);

interface LoadResult {
  readonly calls: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
}

async function load(port: number): Promise<LoadResult & { perSecond: number }> {
  const child = await startNode({
    core: LOAD_CORE,
    script: path.join(__dirname, 'load.js'),
    args: [`127.0.0.1:${port}`, String(DURATION), String(CONCURRENCY), String(CHANNELS)],
    readyWhen: (l) => typeof l['calls'] === 'number',
    timeoutMs: DURATION * 1000 + 60_000,
  });
  await child.stop();
  const result = child.ready as unknown as LoadResult;
  if (result.errors > 0) throw new Error(`${result.errors} failed calls under load`);
  return { ...result, perSecond: result.calls / result.seconds };
}

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main(): Promise<void> {
  requireTool('taskset', 'apt-get install util-linux');
  const children: Array<Vexil | Child> = [];
  try {
    const vexil = await startVexil();
    children.push(vexil);
    await seedSegment(vexil.httpPort);
    await seedBooleanFlag(vexil.httpPort, 'bench-flag-000');
    const echo = await startNode({
      core: SERVER_CORE,
      script: path.join(__dirname, 'echo-server.js'),
      readyWhen: (l) => l['message'] === 'listening',
    });
    children.push(echo);
    const echoPort = Number(echo.ready['port']);

    console.log(
      `node ${process.version}; servers on core ${SERVER_CORE}, load generator on core ` +
        `${LOAD_CORE}; ${CONCURRENCY} calls in flight on ${CHANNELS} channels; ${ROUNDS} ` +
        `rounds of ${DURATION} s; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    const vexilRuns: number[] = [];
    const echoRuns: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const v = await load(vexil.grpcPort);
      const e = await load(echoPort);
      vexilRuns.push(v.perSecond);
      echoRuns.push(e.perSecond);
      console.log(`round ${round}`);
      console.log(
        `  vexil Boolean    ${fmt(v.perSecond).padStart(8)} calls/s  p50 ${fmt(v.p50Ms, 2)} ms  p99 ${fmt(v.p99Ms, 2)} ms`,
      );
      console.log(
        `  grpc-js fixed    ${fmt(e.perSecond).padStart(8)} calls/s  p50 ${fmt(e.p50Ms, 2)} ms  p99 ${fmt(e.p99Ms, 2)} ms  ratio ${(v.perSecond / e.perSecond).toFixed(3)}`,
      );
    }
    const v = median(vexilRuns);
    const e = median(echoRuns);
    console.log(`\nmedians of ${ROUNDS} rounds`);
    console.log(`  vexil Boolean   ${fmt(v)} calls/s`);
    console.log(`  grpc-js fixed   ${fmt(e)} calls/s`);
    console.log(`  ratio           ${(v / e).toFixed(3)}`);
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
