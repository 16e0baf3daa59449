import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/*
 * The client snapshot route on a namespace whose segments are referenced by many rules: about
 * SNAPSHOT_MB of constraint values in one segment, referenced by SNAPSHOT_RULES rules, fetched
 * by SNAPSHOT_CONCURRENCY clients at once, without and with gzip. Each scenario runs on a fresh
 * process (peak RSS is the process's VmHWM); the baseline is one request alone on a fresh
 * process, measured in the same run.
 *   npm run build && node dist/bench/snapshot/run.js
 * VEXIL_CLI runs another build (e.g. an older one, to compare); SNAPSHOT_MAX_BYTES sets
 * evaluation.snapshot_max_bytes (default 1 GiB, so the document is served).
 */

const MB = Number(process.env['SNAPSHOT_MB'] ?? 3);
const RULES = Number(process.env['SNAPSHOT_RULES'] ?? 35);
const CONCURRENCY = Number(process.env['SNAPSHOT_CONCURRENCY'] ?? 8);
const CLI = process.env['VEXIL_CLI'] ?? resolve(__dirname, '../../src/app/cli.js');
const VALUE_BYTES = 50_000;

interface Vexil {
  readonly child: ChildProcess;
  readonly port: number;
}

function start(dbPath: string): Promise<Vexil> {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      PATH: process.env['PATH'] ?? '',
      VEXIL_DB_URL: dbPath,
      VEXIL_SERVER_HOST: '127.0.0.1',
      VEXIL_SERVER_HTTP_PORT: '0',
      VEXIL_SERVER_GRPC_PORT: '0',
      VEXIL_LOG_ENCODING: 'json',
      VEXIL_LOG_LEVEL: 'info',
      // Nothing balances a bench's traffic: stop at once.
      VEXIL_SERVER_SHUTDOWN_DRAIN: '0s',
      // Above the document by default, so it is served.
      VEXIL_EVALUATION_SNAPSHOT_MAX_BYTES: process.env['SNAPSHOT_MAX_BYTES'] ?? String(2 ** 30),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolvePort, reject) => {
    let buffered = '';
    child.stdout?.on('data', (d: Buffer) => {
      buffered += d.toString();
      for (const line of buffered.split('\n')) {
        if (line.includes('"serving"')) {
          const listening = buffered.split('\n').find((l) => l.includes('"listening"')) ?? '';
          resolvePort({ child, port: (JSON.parse(listening) as { httpPort: number }).httpPort });
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`vexil exited with ${code}`)));
  });
}

async function stop(v: Vexil): Promise<void> {
  const exited = new Promise((r) => v.child.once('exit', r));
  v.child.kill('SIGTERM');
  await exited;
}

const statusKb = (pid: number, field: string): number => {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? 0 : Number(m[1]);
};

async function api(
  port: number,
  method: string,
  path: string,
  body: unknown,
): Promise<{ id: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { id: string };
  if (res.status !== 200)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Pseudo-random text that compresses about as well as real ids and emails do (~2x). */
function value(seed: number): string {
  let x = seed * 2654435761;
  let out = '';
  while (out.length < VALUE_BYTES) {
    x = (x * 1103515245 + 12345) >>> 0;
    out += x.toString(36);
  }
  return out.slice(0, VALUE_BYTES);
}

async function seed(port: number): Promise<void> {
  const ns = '/api/v1/namespaces/big';
  await api(port, 'POST', '/api/v1/namespaces', { key: 'big', name: 'big' });
  await api(port, 'POST', `${ns}/segments`, { key: 'seg', name: 'seg' });
  const constraints = Math.ceil((MB * 1024 * 1024) / VALUE_BYTES);
  for (let i = 0; i < constraints; i += 1) {
    await api(port, 'POST', `${ns}/segments/seg/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: `p${i}`,
      operator: 'eq',
      value: value(i + 1),
    });
  }
  await api(port, 'POST', `${ns}/flags`, { key: 'f', name: 'f', enabled: true });
  const variant = await api(port, 'POST', `${ns}/flags/f/variants`, { key: 'a' });
  for (let r = 0; r < RULES; r += 1) {
    const rule = await api(port, 'POST', `${ns}/flags/f/rules`, { segmentKey: 'seg', rank: r + 1 });
    await api(port, 'POST', `${ns}/flags/f/rules/${rule.id}/distributions`, {
      variantId: variant.id,
      rollout: 100,
    });
  }
}

interface Fetched {
  status: number;
  bytes: number;
  encoding: string;
}

/** One GET of the snapshot, counting the bytes on the wire (no decoding). */
function fetchSnapshot(port: number, gzip: boolean): Promise<Fetched> {
  return new Promise((resolveFetch, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/internal/v1/evaluation/snapshot/namespace/big',
        headers: gzip ? { 'accept-encoding': 'gzip' } : {},
        agent: false,
      },
      (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () =>
          resolveFetch({
            status: res.statusCode ?? 0,
            bytes,
            encoding: String(res.headers['content-encoding'] ?? 'identity'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function scenario(dbPath: string, clients: number, gzip: boolean) {
  const v = await start(dbPath);
  const pid = v.child.pid as number;
  const startRssMb = statusKb(pid, 'VmRSS') / 1024;
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: clients }, () => fetchSnapshot(v.port, gzip)),
  );
  const ms = performance.now() - started;
  const peakRssMb = statusKb(pid, 'VmHWM') / 1024;
  await stop(v);
  return {
    clients,
    gzip,
    statuses: [...new Set(results.map((r) => r.status))],
    encoding: results[0]?.encoding,
    bytesPerResponse: results[0]?.bytes ?? 0,
    ms: Math.round(ms),
    startRssMb: Math.round(startRssMb),
    peakRssMb: Math.round(peakRssMb),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vexil-snapshot-bench-'));
  const dbPath = join(dir, 'vexil.db');
  try {
    const seeding = await start(dbPath);
    await seed(seeding.port);
    await stop(seeding);
    console.log(
      `namespace: ${MB} MB of constraint values in one segment, ${RULES} rules referencing it; ` +
        `${CONCURRENCY} concurrent clients (${CLI})`,
    );
    for (const gzip of [false, true]) {
      const one = await scenario(dbPath, 1, gzip);
      const many = await scenario(dbPath, CONCURRENCY, gzip);
      console.log(JSON.stringify(one));
      console.log(JSON.stringify(many));
      console.log(
        JSON.stringify({
          gzip,
          [`timeRatio${CONCURRENCY}vs1`]: Number((many.ms / one.ms).toFixed(2)),
          [`peakRssGrowthRatio${CONCURRENCY}vs1`]: Number(
            (
              (many.peakRssMb - many.startRssMb) /
              Math.max(1, one.peakRssMb - one.startRssMb)
            ).toFixed(2),
          ),
          documentToNamespaceRatio: Number((one.bytesPerResponse / (MB * 1024 * 1024)).toFixed(1)),
        }),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
