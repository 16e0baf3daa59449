import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CLI = resolve(__dirname, '../../dist/src/app/cli.js');

export interface VexilProcess {
  readonly child: ChildProcess;
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly baseUrl: string;
  /** Every line written so far to stdout and stderr. */
  readonly lines: string[];
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the built CLI with arguments and environment; resolves when it exits. A run still
 * going after `timeoutMs` is killed (code null), so a command that should have failed at once
 * and serves instead does not hang the test.
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  ensureBuilt();
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      cwd: mkdtempSync(join(tmpdir(), 'vexil-cli-')),
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', () => clearTimeout(timer));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

function ensureBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
}

/**
 * Starts `vexil serve` on ephemeral ports with JSON logs and waits for the "listening" line.
 * `env` adds VEXIL_* settings; the working directory is a fresh temporary directory.
 */
export async function startVexil(
  env: Record<string, string> = {},
  opts: { waitForServing?: boolean; timeoutMs?: number; args?: readonly string[] } = {},
): Promise<VexilProcess> {
  ensureBuilt();
  const cwd = mkdtempSync(join(tmpdir(), 'vexil-e2e-'));
  const child = spawn(process.execPath, [CLI, 'serve', ...(opts.args ?? [])], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
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
  const lines: string[] = [];
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const timeoutMs = opts.timeoutMs ?? 20_000;

  const ports = await new Promise<{ httpPort: number; grpcPort: number }>(
    (resolvePorts, reject) => {
      const timer = setTimeout(() => {
        // A server that never said it listens is not left running after the test gives up.
        child.kill('SIGKILL');
        reject(new Error(`vexil did not listen in time:\n${lines.join('\n')}`));
      }, timeoutMs);
      const onLine = (line: string) => {
        lines.push(line);
        try {
          const entry = JSON.parse(line) as {
            message?: string;
            httpPort?: number;
            grpcPort?: number;
          };
          if (entry.message === 'listening' && entry.httpPort && entry.grpcPort) {
            clearTimeout(timer);
            resolvePorts({ httpPort: entry.httpPort, grpcPort: entry.grpcPort });
          }
        } catch {
          // not a JSON line
        }
      };
      for (const stream of [child.stdout, child.stderr]) {
        let buffered = '';
        stream?.on('data', (d: Buffer) => {
          buffered += d.toString();
          let i: number;
          while ((i = buffered.indexOf('\n')) !== -1) {
            onLine(buffered.slice(0, i));
            buffered = buffered.slice(i + 1);
          }
        });
      }
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`vexil exited with ${code} before listening:\n${lines.join('\n')}`));
      });
    },
  );

  const proc: VexilProcess = {
    child,
    ...ports,
    baseUrl: `http://127.0.0.1:${ports.httpPort}`,
    lines,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  if (opts.waitForServing !== false) await waitForHealth(proc.baseUrl, 'SERVING', timeoutMs);
  return proc;
}

export async function waitForHealth(
  baseUrl: string,
  status: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${baseUrl}/health`);
      const body = (await res.json()) as { status: string };
      if (body.status === status) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`health never became ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
