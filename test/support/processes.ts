import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/*
 * Real processes for the multi-instance and outage tests: Vexil itself (the built CLI), nginx
 * in front of several instances, and private PostgreSQL / Redis servers that a test may stop
 * and start without disturbing the shared test servers other suites use.
 */

const ROOT = resolve(__dirname, '..', '..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const server = createServer();
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => res(port));
    });
  });
}

/** The built CLI (npm test builds first). */
export function vexilCli(): string {
  for (const rel of ['dist/src/app/cli.js', 'dist/app/cli.js']) {
    const path = join(ROOT, rel);
    if (existsSync(path)) return path;
  }
  throw new Error('dist/**/app/cli.js not found: run `npm run build` first');
}

export interface VexilProcess {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly url: string;
  /** Every log line so far (JSON encoded). */
  readonly logs: string[];
  stop(): Promise<void>;
}

async function stopChild(child: ChildProcess, timeoutMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** Starts `vexil serve` on ephemeral ports and waits until it serves (health 200). */
export async function startVexil(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<VexilProcess> {
  const child = spawn(process.execPath, [vexilCli(), 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      VEXIL_SERVER_HOST: '127.0.0.1',
      VEXIL_SERVER_HTTP_PORT: '0',
      VEXIL_SERVER_GRPC_PORT: '0',
      VEXIL_LOG_ENCODING: 'json',
      // Tests stop servers often and nothing balances their traffic: no drain unless asked.
      VEXIL_SERVER_SHUTDOWN_DRAIN: '0s',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  let ports: { httpPort: number; grpcPort: number } | undefined;
  const onData = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      logs.push(line);
      if (ports !== undefined) continue;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (typeof parsed['httpPort'] === 'number' && typeof parsed['grpcPort'] === 'number') {
          ports = { httpPort: parsed['httpPort'], grpcPort: parsed['grpcPort'] };
        }
      } catch {
        // not a JSON line
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const deadline = Date.now() + timeoutMs;
  while (ports === undefined) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`vexil did not start:\n${logs.slice(-20).join('\n')}`);
    }
    await sleep(25);
  }
  const url = `http://127.0.0.1:${ports.httpPort}`;
  for (;;) {
    const ok = await fetch(`${url}/health`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`vexil did not become ready:\n${logs.slice(-20).join('\n')}`);
    }
    await sleep(50);
  }
  return { ...ports, url, logs, stop: () => stopChild(child) };
}

export interface NginxProcess {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * deploy/nginx.conf with its upstream server lines replaced by the given instances, listening
 * on free ports of 127.0.0.1, with pid and logs in a temporary prefix.
 */
export function renderNginxConfig(
  httpUpstreams: readonly number[],
  grpcUpstreams: readonly number[],
  listen: { http: number; grpc: number },
  prefix: string,
): string {
  const source = readFileSync(join(ROOT, 'deploy', 'nginx.conf'), 'utf8');
  const servers = (ports: readonly number[]): string =>
    ports.map((p) => `    server 127.0.0.1:${p};`).join('\n');
  const replaceUpstream = (text: string, name: string, ports: readonly number[]): string =>
    text.replace(
      new RegExp(`(upstream ${name} \\{\\n)((?:\\s*server [^;]+;\\n)+)`),
      (_m, head: string) => `${head}${servers(ports)}\n`,
    );
  let text = replaceUpstream(source, 'vexil_http', httpUpstreams);
  text = replaceUpstream(text, 'vexil_grpc', grpcUpstreams);
  text = text
    .replace(/^pid .*;$/m, `pid ${join(prefix, 'nginx.pid')};`)
    .replace(/listen 8080;/, `listen 127.0.0.1:${listen.http};`)
    .replace(/listen 9000 http2;/, `listen 127.0.0.1:${listen.grpc} http2;`)
    .replace(/^http \{$/m, `error_log ${join(prefix, 'error.log')} warn;\nhttp {`);
  return text;
}

export async function startNginx(
  httpUpstreams: readonly number[],
  grpcUpstreams: readonly number[],
): Promise<NginxProcess> {
  const prefix = mkdtempSync(join(tmpdir(), 'vexil-nginx-'));
  const listen = { http: await freePort(), grpc: await freePort() };
  const file = join(prefix, 'nginx.conf');
  writeFileSync(file, renderNginxConfig(httpUpstreams, grpcUpstreams, listen, prefix));
  const child = spawn(
    'nginx',
    ['-p', prefix, '-c', file, '-e', join(prefix, 'error.log'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${listen.http}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await fetch(`${url}/health`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`nginx did not start: ${output}`);
    }
    await sleep(50);
  }
  return {
    httpPort: listen.http,
    grpcPort: listen.grpc,
    url,
    stop: async () => {
      await stopChild(child);
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** A server of our own that the test may stop and start again. */
export interface RestartableServer {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

function pgBinDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined) throw new Error('PostgreSQL binaries not found');
  return join(base, versions[0], 'bin');
}

const isRoot = (): boolean => process.getuid?.() === 0;

function runAsPostgres(cmd: string, args: string[]): void {
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
  }
}

/**
 * A private PostgreSQL cluster (initdb in a temporary directory, on a free port), the same
 * way scripts/test-dbs.sh starts the shared one, so stopping it affects this test only.
 */
export async function startPrivatePostgres(): Promise<RestartableServer> {
  const bin = pgBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'vexil-pg-'));
  if (isRoot()) {
    chmodSync(dir, 0o777);
    spawnSync('chown', ['postgres:', dir]);
  }
  const data = join(dir, 'data');
  runAsPostgres(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-locale',
  ]);
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = (): Promise<void> => {
    runAsPostgres(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      options,
      'start',
    ]);
    return Promise.resolve();
  };
  const stop = (): Promise<void> => {
    runAsPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
    return Promise.resolve();
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    start,
    stop,
    destroy: async () => {
      try {
        await stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A private, non-persistent redis-server: every start is empty. */
export async function startPrivateRedis(): Promise<RestartableServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'vexil-redis-'));
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      const ping = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
      if (ping.stdout.trim() === 'PONG') return;
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await sleep(50);
    }
  };
  const stop = async (): Promise<void> => {
    if (child !== undefined) await stopChild(child);
    child = undefined;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    start,
    stop,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** p50/p90/p99/max of a list of durations (ms). */
export function distribution(values: readonly number[]): {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
} {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  const round = (x: number): number => Math.round(x * 10) / 10;
  return {
    n: sorted.length,
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
  };
}
