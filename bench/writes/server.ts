/*
 * The Vexil process of the writes benchmark: `vexil serve` pinned to the server core, on a given
 * database, reporting its event-loop delay (BENCH_EVENT_LOOP_MS, src/app/event-loop-report.ts).
 * BENCH_PIN=main-thread pins only its event-loop thread (see pinMainThreadOnly).
 */
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { freePort, ROOT, SERVER_CORE, VEXIL_NODE_FLAGS } from '../http/processes';

export interface LoopReport {
  readonly maxDelayMs: number;
  readonly p99DelayMs: number;
  readonly rssMB: number;
}

export interface BenchServer {
  readonly httpPort: number;
  readonly pid: number;
  /** Milliseconds from spawn to /health SERVING. */
  readonly startMs: number;
  /** Event-loop reports received since the last call. */
  takeReports(): LoopReport[];
  /** Resolves when the next event-loop report arrives. */
  nextReport(): Promise<void>;
  stop(): Promise<void>;
}

export async function startBenchServer(env: NodeJS.ProcessEnv): Promise<BenchServer> {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const started = Date.now();
  const child = spawn(
    'taskset',
    [
      '-c',
      SERVER_CORE,
      process.execPath,
      ...VEXIL_NODE_FLAGS,
      path.join(ROOT, 'dist', 'src', 'app', 'cli.js'),
      'serve',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        VEXIL_SERVER_HOST: '127.0.0.1',
        VEXIL_SERVER_HTTP_PORT: String(httpPort),
        VEXIL_SERVER_GRPC_PORT: String(grpcPort),
        VEXIL_LOG_ENCODING: 'json',
        VEXIL_LOG_LEVEL: 'warn',
        BENCH_EVENT_LOOP_MS: '200',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let reports: LoopReport[] = [];
  const waiting: Array<() => void> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed['benchEventLoop'] === true) {
        reports.push(parsed as unknown as LoopReport);
        for (const resolve of waiting.splice(0)) resolve();
      }
    } catch {
      // a log line that is not JSON
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vexil exited (${child.exitCode}): ${stderr}`);
    try {
      const res = await fetch(`http://127.0.0.1:${httpPort}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`vexil did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  if (process.env['BENCH_PIN'] === 'main-thread' && child.pid !== undefined) {
    pinMainThreadOnly(child.pid);
  }
  return {
    httpPort,
    pid: child.pid ?? 0,
    startMs: Date.now() - started,
    nextReport: () => new Promise<void>((resolve) => waiting.push(resolve)),
    takeReports: () => {
      const out = reports;
      reports = [];
      return out;
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * BENCH_PIN=main-thread: only the event-loop thread stays on the server core; V8's garbage
 * collection helpers and libuv's pool may run on any core, as on a machine with cores to spare.
 * With the whole process on one core (the default), the collector's concurrent marking threads
 * take turns with the event loop, and those turns show up as event-loop stalls.
 */
function pinMainThreadOnly(pid: number): void {
  const all = `0-${availableParallelism() - 1}`;
  // Every thread of the process first (-a), then the main thread, whose id is the pid.
  execFileSync('taskset', ['-apc', all, String(pid)], { stdio: 'ignore' });
  execFileSync('taskset', ['-pc', SERVER_CORE, String(pid)], { stdio: 'ignore' });
}
