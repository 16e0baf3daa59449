/*
 * Child processes of the HTTP and gRPC benchmarks: Vexil itself (embedded SQLite in a temp
 * directory), the baselines, and the load generators, each pinned to a core with taskset.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

/** The repository root (this file runs as dist/bench/http/processes.js). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const SERVER_CORE = '0';
export const LOAD_CORE = '1';

export interface Child {
  readonly process: ChildProcess;
  /** The first JSON line of stdout that satisfied `readyWhen`. */
  readonly ready: Record<string, unknown>;
  stop(): Promise<void>;
}

/** Fails early with a clear message when a tool the benchmark needs is missing. */
export function requireTool(name: string, hint: string): void {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  if (found.status !== 0) throw new Error(`${name} not found: ${hint}`);
}

/**
 * Starts `node <script> <args>` pinned to `core`, resolving once a stdout line parses as
 * JSON and satisfies `readyWhen`. Other stdout lines are dropped unless `echo` is set.
 */
export function startNode(options: {
  readonly core: string;
  readonly script: string;
  readonly args?: readonly string[];
  readonly nodeArgs?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Without it the child counts as ready once spawned (e.g. readiness is polled). */
  readonly readyWhen?: (line: Record<string, unknown>) => boolean;
  readonly timeoutMs?: number;
}): Promise<Child> {
  const child = spawn(
    'taskset',
    [
      '-c',
      options.core,
      process.execPath,
      ...(options.nodeArgs ?? []),
      options.script,
      ...(options.args ?? []),
    ],
    {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const readyWhen = options.readyWhen;
  if (readyWhen === undefined) {
    child.stdout?.resume();
    return Promise.resolve({ process: child, ready: {}, stop });
  }
  return new Promise<Child>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${options.script} did not start in time; stderr: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return;
      }
      if (typeof parsed === 'object' && parsed !== null) {
        const fields = parsed as Record<string, unknown>;
        if (readyWhen(fields)) {
          clearTimeout(timer);
          resolve({ process: child, ready: fields, stop });
        }
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${options.script} exited (${code ?? signal}) before ready: ${stderr}`));
    });
  });
}

export interface Vexil {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * The V8 flags Vexil is started with by the `vexil` command, `npm start` and the container
 * image (docs/operations.md, "Running"); test/unit/app/launch-flags.test.ts keeps them in step.
 */
export const VEXIL_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=4',
  '--max-inlined-bytecode-size-cumulative=3000',
  '--no-memory-reducer',
  '--heap-growing-percent=100',
  '--v8-pool-size=1',
];

/**
 * Vexil on an embedded SQLite file in a fresh temp directory, both ports ephemeral, pinned
 * to the server core, started with VEXIL_NODE_FLAGS as its launchers start it. Log level warn unless VEXIL_LOG_LEVEL says otherwise, so the access
 * log (info) is only measured when asked for. `env` adds or overrides configuration.
 */
export async function startVexil(
  nodeArgs: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Vexil> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vexil-bench-'));
  // At warn the "listening" line (info) is not written, so the ports are chosen here.
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  let child: Child | undefined;
  try {
    child = await startNode({
      core: SERVER_CORE,
      script: path.join(ROOT, 'dist', 'src', 'app', 'cli.js'),
      args: ['serve'],
      nodeArgs: [...VEXIL_NODE_FLAGS, ...nodeArgs],
      cwd: dir,
      env: {
        VEXIL_SERVER_HOST: '127.0.0.1',
        VEXIL_SERVER_HTTP_PORT: String(httpPort),
        VEXIL_SERVER_GRPC_PORT: String(grpcPort),
        VEXIL_LOG_ENCODING: 'json',
        VEXIL_LOG_LEVEL: process.env['VEXIL_LOG_LEVEL'] ?? 'warn',
        // Nothing balances a bench's traffic: stop at once.
        VEXIL_SERVER_SHUTDOWN_DRAIN: '0s',
        VEXIL_DB_URL: `file:${path.join(dir, 'vexil.db')}`,
        ...env,
      },
    });
    await waitForServing(httpPort, child.process);
  } catch (err) {
    await child?.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const started = child;
  return {
    httpPort,
    grpcPort,
    pid: started.process.pid ?? 0,
    stop: async () => {
      await started.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port free right now on the loopback address (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForServing(httpPort: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Vexil exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${httpPort}/health`);
      if (res.ok) return;
    } catch {
      // not accepting yet
    }
    if (Date.now() > deadline) throw new Error('Vexil did not become SERVING in 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One REST call; any status other than 200 aborts the benchmark. */
export async function api(
  httpPort: number,
  method: string,
  route: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${httpPort}${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export const BENCH_SEGMENT = 'bench-segment';

/**
 * A boolean flag behind a segment rollout on one constraint (plan == "enterprise"), then a
 * 50 % threshold rollout: the evaluated entities miss the segment, so both rollouts run.
 */
export async function seedBooleanFlag(httpPort: number, flagKey: string): Promise<void> {
  const ns = '/api/v1/namespaces/default';
  await api(httpPort, 'POST', `${ns}/flags`, {
    key: flagKey,
    name: flagKey,
    type: 'BOOLEAN_FLAG_TYPE',
    enabled: false,
  });
  await api(httpPort, 'POST', `${ns}/flags/${flagKey}/rollouts`, {
    rank: 1,
    segment: { segmentKey: BENCH_SEGMENT, value: true },
  });
  await api(httpPort, 'POST', `${ns}/flags/${flagKey}/rollouts`, {
    rank: 2,
    threshold: { percentage: 50, value: true },
  });
}

export async function seedSegment(httpPort: number): Promise<void> {
  const ns = '/api/v1/namespaces/default';
  await api(httpPort, 'POST', `${ns}/segments`, {
    key: BENCH_SEGMENT,
    name: BENCH_SEGMENT,
    matchType: 'ALL_MATCH_TYPE',
  });
  await api(httpPort, 'POST', `${ns}/segments/${BENCH_SEGMENT}/constraints`, {
    type: 'STRING_COMPARISON_TYPE',
    property: 'plan',
    operator: 'eq',
    value: 'enterprise',
  });
}

/** Entity ids the load generators cycle through, so the hash is not always the same. */
export const entityIds = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `user-${(i * 7919).toString(16).padStart(8, '0')}`);

/** A number with thousands separators and `digits` decimals, for bench reports. */
export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

export function numberOption(name: string, argv: readonly string[], fallback: number): number {
  const flag = `--${name}=`;
  const fromArgv = argv.find((a) => a.startsWith(flag))?.slice(flag.length);
  const raw = fromArgv ?? process.env[`BENCH_${name.toUpperCase().replace(/-/g, '_')}`];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc: per request, it shows
 * what a server costs even when other load on the machine moves the req/s figures.
 */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

const CLOCK_TICKS = Number(
  spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || '100',
);
