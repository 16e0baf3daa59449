/*
 * What metrics and tracing cost an HTTP evaluation, under wrk: three Vexil servers on the same
 * core (0), each warmed up and then measured, one after the other (each round starting with
 * the next one), wrk on core 1 (50 connections), POST /evaluate/v1/boolean, with three new
 * server processes every round:
 *   - "off": VEXIL_METRICS_ENABLED=false, tracing disabled;
 *   - "metrics": metrics enabled (per-request HTTP and evaluation series), tracing disabled
 *     (the default configuration);
 *   - "on":  metrics enabled and tracing enabled with sampling ratio `--sampling` (default 1),
 *     spans exported over OTLP/HTTP to a local sink (otlp-sink.ts, on core 1).
 * All use the same log level (VEXIL_LOG_LEVEL, default warn) and encoding (json). Each server
 * is scraped (GET /metrics) right before and after its measurement, all three alike.
 *   npx tsc -p tsconfig.build.json && node dist/bench/http-observability/run.js \
 *     [--duration=5 --rounds=3 --connections=50 --warmup=40 --sampling=1]
 * The target: "on" loses at most 5 % of the throughput of "off" (reported for "metrics" too).
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
 * state it serves in for the rest of its life. A new server with metrics on took 6 to 9 s of
 * load to reach its steady throughput (1-s windows from its first request), one with
 * everything off about 3 s. The traced requests' code takes longer: V8 optimizes a function
 * once it has run often enough (hundreds to thousands of calls), and at a sampling ratio of
 * 0.001 (about 50 traced requests a second here) the tracer's functions were optimized
 * between 5 and 40 s of load; until then every traced request runs unoptimized code
 * (docs/performance.md, observability "Tenth pass"). `--warmup=5` measures a new server's
 * first seconds instead.
 */
const WARMUP = numberOption('warmup', argv, 40);
/** tracing.sampling_ratio of the "on" server. */
const SAMPLING = numberOption('sampling', argv, 1);
const FLAG = 'bench-flag-000';
const TARGET_LOSS = 0.05;

const line = (label: string, r: Measured): string =>
  `${label.padEnd(30)} ${fmt(r.requestsPerSecond).padStart(9)} req/s` +
  `  p50 ${fmt(r.p50Ms, 2).padStart(6)} ms  p99 ${fmt(r.p99Ms, 2).padStart(6)} ms` +
  `  cpu ${fmt(r.cpuMicros, 1).padStart(6)} µs/req`;

const measure = (url: string, script: string, seconds: number, serverPid: number) =>
  measureWrk({ url, script, seconds, connections: CONNECTIONS, serverPid });

async function sinkStats(port: number): Promise<{ exports: number; spans: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/stats`);
  return (await res.json()) as { exports: number; spans: number };
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

    const configs = [
      { VEXIL_METRICS_ENABLED: 'false', VEXIL_TRACING_ENABLED: 'false' },
      { VEXIL_METRICS_ENABLED: 'true', VEXIL_TRACING_ENABLED: 'false' },
      {
        VEXIL_METRICS_ENABLED: 'true',
        VEXIL_TRACING_ENABLED: 'true',
        VEXIL_TRACING_SAMPLING_RATIO: String(SAMPLING),
        VEXIL_TRACING_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}`,
      },
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

    const offRuns: Measured[] = [];
    const metricsRuns: Measured[] = [];
    const onRuns: Measured[] = [];
    let onRequests = 0;
    let counted = 0;
    const spansBefore = await sinkStats(sinkPort);
    for (let round = 1; round <= ROUNDS; round++) {
      // New processes every round: a server's speed varies a few percent from one process to
      // the next (code layout, JIT decisions), and the median over rounds evens that out.
      const servers: Vexil[] = [];
      for (const env of configs) {
        const v = await startVexil([], env);
        children.push(v);
        servers.push(v);
        await seedSegment(v.httpPort);
        await seedBooleanFlag(v.httpPort, FLAG);
        await api(v.httpPort, 'POST', '/evaluate/v1/boolean', { flagKey: FLAG, entityId: ids[0] });
      }
      const [off, metricsOnly, on] = servers as [Vexil, Vexil, Vexil];
      if (round === 1) {
        const offMetrics = await fetch(`http://127.0.0.1:${off.httpPort}/metrics`);
        if (
          offMetrics.status === 200 &&
          (await offMetrics.text()).includes('vexil_http_requests')
        ) {
          throw new Error(
            '"off" still counts HTTP requests: VEXIL_METRICS_ENABLED=false not applied',
          );
        }
      }
      // Each round starts with a different server, so none is always measured first or last
      // while the machine's speed drifts. Each is warmed up right before it is measured: a
      // server measured 30 s after its last load served 10 to 15 % fewer requests in the
      // next 5 s than right after it.
      const measured = new Map<Vexil, Measured>();
      for (let i = 0; i < servers.length; i++) {
        const v = servers[(round - 1 + i) % servers.length]!;
        await measure(url(v), script, WARMUP, v.pid);
        // Every server is scraped right before and after its measurement ("off" answers 404),
        // so all three see the same requests: a request off the evaluation path raises the
        // p99 of the seconds after it.
        const before = await requestsCounted(v);
        const r = await measure(url(v), script, DURATION, v.pid);
        const after = await requestsCounted(v);
        measured.set(v, r);
        if (v === on) counted += after - before;
      }
      const [a, m, b] = [measured.get(off)!, measured.get(metricsOnly)!, measured.get(on)!];
      offRuns.push(a);
      metricsRuns.push(m);
      onRuns.push(b);
      onRequests += b.requestsPerSecond * DURATION;
      // Stopping "on" flushes the spans it still holds to the sink.
      for (const v of servers) {
        await v.stop();
        children.splice(children.indexOf(v), 1);
      }
      console.log(`round ${round}`);
      console.log(`  ${line('metrics and tracing off', a)}`);
      console.log(
        `  ${line('metrics on, tracing off', m)}  ratio ${(m.requestsPerSecond / a.requestsPerSecond).toFixed(3)}`,
      );
      console.log(
        `  ${line(`metrics and tracing (${SAMPLING}) on`, b)}  ratio ${(b.requestsPerSecond / a.requestsPerSecond).toFixed(3)}`,
      );
    }
    const spansAfter = await sinkStats(sinkPort);

    const summary = (runs: readonly Measured[]) => ({
      rps: median(runs.map((r) => r.requestsPerSecond)),
      p50: median(runs.map((r) => r.p50Ms)),
      p99: median(runs.map((r) => r.p99Ms)),
      cpu: median(runs.map((r) => r.cpuMicros)),
    });
    const a = summary(offRuns);
    const m = summary(metricsRuns);
    const b = summary(onRuns);
    const loss = 1 - b.rps / a.rps;
    const metricsLoss = 1 - m.rps / a.rps;
    console.log(`\nmedians of ${ROUNDS} rounds`);
    for (const [label, s] of [
      ['off    ', a],
      ['metrics', m],
      ['on     ', b],
    ] as const) {
      console.log(
        `  ${label}  ${fmt(s.rps)} req/s  p50 ${fmt(s.p50, 2)} ms  p99 ${fmt(s.p99, 2)} ms  cpu ${fmt(s.cpu, 1)} µs/req`,
      );
    }
    console.log(
      `  on/off ${(b.rps / a.rps).toFixed(3)}; loss ${(loss * 100).toFixed(1)} % ` +
        `(target <= ${TARGET_LOSS * 100} %: ${loss <= TARGET_LOSS ? 'met' : 'NOT met'}); ` +
        `cpu per request +${fmt(b.cpu - a.cpu, 1)} µs`,
    );
    console.log(
      `  metrics/off ${(m.rps / a.rps).toFixed(3)}; loss ${(metricsLoss * 100).toFixed(1)} % ` +
        `(target <= ${TARGET_LOSS * 100} %: ${metricsLoss <= TARGET_LOSS ? 'met' : 'NOT met'}); ` +
        `cpu per request +${fmt(m.cpu - a.cpu, 1)} µs`,
    );
    // The three servers of a round are measured within a minute of each other, so a ratio
    // taken inside each round is less exposed to the machine's drift than the ratio of the
    // medians above; both are printed, the target is judged on the one above.
    const perRound = (xs: readonly Measured[]) => {
      const ratios = xs.map((x, i) => x.requestsPerSecond / offRuns[i]!.requestsPerSecond);
      return `median ${median(ratios).toFixed(3)}, from ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}`;
    };
    console.log(`  per-round on/off: ${perRound(onRuns)}; metrics/off: ${perRound(metricsRuns)}`);
    console.log(
      `  "on" counted ${fmt(counted)} HTTP requests in /metrics for about ${fmt(onRequests)} sent ` +
        `(warm-ups excluded); with warm-ups, the sink received ${fmt(spansAfter.exports - spansBefore.exports)} ` +
        `exports holding ${fmt(spansAfter.spans - spansBefore.spans)} spans`,
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
