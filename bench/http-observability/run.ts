/*
 * What metrics and tracing cost an HTTP evaluation, under wrk: four Vexil servers on the same
 * core (0), each warmed up and then measured, one after the other (each round starting with
 * the next one), wrk on core 1 (50 connections), POST /evaluate/v1/boolean, with new server
 * processes every round:
 *   - "off": VEXIL_METRICS_ENABLED=false, tracing disabled;
 *   - "metrics": metrics enabled (prom-client: per-request HTTP and evaluation series),
 *     tracing disabled (the default configuration);
 *   - "tracing 0.01" and "tracing 0.1": metrics enabled and tracing (OpenTelemetry SDK) at
 *     those sampling ratios (`--ratios`), spans exported with the default exporter (OTLP/HTTP
 *     protobuf) to a local sink (otlp-sink.ts, on core 1).
 * All use the same log level (VEXIL_LOG_LEVEL, default warn) and encoding (json). Each server
 * is scraped (GET /metrics) right before and after its measurement, all alike.
 *   npm run bench:observability [-- --duration=5 --rounds=3 --connections=50 --warmup=10 \
 *     --ratios=0.01,0.1]
 * The target: metrics with tracing at 0.01 lose at most 10 % of the throughput of "off".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import {
  fmt,
  api,
  entityIds,
  LOAD_CORE,
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
} from '../http/processes';
import { measureWrk, writePostScript, type Measured } from '../http/wrk';

const argv = process.argv.slice(2);
const DURATION = numberOption('duration', argv, 5);
const ROUNDS = numberOption('rounds', argv, 3);
const CONNECTIONS = numberOption('connections', argv, 50);
/**
 * Seconds of load right before each measurement, so that each server is measured in the
 * state it serves in for the rest of its life (V8 has optimized its code, including the
 * traced requests' at a low ratio; bench/NOTES.md).
 */
const WARMUP = numberOption('warmup', argv, 10);
/** tracing.sampling_ratio of the traced servers. */
const RATIOS = (
  argv.find((a) => a.startsWith('--ratios='))?.slice('--ratios='.length) ??
  process.env['BENCH_RATIOS'] ??
  '0.01,0.1'
)
  .split(',')
  .map(Number);
const FLAG = 'bench-flag-000';
const TARGET_LOSS = 0.1;

const line = (label: string, r: Measured): string =>
  `${label.padEnd(30)} ${fmt(r.requestsPerSecond).padStart(9)} req/s` +
  `  p50 ${fmt(r.p50Ms, 2).padStart(6)} ms  p99 ${fmt(r.p99Ms, 2).padStart(6)} ms` +
  `  cpu ${fmt(r.cpuMicros, 1).padStart(6)} µs/req`;

const measure = (url: string, script: string, seconds: number, serverPid: number) =>
  measureWrk({ url, script, seconds, connections: CONNECTIONS, serverPid });

async function sinkStats(port: number): Promise<{ exports: number; bytes: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/stats`);
  return (await res.json()) as { exports: number; bytes: number };
}

/**
 * From one scrape of `/metrics`: vexil_http_requests_total summed over its series (zero when
 * metrics are off).
 */
async function requestsCounted(vexil: Vexil): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${vexil.httpPort}/metrics`)).text();
  let requests = 0;
  for (const l of text.split('\n')) {
    if (l.startsWith('vexil_http_requests_total{')) requests += Number(l.slice(l.lastIndexOf(' ')));
  }
  return requests;
}

async function main(): Promise<void> {
  requireTool('wrk', 'apt-get install wrk');
  requireTool('taskset', 'apt-get install util-linux');
  const work = mkdtempSync(path.join(tmpdir(), 'vexil-bench-http-observability-'));
  const children: Array<Vexil | Child> = [];
  try {
    const sink = await startNode({
      core: LOAD_CORE,
      script: path.join(__dirname, 'otlp-sink.js'),
      readyWhen: (l) => l['message'] === 'listening',
    });
    children.push(sink);
    const sinkPort = Number(sink.ready['port']);

    const configs: Array<{ label: string; env: NodeJS.ProcessEnv }> = [
      { label: 'off', env: { VEXIL_METRICS_ENABLED: 'false', VEXIL_TRACING_ENABLED: 'false' } },
      { label: 'metrics', env: { VEXIL_METRICS_ENABLED: 'true', VEXIL_TRACING_ENABLED: 'false' } },
      ...RATIOS.map((ratio) => ({
        label: `metrics + tracing ${ratio}`,
        env: {
          VEXIL_METRICS_ENABLED: 'true',
          VEXIL_TRACING_ENABLED: 'true',
          VEXIL_TRACING_SAMPLING_RATIO: String(ratio),
          VEXIL_TRACING_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}`,
        },
      })),
    ];
    const ids = entityIds(64);
    const script = path.join(work, 'boolean.lua');
    writePostScript(
      script,
      ids.map((entityId) =>
        JSON.stringify({
          namespaceKey: 'default',
          flagKey: FLAG,
          entityId,
          context: { plan: 'free' },
        }),
      ),
    );
    const url = (v: Vexil) => `http://127.0.0.1:${v.httpPort}/evaluate/v1/boolean`;

    console.log(
      `node ${process.version}; servers on core ${SERVER_CORE}, wrk and the OTLP sink on ` +
        `core ${LOAD_CORE}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s ` +
        `(warm-up ${WARMUP} s), fresh servers each round; Vexil log level ` +
        `${process.env['VEXIL_LOG_LEVEL'] ?? 'warn'}; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );

    const runs: Measured[][] = configs.map(() => []);
    const sinkBefore = await sinkStats(sinkPort);
    for (let round = 1; round <= ROUNDS; round++) {
      // New processes every round: a server's speed varies a few percent from one process to
      // the next (code layout, JIT decisions), and the median over rounds evens that out.
      const servers: Vexil[] = [];
      for (const { env } of configs) {
        const v = await startVexil([], env);
        children.push(v);
        servers.push(v);
        await seedSegment(v.httpPort);
        await seedBooleanFlag(v.httpPort, FLAG);
        await api(v.httpPort, 'POST', '/evaluate/v1/boolean', { flagKey: FLAG, entityId: ids[0] });
      }
      if (round === 1) {
        const offMetrics = await fetch(`http://127.0.0.1:${servers[0]!.httpPort}/metrics`);
        if (offMetrics.status === 200) {
          throw new Error('"off" still serves /metrics: VEXIL_METRICS_ENABLED=false not applied');
        }
      }
      // Each round starts with a different server, so none is always measured first or last
      // while the machine's speed drifts. Each is warmed up right before it is measured.
      const measured = new Map<number, Measured>();
      for (let i = 0; i < servers.length; i++) {
        const index = (round - 1 + i) % servers.length;
        const v = servers[index]!;
        await measure(url(v), script, WARMUP, v.pid);
        // Every server is scraped right before and after its measurement ("off" answers 404),
        // so all see the same requests.
        await requestsCounted(v);
        measured.set(index, await measure(url(v), script, DURATION, v.pid));
        await requestsCounted(v);
      }
      // Stopping the traced servers flushes the spans they still hold to the sink.
      for (const v of servers) {
        await v.stop();
        children.splice(children.indexOf(v), 1);
      }
      console.log(`round ${round}`);
      const off = measured.get(0)!;
      configs.forEach(({ label }, i) => {
        const r = measured.get(i)!;
        runs[i]!.push(r);
        console.log(
          `  ${line(label, r)}  ratio ${(r.requestsPerSecond / off.requestsPerSecond).toFixed(3)}`,
        );
      });
    }
    const sinkAfter = await sinkStats(sinkPort);

    const summary = (xs: readonly Measured[]) => ({
      rps: median(xs.map((r) => r.requestsPerSecond)),
      p50: median(xs.map((r) => r.p50Ms)),
      p99: median(xs.map((r) => r.p99Ms)),
      cpu: median(xs.map((r) => r.cpuMicros)),
    });
    const sums = runs.map(summary);
    const off = sums[0]!;
    console.log(`\nmedians of ${ROUNDS} rounds`);
    configs.forEach(({ label }, i) => {
      const s = sums[i]!;
      const loss = 1 - s.rps / off.rps;
      // The servers of a round are measured within a minute or two of each other, so a ratio
      // taken inside each round is less exposed to the machine's drift; both are printed.
      const ratios = runs[i]!.map((x, k) => x.requestsPerSecond / runs[0]![k]!.requestsPerSecond);
      console.log(
        `  ${label.padEnd(24)} ${fmt(s.rps)} req/s  p50 ${fmt(s.p50, 2)} ms  p99 ${fmt(s.p99, 2)} ms` +
          `  cpu ${fmt(s.cpu, 1)} µs/req  vs off ${(s.rps / off.rps).toFixed(3)} (loss ` +
          `${(loss * 100).toFixed(1)} %; per round ${median(ratios).toFixed(3)}, ` +
          `${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)})`,
      );
    });
    const first = configs.findIndex((c) => c.label === 'metrics + tracing 0.01');
    if (first !== -1) {
      const loss = 1 - sums[first]!.rps / off.rps;
      console.log(
        `  target: metrics + tracing 0.01 lose <= ${TARGET_LOSS * 100} %: ` +
          `${loss <= TARGET_LOSS ? 'met' : 'NOT met'} (${(loss * 100).toFixed(1)} %)`,
      );
    }
    console.log(
      `  the sink received ${fmt(sinkAfter.exports - sinkBefore.exports)} exports, ` +
        `${fmt(sinkAfter.bytes - sinkBefore.bytes)} bytes`,
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
