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
  fmt,
  cpuSeconds,
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

interface Measured extends LoadResult {
  readonly perSecond: number;
  /** Server CPU time per call, in microseconds: the client is usually the bottleneck. */
  readonly cpuMicros: number;
}

async function load(port: number, serverPid: number): Promise<Measured> {
  const cpuBefore = cpuSeconds(serverPid);
  const child = await startNode({
    core: LOAD_CORE,
    script: path.join(__dirname, 'load.js'),
    args: [`127.0.0.1:${port}`, String(DURATION), String(CONCURRENCY), String(CHANNELS)],
    readyWhen: (l) => typeof l['calls'] === 'number',
    timeoutMs: DURATION * 1000 + 60_000,
  });
  // Includes the generator's warm-up calls, so it is divided by every call answered.
  const cpu = cpuSeconds(serverPid) - cpuBefore;
  await child.stop();
  const result = child.ready as unknown as LoadResult & { total: number };
  if (result.errors > 0) throw new Error(`${result.errors} failed calls under load`);
  return {
    ...result,
    perSecond: result.calls / result.seconds,
    cpuMicros: (cpu * 1e6) / result.total,
  };
}

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
      // As Vexil is launched in this respect: idle while Vexil is measured (see bench/http).
      nodeArgs: ['--no-memory-reducer'],
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
    const vexilRuns: Measured[] = [];
    const echoRuns: Measured[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const v = await load(vexil.grpcPort, vexil.pid);
      const e = await load(echoPort, echo.process.pid ?? 0);
      vexilRuns.push(v);
      echoRuns.push(e);
      console.log(`round ${round}`);
      console.log(
        `  vexil Boolean    ${fmt(v.perSecond).padStart(8)} calls/s  p50 ${fmt(v.p50Ms, 2)} ms  p99 ${fmt(v.p99Ms, 2)} ms  cpu ${fmt(v.cpuMicros, 1)} µs/call`,
      );
      console.log(
        `  grpc-js fixed    ${fmt(e.perSecond).padStart(8)} calls/s  p50 ${fmt(e.p50Ms, 2)} ms  p99 ${fmt(e.p99Ms, 2)} ms  cpu ${fmt(e.cpuMicros, 1)} µs/call  ratio ${(v.perSecond / e.perSecond).toFixed(3)}`,
      );
    }
    const v = median(vexilRuns.map((x) => x.perSecond));
    const e = median(echoRuns.map((x) => x.perSecond));
    const vCpu = median(vexilRuns.map((x) => x.cpuMicros));
    const eCpu = median(echoRuns.map((x) => x.cpuMicros));
    console.log(`\nmedians of ${ROUNDS} rounds`);
    console.log(`  vexil Boolean   ${fmt(v)} calls/s  cpu ${fmt(vCpu, 1)} µs/call`);
    console.log(`  grpc-js fixed   ${fmt(e)} calls/s  cpu ${fmt(eCpu, 1)} µs/call`);
    console.log(
      `  ratio           ${(v / e).toFixed(3)} (calls/s)  ${(eCpu / vCpu).toFixed(3)} (cpu)`,
    );
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
