/*
 * The single executable's size, and its start-up time to SERVING on a new embedded SQLite
 * database (spawn to the "serving" log line: the migrations run each time), beside the same
 * start from the checkout (`node <VEXIL_NODE_FLAGS> dist/src/app/cli.js serve`, the baseline),
 * alternating, in the same run. The executable runs from a directory holding only itself, with
 * an empty environment; its first start (empty cache directory: the embedded files are written)
 * is reported apart.
 *   npm run bench:executable [-- --rounds=7]
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, median, numberOption, VEXIL_NODE_FLAGS } from '../http/processes';

// Run from dist/bench/executable/.
const ROOT = path.resolve(__dirname, '../../..');
const EXECUTABLE = path.join(ROOT, 'build', 'vexil');
const CLI = path.join(ROOT, 'dist', 'src', 'app', 'cli.js');
const ROUNDS = numberOption('rounds', process.argv.slice(2), 7);
const TARGET_MS = 1000;

interface Start {
  /** Wall-clock milliseconds from spawn to the "serving" line. */
  readonly ms: number;
  /** CPU milliseconds (user + system) the process had used by then. */
  readonly cpuMs: number;
}

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** CPU time so far of a process, from /proc/<pid>/stat (utime + stime). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * Spawns, waits for the "serving" line, stops it. Wall time depends on what else the machine
 * runs; CPU time much less so.
 */
function timeToServing(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<Start> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      command,
      [
        ...args,
        'serve',
        '--server.host=127.0.0.1',
        '--server.http_port=0',
        '--server.grpc_port=0',
        '--log.encoding=json',
      ],
      { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    let servedAt: number | undefined;
    let cpuMs = 0;
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (servedAt === undefined && output.includes('"message":"serving"')) {
        servedAt = performance.now();
        cpuMs = cpuMsOf(child.pid as number);
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => {
      if (servedAt === undefined) reject(new Error(`${command} exited ${code}:\n${output}`));
      else resolve({ ms: servedAt - started, cpuMs });
    });
  });
}

/** A node process that only reports the CPU time it used, to its exit. */
function bareNodeStart(): Promise<Start> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['-e', 'const u = process.cpuUsage(); process.stdout.write(String(u.user + u.system))'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`node -e exited ${code}`));
      else resolve({ ms: performance.now() - started, cpuMs: Number(out) / 1000 });
    });
  });
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'vexil-bench-executable-'));
  try {
    const alone = path.join(work, 'alone');
    const executableDir = mkdtempSync(`${alone}-`);
    copyFileSync(EXECUTABLE, path.join(executableDir, 'vexil'));
    const cache = path.join(work, 'cache');
    const executable = (round: string) =>
      timeToServing('./vexil', [], executableDir, {
        XDG_CACHE_HOME: cache,
        VEXIL_DB_URL: `file:${path.join(work, `exe-${round}.db`)}`,
      });
    const checkout = (round: string) =>
      timeToServing(process.execPath, [...VEXIL_NODE_FLAGS, CLI], mkdtempSync(`${alone}-`), {
        PATH: process.env['PATH'] ?? '',
        VEXIL_DB_URL: `file:${path.join(work, `node-${round}.db`)}`,
      });

    // How slow this machine is right now: a bare node start, measured in the same run.
    const bare: Start[] = [];
    for (let i = 0; i < 5; i++) bare.push(await bareNodeStart());
    const first = await executable('first');
    const exe: Start[] = [];
    const node: Start[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      exe.push(await executable(String(round)));
      node.push(await checkout(String(round)));
    }
    const size = statSync(EXECUTABLE).size / 1024 / 1024;
    const wall = (xs: Start[]) => median(xs.map((x) => x.ms));
    const cpu = (xs: Start[]) => median(xs.map((x) => x.cpuMs));
    const row = (label: string, xs: Start[]) =>
      `${label.padEnd(44)} ${fmt(wall(xs)).padStart(6)} ms wall  ${fmt(cpu(xs)).padStart(5)} ms CPU` +
      `   (wall: ${xs.map((x) => fmt(x.ms)).join(', ')})`;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    process.stdout.write(
      [
        `build/vexil: ${fmt(size, 1)} MiB, Node ${process.version}, ${process.platform}-${process.arch}`,
        `start-up to SERVING on a new SQLite database, median of ${ROUNDS} (load average ${load}):`,
        row('  executable, first start (writes its files)', [first]),
        row('  executable', exe),
        row('  checkout: node dist/src/app/cli.js (baseline)', node),
        row('  bare node start (node -e 0), for scale', bare),
        `  executable / baseline: ${fmt(wall(exe) / wall(node), 2)} wall, ${fmt(cpu(exe) / cpu(node), 2)} CPU`,
        `  executable / bare node start: ${fmt(wall(exe) / wall(bare), 1)} wall, ${fmt(cpu(exe) / cpu(bare), 1)} CPU`,
        `  target under ${TARGET_MS} ms wall: ${wall(exe) < TARGET_MS ? 'met' : 'missed'}`,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
