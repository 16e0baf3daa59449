/*
 * HTTP evaluation throughput under wrk: Vexil's POST /evaluate/v1/boolean beside a bare
 * node:http server that answers a fixed body of the same size without parsing the request,
 * alternated round by round in one run (server on core 0, wrk on core 1, 50 connections),
 * then POST /evaluate/v1/batch with 100 flags. Before any measurement Vexil serves a mix of
 * management requests through Express (`--mix` seconds), so whatever Express leaves behind
 * in the process's shared node:http code is in the figures.
 *   npm run bench:http [-- --duration=8 --rounds=3 --connections=50 --warmup=3 --mix=5]
 * (or BENCH_DURATION, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_WARMUP, BENCH_MIX;
 * VEXIL_LOG_LEVEL=info measures with the access log written.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import {
  fmt,
  api,
  entityIds,
  median,
  numberOption,
  requireTool,
  seedBooleanFlag,
  seedSegment,
  SERVER_CORE,
  startNode,
  startVexil,
  type Child,
  type Vexil,
} from './processes';
import { measureWrk, runWrk, writePostScript, writeRequestScript, type Measured } from './wrk';

const argv = process.argv.slice(2);
const DURATION = numberOption('duration', argv, 8);
const ROUNDS = numberOption('rounds', argv, 3);
const CONNECTIONS = numberOption('connections', argv, 50);
const WARMUP = numberOption('warmup', argv, 3);
const MIX = numberOption('mix', argv, 5);
const BATCH_SIZE = 100;
const FLAG = 'bench-flag-000';

const TARGET_RATIO = 0.9;
const TARGET_P99_FACTOR = 1.5;
const TARGET_BATCH_EVALS = 200_000;

const flagKey = (i: number): string => `bench-flag-${String(i).padStart(3, '0')}`;

function booleanBodies(ids: readonly string[]): string[] {
  return ids.map((entityId) =>
    JSON.stringify({ namespaceKey: 'default', flagKey: FLAG, entityId, context: { plan: 'free' } }),
  );
}

function batchBodies(ids: readonly string[]): string[] {
  return ids.map((entityId) =>
    JSON.stringify({
      requests: Array.from({ length: BATCH_SIZE }, (_, i) => ({
        namespaceKey: 'default',
        flagKey: flagKey(i),
        entityId,
        context: { plan: 'free' },
      })),
    }),
  );
}

function line(label: string, r: Measured, extra = ''): string {
  return (
    `${label.padEnd(22)} ${fmt(r.requestsPerSecond).padStart(9)} req/s` +
    `  p50 ${fmt(r.p50Ms, 2).padStart(6)} ms  p99 ${fmt(r.p99Ms, 2).padStart(6)} ms` +
    `  cpu ${fmt(r.cpuMicros, 1).padStart(6)} µs/req` +
    `  wake-ups ${r.wakeupsPerRequest.toFixed(3)}/req${extra}`
  );
}

const measure = (url: string, script: string, seconds: number, serverPid: number) =>
  measureWrk({ url, script, seconds, connections: CONNECTIONS, serverPid });

/** Management reads and writes, /health and /metrics: everything Express serves. */
function managementMix(): Array<{ method: string; path: string; body?: string }> {
  const ns = '/api/v1/namespaces/default';
  return [
    { method: 'GET', path: `${ns}/flags/${FLAG}` },
    { method: 'GET', path: `${ns}/flags?limit=20` },
    { method: 'GET', path: `${ns}/segments` },
    { method: 'GET', path: `${ns}/flags/${flagKey(1)}/rollouts` },
    {
      method: 'PUT',
      path: `${ns}/flags/${flagKey(99)}`,
      body: JSON.stringify({
        name: flagKey(99),
        description: 'touched by the mix',
        enabled: false,
      }),
    },
    { method: 'GET', path: '/api/v1/namespaces' },
    { method: 'GET', path: '/health' },
    { method: 'GET', path: '/metrics' },
  ];
}

async function seed(vexil: Vexil): Promise<void> {
  await seedSegment(vexil.httpPort);
  for (let i = 0; i < BATCH_SIZE; i++) await seedBooleanFlag(vexil.httpPort, flagKey(i));
}

async function main(): Promise<void> {
  requireTool('wrk', 'apt-get install wrk');
  requireTool('taskset', 'apt-get install util-linux');
  const work = mkdtempSync(path.join(tmpdir(), 'vexil-bench-http-'));
  const children: Array<Vexil | Child> = [];
  try {
    const vexil = await startVexil();
    children.push(vexil);
    await seed(vexil);

    const ids = entityIds(64);
    const booleanScript = path.join(work, 'boolean.lua');
    const batchScript = path.join(work, 'batch.lua');
    writePostScript(booleanScript, booleanBodies(ids));
    writePostScript(batchScript, batchBodies(ids));

    const sample = await api(vexil.httpPort, 'POST', '/evaluate/v1/boolean', {
      flagKey: FLAG,
      entityId: ids[0],
      context: { plan: 'free' },
    });
    const answerBytes = Buffer.byteLength(JSON.stringify(sample));
    const batch = await api(vexil.httpPort, 'POST', '/evaluate/v1/batch', {
      requests: Array.from({ length: BATCH_SIZE }, (_, i) => ({
        flagKey: flagKey(i),
        entityId: ids[0],
      })),
    });
    if (!Array.isArray(batch['responses']) || batch['responses'].length !== BATCH_SIZE) {
      throw new Error('the batch answer does not hold one response per flag');
    }

    const raw = await startNode({
      core: SERVER_CORE,
      script: path.join(__dirname, 'raw-server.js'),
      // Default Node, but for the memory reducer: idle while Vexil is measured, it would
      // otherwise come back slower each round (bench/NOTES.md, "Launch flags").
      nodeArgs: ['--no-memory-reducer'],
      env: { BENCH_ANSWER_BYTES: String(answerBytes) },
      readyWhen: (l) => l['message'] === 'listening',
    });
    children.push(raw);
    const rawPid = raw.process.pid ?? 0;

    const vexilUrl = `http://127.0.0.1:${vexil.httpPort}/evaluate/v1/boolean`;
    const rawUrl = `http://127.0.0.1:${Number(raw.ready['port'])}/evaluate/v1/boolean`;
    const batchUrl = `http://127.0.0.1:${vexil.httpPort}/evaluate/v1/batch`;

    console.log(
      `node ${process.version}; servers on core ${SERVER_CORE}, wrk on the other; ` +
        `${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s (warm-up ${WARMUP} s); ` +
        `answer ${answerBytes} bytes; Vexil log level ${process.env['VEXIL_LOG_LEVEL'] ?? 'warn'}; ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    const mixScript = path.join(work, 'management.lua');
    writeRequestScript(mixScript, managementMix());
    const mix = await runWrk({
      url: `http://127.0.0.1:${vexil.httpPort}`,
      script: mixScript,
      seconds: MIX,
      connections: 10,
    });
    if (mix.errors > 0) throw new Error(`the management mix had ${mix.errors} failed requests`);
    console.log(
      `management mix through Express first: ${fmt(mix.requestsPerSecond * MIX)} requests ` +
        `in ${MIX} s (${fmt(mix.requestsPerSecond)} req/s, p99 ${fmt(mix.p99Ms, 2)} ms)`,
    );
    await measure(vexilUrl, booleanScript, WARMUP, vexil.pid);
    await measure(rawUrl, booleanScript, WARMUP, rawPid);
    await measure(batchUrl, batchScript, WARMUP, vexil.pid);

    const vexilRuns: Measured[] = [];
    const rawRuns: Measured[] = [];
    const batchRuns: Measured[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const v = await measure(vexilUrl, booleanScript, DURATION, vexil.pid);
      const r = await measure(rawUrl, booleanScript, DURATION, rawPid);
      const b = await measure(batchUrl, batchScript, DURATION, vexil.pid);
      vexilRuns.push(v);
      rawRuns.push(r);
      batchRuns.push(b);
      console.log(`round ${round}`);
      console.log(`  ${line('vexil boolean', v)}`);
      console.log(
        `  ${line('raw node:http', r)}  ratio ${(v.requestsPerSecond / r.requestsPerSecond).toFixed(3)}`,
      );
      console.log(
        `  ${line(`vexil batch (${BATCH_SIZE})`, b)}  ${fmt(b.requestsPerSecond * BATCH_SIZE)} evaluations/s`,
      );
    }

    const summary = (runs: readonly Measured[]) => ({
      cpu: median(runs.map((x) => x.cpuMicros)),
      rps: median(runs.map((x) => x.requestsPerSecond)),
      p50: median(runs.map((x) => x.p50Ms)),
      p99: median(runs.map((x) => x.p99Ms)),
      wakeups: median(runs.map((x) => x.wakeupsPerRequest)),
    });
    const v = summary(vexilRuns);
    const r = summary(rawRuns);
    const b = summary(batchRuns);
    const ratio = v.rps / r.rps;
    const p99Ratio = v.p99 / r.p99;
    const evals = b.rps * BATCH_SIZE;
    const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT met');
    console.log(`\nmedians of ${ROUNDS} rounds`);
    console.log(
      `  vexil boolean   ${fmt(v.rps)} req/s  p50 ${fmt(v.p50, 2)} ms  p99 ${fmt(v.p99, 2)} ms  cpu ${fmt(v.cpu, 1)} µs/req`,
    );
    console.log(
      `  raw node:http   ${fmt(r.rps)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  cpu ${fmt(r.cpu, 1)} µs/req`,
    );
    console.log(
      `  cpu raw/vexil   ${(r.cpu / v.cpu).toFixed(3)} (what the req/s ratio would be with core 0 to themselves)`,
    );
    console.log(
      `  wake-ups        vexil ${v.wakeups.toFixed(3)}, raw ${r.wakeups.toFixed(3)} per request ` +
        `(interrupts sent to wrk's core: see bench/http/wrk.ts)`,
    );
    console.log(
      `  ratio vexil/raw ${ratio.toFixed(3)} (target >= ${TARGET_RATIO}: ${verdict(ratio >= TARGET_RATIO)})`,
    );
    console.log(
      `  p99 vexil/raw   ${p99Ratio.toFixed(2)} (target <= ${TARGET_P99_FACTOR}: ${verdict(p99Ratio <= TARGET_P99_FACTOR)})`,
    );
    console.log(
      `  batch of ${BATCH_SIZE}    ${fmt(b.rps)} req/s  p50 ${fmt(b.p50, 2)} ms  p99 ${fmt(b.p99, 2)} ms  ` +
        `cpu ${fmt(b.cpu, 1)} µs/req  ${fmt(evals)} evaluations/s (target >= ${fmt(TARGET_BATCH_EVALS)}: ${verdict(evals >= TARGET_BATCH_EVALS)})`,
    );
  } finally {
    for (const child of children.reverse()) await child.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
