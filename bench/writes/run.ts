/*
 * Evaluations while the configuration is written: HTTP variant evaluations under wrk (50
 * connections, server on core 0, wrk on core 1) against a namespace of N flags with 5 rules
 * each (seeded as bench/scale does), while one flag is updated (PUT) at 0, 0.5, 2 and 5 writes
 * a second. Each rate is compared with the idle run (0 writes/s) of the same server. Also:
 * the cold load (first evaluation after start; then the time until the whole namespace is
 * held, and the longest event-loop stall meanwhile), the longest event-loop delay seen by the
 * server (monitorEventLoopDelay, resolution 1 ms) and its RSS; then a scrape of /metrics with
 * every flag evaluated (bench/writes/scrape.ts).
 * Rates are measured in rounds (idle, 0.5, 2, 5, idle, 0.5, ...) and each figure is the median
 * of its rounds, so that a burst of other load on a shared machine moves one round, not the
 * table.
 *   npm run bench:writes [-- --duration=5 --warmup=3 --rounds=3 --flags=1000,10000 --rates=0,0.5,2,5]
 *   BENCH_BACKEND=postgres (with VEXIL_TEST_POSTGRES_URL and VEXIL_TEST_REDIS_URL): the same on
 *   PostgreSQL with caching on the Redis backend.
 *   BENCH_PIN=main-thread: only the server's event-loop thread on its core (bench/writes/server.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fmt, median, numberOption, requireTool } from '../http/processes';
import { measureWrk, writePostScript } from '../http/wrk';
import { NAMESPACE, seedScaleDatabase } from '../scale/seed';
import { prepareBackend } from './backend';
import { measureScrape } from './scrape';
import { startBenchServer, type BenchServer, type LoopReport } from './server';

const argv = process.argv.slice(2);
const DURATION = numberOption('duration', argv, 5);
const WARMUP = numberOption('warmup', argv, 3);
/** Each rate is measured this many times, in rounds over all rates; the median round is shown. */
const ROUNDS = numberOption('rounds', argv, 3);
const listOption = (name: string, fallback: readonly number[]): number[] => {
  const raw =
    argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ??
    process.env[`BENCH_${name.toUpperCase()}`];
  return raw === undefined ? [...fallback] : raw.split(',').map(Number);
};
const FLAG_COUNTS = listOption('flags', [1000, 10_000]);
const RATES = listOption('rates', [0, 0.5, 2, 5]);
const BACKEND = process.env['BENCH_BACKEND'] ?? 'sqlite';
const CONNECTIONS = 50;

interface Row {
  readonly rate: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly writes: number;
  readonly writeP50Ms: number;
  readonly writeMaxMs: number;
  readonly loopMaxMs: number;
  readonly rssMB: number;
}

const evaluationBody = (flags: number, i: number): string =>
  JSON.stringify({
    namespaceKey: NAMESPACE,
    flagKey: `flag-${(i * 7919) % flags}`,
    entityId: `user-${i}`,
    context: { plan: `p${i % 50}`, age: String(i % 80) },
  });

/** PUTs of one flag at `rate` a second until `stop` resolves; latencies in ms. */
async function writeAtRate(
  server: BenchServer,
  rate: number,
  flags: number,
  stop: Promise<void>,
): Promise<number[]> {
  const latencies: number[] = [];
  if (rate <= 0) {
    await stop;
    return latencies;
  }
  let done = false;
  void stop.then(() => (done = true));
  const inflight = new Set<Promise<void>>();
  let n = 0;
  const started = performance.now();
  while (!done) {
    const key = `flag-${(n * 104_729) % flags}`;
    const body = JSON.stringify({ key, name: key, description: `write ${n}`, enabled: true });
    const t = performance.now();
    const p = fetch(
      `http://127.0.0.1:${server.httpPort}/api/v1/namespaces/${NAMESPACE}/flags/${key}`,
      {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body,
      },
    ).then(async (res) => {
      await res.text();
      if (res.status !== 200) throw new Error(`PUT ${key}: ${res.status}`);
      latencies.push(performance.now() - t);
    });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
    n += 1;
    const next = started + (n * 1000) / rate;
    await Promise.race([
      stop,
      new Promise((r) => setTimeout(r, Math.max(0, next - performance.now()))),
    ]);
  }
  await Promise.all(inflight);
  return latencies;
}

/** Each figure the median of its rounds (write latencies and stalls too). */
function medianRow(rows: readonly Row[]): Row {
  const m = (f: (r: Row) => number): number => median(rows.map(f));
  return {
    rate: rows[0]?.rate ?? 0,
    rps: m((r) => r.rps),
    p50Ms: m((r) => r.p50Ms),
    p99Ms: m((r) => r.p99Ms),
    writes: m((r) => r.writes),
    writeP50Ms: m((r) => r.writeP50Ms),
    writeMaxMs: m((r) => r.writeMaxMs),
    loopMaxMs: m((r) => r.loopMaxMs),
    rssMB: Math.max(...rows.map((r) => r.rssMB)),
  };
}

const maxOf = (xs: readonly number[]): number => (xs.length === 0 ? 0 : Math.max(...xs));

async function measure(
  server: BenchServer,
  script: string,
  rate: number,
  flags: number,
): Promise<Row> {
  server.takeReports();
  let finish: () => void = () => undefined;
  const stop = new Promise<void>((resolve) => (finish = resolve));
  const writes = writeAtRate(server, rate, flags, stop);
  const result = await measureWrk({
    url: `http://127.0.0.1:${server.httpPort}/evaluate/v1/variant`,
    script,
    seconds: DURATION,
    connections: CONNECTIONS,
    serverPid: server.pid,
  }).finally(finish);
  const latencies = await writes;
  await new Promise((r) => setTimeout(r, 250));
  const reports: LoopReport[] = server.takeReports();
  return {
    rate,
    rps: result.requestsPerSecond,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    writes: latencies.length,
    writeP50Ms: latencies.length === 0 ? 0 : median(latencies),
    writeMaxMs: maxOf(latencies),
    loopMaxMs: maxOf(reports.map((r) => r.maxDelayMs)),
    rssMB: maxOf(reports.map((r) => r.rssMB)),
  };
}

interface ColdLoad {
  /** The first evaluation after start. */
  readonly firstMs: number;
  /** From that evaluation until the whole namespace's snapshot is held. */
  readonly wholeMs: number;
  /** The longest event-loop stall meanwhile. */
  readonly loopMaxMs: number;
}

/** Whether the server has compiled a snapshot of `scale` (its rebuild histogram counted one). */
async function snapshotHeld(server: BenchServer): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${server.httpPort}/metrics`);
  const text = await res.text();
  return /^vexil_snapshot_rebuild_seconds_count\{namespace="scale"\} [1-9]/m.test(text);
}

async function coldLoad(server: BenchServer, flags: number): Promise<ColdLoad> {
  // Each report covers the loop since the one before: the first after SERVING can still hold
  // the end of start-up (tens of ms listening and serving the first /health), so the cold
  // load's window opens at a report.
  await server.nextReport();
  server.takeReports();
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${server.httpPort}/evaluate/v1/variant`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: evaluationBody(flags, 1),
  });
  await res.text();
  if (res.status !== 200) throw new Error(`first evaluation: ${res.status}`);
  const firstMs = performance.now() - t;
  // Meanwhile the whole namespace loads in the background: wait for it, and for the report
  // of the loop's delay that covers its end.
  const deadline = t + 30_000;
  while (!(await snapshotHeld(server))) {
    if (performance.now() > deadline) throw new Error('the whole namespace did not load in 30 s');
    // /metrics is a piece of work of its own: asked for every 100 ms, not in a tight loop.
    await new Promise((r) => setTimeout(r, 100));
  }
  const wholeMs = performance.now() - t;
  await new Promise((r) => setTimeout(r, 450));
  return { firstMs, wholeMs, loopMaxMs: maxOf(server.takeReports().map((r) => r.maxDelayMs)) };
}

async function runSize(work: string, flags: number): Promise<void> {
  const seeded = path.join(work, `scale-${flags}.db`);
  const seedStarted = Date.now();
  await seedScaleDatabase(seeded, flags);
  const backend = await prepareBackend(BACKEND, work, seeded, flags);
  console.log(`${flags} flags seeded (${backend.label}) in ${Date.now() - seedStarted} ms`);
  const script = path.join(work, `eval-${flags}.lua`);
  writePostScript(
    script,
    Array.from({ length: 200 }, (_, i) => evaluationBody(flags, i)),
  );
  const server = await startBenchServer(backend.env);
  try {
    const cold = await coldLoad(server, flags);
    await measureWrk({
      url: `http://127.0.0.1:${server.httpPort}/evaluate/v1/variant`,
      script,
      seconds: WARMUP,
      connections: CONNECTIONS,
      serverPid: server.pid,
    });
    const rounds: Row[][] = RATES.map(() => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [i, rate] of RATES.entries()) {
        rounds[i]?.push(await measure(server, script, rate, flags));
      }
    }
    const rows: Row[] = rounds.map((measured) => medianRow(measured));
    const scrape = await measureScrape(server, flags);
    const idle = rows.find((r) => r.rate === 0) ?? rows[0];
    console.log(
      `\n${flags} flags x 5 rules, ${backend.label}: cold load (first evaluation after start) ` +
        `${fmt(cold.firstMs)} ms; whole namespace held ${fmt(cold.wholeMs)} ms after it, ` +
        `longest loop stall meanwhile ${fmt(cold.loopMaxMs)} ms; start to SERVING ${fmt(server.startMs)} ms`,
    );
    console.log(
      `GET /metrics with every flag evaluated: ${fmt(scrape.ms)} ms, ${fmt(scrape.mb, 1)} MB, ` +
        `${fmt(scrape.lines)} lines; longest loop stall meanwhile ${fmt(scrape.loopMaxMs)} ms`,
    );
    console.log(
      `median of ${ROUNDS} rounds of ${DURATION} s per rate; RSS: the highest seen; ` +
        (process.env['BENCH_PIN'] === 'main-thread'
          ? 'server event-loop thread on core 0, its other threads on any core'
          : 'server process on core 0'),
    );
    console.log(
      'writes/s  evaluations/s  x idle     p50 ms    p99 ms  x idle  writes  write p50 ms  write max ms  longest loop stall ms  RSS MB',
    );
    for (const r of rows) {
      console.log(
        [
          fmt(r.rate, 1).padStart(8),
          fmt(r.rps).padStart(14),
          fmt(idle ? r.rps / idle.rps : NaN, 2).padStart(7),
          fmt(r.p50Ms, 2).padStart(10),
          fmt(r.p99Ms, 2).padStart(9),
          fmt(idle ? r.p99Ms / idle.p99Ms : NaN, 2).padStart(7),
          String(r.writes).padStart(7),
          fmt(r.writeP50Ms, 1).padStart(13),
          fmt(r.writeMaxMs, 1).padStart(13),
          fmt(r.loopMaxMs, 1).padStart(22),
          String(r.rssMB).padStart(7),
        ].join(' '),
      );
    }
    console.log(
      JSON.stringify({
        flags,
        backend: backend.label,
        coldMs: Math.round(cold.firstMs),
        wholeMs: Math.round(cold.wholeMs),
        coldLoopMs: cold.loopMaxMs,
        scrape,
        rows,
      }),
    );
  } finally {
    await server.stop();
    await backend.drop();
  }
}

async function main(): Promise<void> {
  requireTool('wrk', 'apt-get install wrk');
  requireTool('taskset', 'apt-get install util-linux');
  const work = mkdtempSync(path.join(tmpdir(), 'vexil-bench-writes-'));
  try {
    for (const flags of FLAG_COUNTS) await runSize(work, flags);
    console.log(
      `\nload average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
