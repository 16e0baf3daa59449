import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import { scaled } from './fault-support';

/*
 * 50 clients writing at once to one process on SQLite, while others evaluate: no write is
 * refused (no SQLITE_BUSY reaches a client, nothing answers 5xx), no evaluation fails, and
 * the evaluation latency is reported for writes to another namespace and to the evaluated
 * one (where each write changes what the next evaluation must see).
 */

const WRITERS = 50;
const EVALUATORS = 4;
const SECONDS = scaled(4, 30);

jest.setTimeout(scaled(120_000, 600_000));

let dir: string;
let vexil: VexilProcess;

async function send(method: string, path: string, body?: unknown): Promise<[number, string]> {
  const res = await fetch(vexil.baseUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return [res.status, await res.text()];
}

const percentile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** The server's event-loop delay since the previous scrape (prom-client resets it then). */
async function eventLoopLagMs(): Promise<{ p99: number; max: number }> {
  const text = (await send('GET', '/metrics'))[1];
  const read = (name: string): number =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return {
    p99: read('nodejs_eventloop_lag_p99_seconds'),
    max: read('nodejs_eventloop_lag_max_seconds'),
  };
}

/** How long the server spent on each evaluation it answered since line `from` of its log. */
function serverEvaluationMs(from: number): number[] {
  const out: number[] = [];
  for (const line of vexil.lines.slice(from)) {
    if (!line.includes('"/evaluate/v1/boolean"')) continue;
    const ms = (JSON.parse(line) as { durationMs?: number }).durationMs;
    if (typeof ms === 'number') out.push(ms);
  }
  return out.sort((a, b) => a - b);
}

async function underWriters(writeNamespace: string) {
  await eventLoopLagMs();
  const firstLine = vexil.lines.length;
  let running = true;
  const writeMs: number[] = [];
  const evalMs: number[] = [];
  const failures: string[] = [];
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let i = 0; running; i += 1) {
      const started = performance.now();
      const [status, text] =
        i % 2 === 0
          ? await send('POST', `/api/v1/namespaces/${writeNamespace}/flags`, {
              key: `${writeNamespace}-w${w}-${i}`,
              name: 'n',
            })
          : await send(
              'PUT',
              `/api/v1/namespaces/${writeNamespace}/flags/${writeNamespace}-w${w}-${i - 1}`,
              {
                name: 'n',
                enabled: true,
              },
            );
      writeMs.push(performance.now() - started);
      if (status !== 200) failures.push(`write ${status} ${text.slice(0, 200)}`);
    }
  });
  const evaluators = Array.from({ length: EVALUATORS }, async () => {
    while (running) {
      const started = performance.now();
      const [status, text] = await send('POST', '/evaluate/v1/boolean', {
        namespaceKey: 'read',
        flagKey: 'b',
        entityId: 'e',
      });
      evalMs.push(performance.now() - started);
      if (status !== 200) failures.push(`evaluation ${status} ${text.slice(0, 200)}`);
    }
  });
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  running = false;
  await Promise.all([...writers, ...evaluators]);
  writeMs.sort((a, b) => a - b);
  evalMs.sort((a, b) => a - b);
  return {
    writeMs,
    evalMs,
    failures,
    lag: await eventLoopLagMs(),
    serverMs: serverEvaluationMs(firstLine),
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vexil-writers-'));
  vexil = await startVexil({ VEXIL_DB_URL: join(dir, 'vexil.db') });
  for (const key of ['read', 'other']) {
    await send('POST', '/api/v1/namespaces', { key, name: key });
  }
  await send('POST', '/api/v1/namespaces/read/flags', {
    key: 'b',
    name: 'b',
    type: 'BOOLEAN_FLAG_TYPE',
    enabled: true,
  });
});

afterAll(async () => {
  await vexil?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe(`SQLite with ${WRITERS} concurrent writers`, () => {
  it.each([
    ['another namespace', 'other'],
    ['the evaluated namespace', 'read'],
  ])('writing to %s: every write and evaluation succeeds; latency reported', async (label, ns) => {
    const { writeMs, evalMs, failures, lag, serverMs } = await underWriters(ns);
    console.log(
      `SQLite, ${WRITERS} writers to ${label} for ${SECONDS}s: ` +
        `${writeMs.length} writes (${Math.round(writeMs.length / SECONDS)}/s, ` +
        `p99 ${percentile(writeMs, 0.99).toFixed(0)} ms), ` +
        `${evalMs.length} evaluations by ${EVALUATORS} clients, latency p50 ` +
        `${percentile(evalMs, 0.5).toFixed(1)} ms, p99 ${percentile(evalMs, 0.99).toFixed(1)} ms, ` +
        `max ${percentile(evalMs, 1).toFixed(1)} ms (in the server: p99 ` +
        `${percentile(serverMs, 0.99).toFixed(1)} ms; event-loop delay p99 ${lag.p99.toFixed(1)} ms, ` +
        `max ${lag.max.toFixed(1)} ms); failures ${failures.length}; ` +
        `machine load average ${loadavg()[0]?.toFixed(1)}`,
    );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(writeMs.length).toBeGreaterThan(WRITERS);
  });
});
