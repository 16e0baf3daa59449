/*
 * What a quiet spell costs a server: HTTP boolean evaluations under wrk (50 connections,
 * server on core 0, wrk on core 1), then `--idle` seconds without requests, then the same load
 * again. Two new servers every round, measured alternately:
 *   - "as launched": VEXIL_NODE_FLAGS, which include --no-memory-reducer;
 *   - "memory reducer on": the same, with V8's memory reducer switched back on (the baseline).
 * Each is warmed up and measured ("before"), both then sit idle, and each is measured again
 * ("after"); "after/before" is the share of its throughput a server kept.
 *   npm run bench:idle [-- --duration=5 --idle=30 --rounds=2 --warmup=5]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  entityIds,
  fmt,
  median,
  numberOption,
  requireTool,
  seedBooleanFlag,
  seedSegment,
  startVexil,
  VEXIL_NODE_FLAGS,
  type Vexil,
} from '../http/processes';
import { measureWrk, writePostScript, type Measured } from '../http/wrk';

const argv = process.argv.slice(2);
const DURATION = numberOption('duration', argv, 5);
const IDLE = numberOption('idle', argv, 30);
const ROUNDS = numberOption('rounds', argv, 2);
const WARMUP = numberOption('warmup', argv, 5);
const FLAG = 'bench-flag-000';

interface Case {
  readonly label: string;
  readonly nodeArgs: readonly string[];
  readonly kept: number[];
  readonly before: number[];
  readonly after: number[];
}

const rssMegabytes = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

const line = (label: string, r: Measured): string =>
  `${label.padEnd(34)} ${fmt(r.requestsPerSecond).padStart(9)} req/s  p99 ${fmt(r.p99Ms, 2).padStart(6)} ms` +
  `  cpu ${fmt(r.cpuMicros, 1).padStart(5)} µs/req`;

async function main(): Promise<void> {
  requireTool('wrk', 'apt-get install wrk');
  requireTool('taskset', 'apt-get install util-linux');
  if (!VEXIL_NODE_FLAGS.includes('--no-memory-reducer')) {
    throw new Error('VEXIL_NODE_FLAGS no longer switch the memory reducer off');
  }
  const work = mkdtempSync(path.join(tmpdir(), 'vexil-bench-http-idle-'));
  const cases: Case[] = [
    { label: 'as launched', nodeArgs: [], kept: [], before: [], after: [] },
    // A later V8 flag overrides an earlier one.
    {
      label: 'memory reducer on',
      nodeArgs: ['--memory-reducer'],
      kept: [],
      before: [],
      after: [],
    },
  ];
  const script = path.join(work, 'boolean.lua');
  writePostScript(
    script,
    entityIds(64).map((entityId) =>
      JSON.stringify({ namespaceKey: 'default', flagKey: FLAG, entityId, context: {} }),
    ),
  );
  const measure = (v: Vexil, seconds: number) =>
    measureWrk({
      url: `http://127.0.0.1:${v.httpPort}/evaluate/v1/boolean`,
      script,
      seconds,
      connections: 50,
      serverPid: v.pid,
    });
  console.log(
    `node ${process.version}; ${ROUNDS} rounds: warm-up ${WARMUP} s, ${DURATION} s measured, ` +
      `${IDLE} s idle, ${DURATION} s measured; new servers each round`,
  );
  const servers: Vexil[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? cases : [...cases].reverse();
      const started = new Map<Case, Vexil>();
      for (const c of order) {
        const v = await startVexil(c.nodeArgs);
        servers.push(v);
        started.set(c, v);
        await seedSegment(v.httpPort);
        await seedBooleanFlag(v.httpPort, FLAG);
      }
      const before = new Map<Case, Measured>();
      for (const c of order) {
        const v = started.get(c)!;
        await measure(v, WARMUP);
        before.set(c, await measure(v, DURATION));
      }
      // Each server sits idle for IDLE s plus the other's measurement.
      await new Promise((resolve) => setTimeout(resolve, IDLE * 1000));
      console.log(`round ${round}`);
      for (const c of order) {
        const v = started.get(c)!;
        const rss = rssMegabytes(v.pid);
        const a = before.get(c)!;
        const b = await measure(v, DURATION);
        c.before.push(a.requestsPerSecond);
        c.after.push(b.requestsPerSecond);
        c.kept.push(b.requestsPerSecond / a.requestsPerSecond);
        console.log(`  ${line(`${c.label}, before`, a)}`);
        console.log(
          `  ${line(`${c.label}, after ${IDLE} s idle`, b)}  kept ${(b.requestsPerSecond / a.requestsPerSecond).toFixed(3)}` +
            `  (RSS ${fmt(rss)} MB when idle)`,
        );
      }
      for (const v of started.values()) {
        await v.stop();
        servers.splice(servers.indexOf(v), 1);
      }
    }
    console.log(`\nmedians of ${ROUNDS} rounds`);
    for (const c of cases) {
      console.log(
        `  ${c.label.padEnd(18)} before ${fmt(median(c.before))} req/s, after ${fmt(median(c.after))} req/s, ` +
          `kept ${median(c.kept).toFixed(3)}`,
      );
    }
  } finally {
    for (const v of servers) await v.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
