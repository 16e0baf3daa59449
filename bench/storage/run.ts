/*
 * Write latency on embedded SQLite: sequential flag creates (POST /api/v1/namespaces/default/flags)
 * against a fresh Vexil process, p50 and p99 as the client sees them. With BENCH_BASELINE set to
 * the root of another build (for example main, built in a directory of its own), both builds run
 * in alternating rounds of the same run and the ratio this/baseline is printed.
 *   npm run bench:storage
 *   BENCH_BASELINE=/tmp/vexil-main npm run bench:storage
 * STORAGE_WRITES (default 400) writes per round, STORAGE_ROUNDS (default 5) rounds per build.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  ROOT,
  SERVER_CORE,
  VEXIL_NODE_FLAGS,
  fmt,
  freePort,
  median,
  startNode,
} from '../http/processes';

const WRITES = Number(process.env['STORAGE_WRITES'] ?? 400);
const ROUNDS = Number(process.env['STORAGE_ROUNDS'] ?? 5);
const WARMUP = 50;

interface Build {
  readonly name: string;
  readonly root: string;
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

async function waitForHealth(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return;
    } catch {
      // not accepting yet
    }
    if (Date.now() > deadline) throw new Error('Vexil did not become SERVING in 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function createFlag(port: number, key: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/namespaces/default/flags`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key, name: key, type: 'VARIANT_FLAG_TYPE', enabled: true }),
  });
  await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`create ${key}: ${res.status}`);
  return ms;
}

/** One round: a fresh process on a fresh database, WARMUP creates, then WRITES timed ones. */
async function round(build: Build, n: number): Promise<number[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vexil-bench-storage-'));
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const child = await startNode({
    core: SERVER_CORE,
    script: path.join(build.root, 'dist', 'src', 'app', 'cli.js'),
    args: ['serve'],
    nodeArgs: [...VEXIL_NODE_FLAGS],
    cwd: dir,
    env: {
      VEXIL_SERVER_HOST: '127.0.0.1',
      VEXIL_SERVER_HTTP_PORT: String(httpPort),
      VEXIL_SERVER_GRPC_PORT: String(grpcPort),
      VEXIL_LOG_LEVEL: 'warn',
      VEXIL_DB_URL: `file:${path.join(dir, 'vexil.db')}`,
      // Nothing balances a bench's traffic: stop at once.
      VEXIL_SERVER_SHUTDOWN_DRAIN: '0s',
    },
  });
  try {
    await waitForHealth(httpPort);
    for (let i = 0; i < WARMUP; i++) await createFlag(httpPort, `warm-${n}-${i}`);
    const times: number[] = [];
    for (let i = 0; i < WRITES; i++) times.push(await createFlag(httpPort, `flag-${n}-${i}`));
    return times;
  } finally {
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const builds: Build[] = [{ name: 'this build', root: ROOT }];
  const baseline = process.env['BENCH_BASELINE'];
  if (baseline) builds.unshift({ name: `baseline (${baseline})`, root: path.resolve(baseline) });
  const p50s = new Map<string, number[]>(builds.map((b) => [b.name, []]));
  const p99s = new Map<string, number[]>(builds.map((b) => [b.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const build of builds) {
      const sorted = (await round(build, r)).sort((a, b) => a - b);
      p50s.get(build.name)?.push(quantile(sorted, 0.5));
      p99s.get(build.name)?.push(quantile(sorted, 0.99));
    }
  }
  console.log(`flag create on SQLite, ${WRITES} sequential writes x ${ROUNDS} rounds per build`);
  for (const build of builds) {
    const a = p50s.get(build.name) ?? [];
    const b = p99s.get(build.name) ?? [];
    console.log(
      `  ${build.name}: p50 ${fmt(median(a), 3)} ms (rounds ${a.map((x) => fmt(x, 3)).join(' ')}), ` +
        `p99 ${fmt(median(b), 3)} ms`,
    );
  }
  if (builds.length === 2) {
    const [base, self] = builds.map((b) => median(p50s.get(b.name) ?? []));
    console.log(`  p50 ratio this/baseline: ${fmt((self ?? 0) / (base ?? 1), 3)}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
