import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpuSeconds, LOAD_CORE } from './processes';

export interface WrkResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers other than 2xx/3xx plus socket errors: any of them voids the run. */
  readonly errors: number;
}

/**
 * A wrk script sending POSTs whose bodies cycle through `bodies`. The requests are
 * formatted once in init(), so wrk spends no time per request building them.
 */
export function writePostScript(file: string, bodies: readonly string[]): void {
  const quoted = bodies.map((b) => `[==[${b}]==]`).join(',\n  ');
  writeFileSync(
    file,
    `local bodies = {\n  ${quoted}\n}
local requests = {}
local i = 0
function init(args)
  for k, body in ipairs(bodies) do
    requests[k] = wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
  end
end
function request()
  i = i % #requests + 1
  return requests[i]
end
`,
  );
}

export interface ScriptedRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
}

/** A wrk script cycling through `requests` (method, path and body each), formatted once. */
export function writeRequestScript(file: string, requests: readonly ScriptedRequest[]): void {
  const entries = requests
    .map(
      (r) =>
        `{ [==[${r.method}]==], [==[${r.path}]==], ${r.body === undefined ? 'nil' : `[==[${r.body}]==]`} }`,
    )
    .join(',\n  ');
  writeFileSync(
    file,
    `local specs = {\n  ${entries}\n}
local requests = {}
local i = 0
function init(args)
  for k, spec in ipairs(specs) do
    requests[k] = wrk.format(spec[1], spec[2], { ["Content-Type"] = "application/json" }, spec[3])
  end
end
function request()
  i = i % #requests + 1
  return requests[i]
end
`,
  );
}

const UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function latencyMs(output: string, percentile: string): number {
  const m = new RegExp(`^\\s+${percentile}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(output);
  if (!m) throw new Error(`no ${percentile}% latency in wrk output:\n${output}`);
  return Number(m[1]) * (UNITS[m[2] as string] as number);
}

/** `taskset -c <load core> wrk -t1 -c<connections> -d<seconds>s --latency -s <script> <url>` */
export function runWrk(options: {
  readonly url: string;
  readonly script: string;
  readonly seconds: number;
  readonly connections: number;
}): Promise<WrkResult> {
  const args = [
    '-c',
    LOAD_CORE,
    'wrk',
    '-t1',
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    // A shared machine can hold a batch answer past wrk's default 2 s, which would void the run.
    '--timeout',
    '10s',
    '--latency',
    '-s',
    options.script,
    options.url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`wrk exited with ${code}:\n${output}`));
        return;
      }
      try {
        const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
        if (!rps) throw new Error(`no Requests/sec in wrk output:\n${output}`);
        const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
        const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
          output,
        );
        const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
        resolve({
          requestsPerSecond: Number(rps[1]),
          p50Ms: latencyMs(output, '50'),
          p99Ms: latencyMs(output, '99'),
          errors: Number(non2xx?.[1] ?? 0) + socketErrors,
        });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

export interface Measured extends WrkResult {
  /** Server CPU time per answered request, in microseconds. */
  readonly cpuMicros: number;
  /**
   * Function-call interrupts received by wrk's core per answered request (NaN when
   * /proc/interrupts has no CAL line): mostly the kernel waking wrk, asleep, when an answer
   * arrives. Each one costs the server's core a few microseconds inside its write.
   */
  readonly wakeupsPerRequest: number;
}

/** The CAL (function call interrupts) count of one core, from /proc/interrupts; NaN if absent. */
export function callInterrupts(core: string): number {
  try {
    const line = readFileSync('/proc/interrupts', 'utf8')
      .split('\n')
      .find((l) => l.trimStart().startsWith('CAL:'));
    const counts = line?.trim().split(/\s+/).slice(1);
    return Number(counts?.[Number(core)] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/**
 * runWrk against a server whose CPU time is read from /proc before and after; throws when any
 * request failed under load.
 */
export async function measureWrk(options: {
  readonly url: string;
  readonly script: string;
  readonly seconds: number;
  readonly connections: number;
  readonly serverPid: number;
}): Promise<Measured> {
  const { url, seconds, serverPid } = options;
  const cpuBefore = cpuSeconds(serverPid);
  const wakeupsBefore = callInterrupts(LOAD_CORE);
  const result = await runWrk(options);
  const cpu = cpuSeconds(serverPid) - cpuBefore;
  const wakeups = callInterrupts(LOAD_CORE) - wakeupsBefore;
  if (result.errors > 0) throw new Error(`${url}: ${result.errors} failed requests under load`);
  const answered = result.requestsPerSecond * seconds;
  return { ...result, cpuMicros: (cpu * 1e6) / answered, wakeupsPerRequest: wakeups / answered };
}
