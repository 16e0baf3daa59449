/*
 * HTTP evaluation throughput with and without authentication, under wrk: the same server
 * (bench/http-auth/server.ts) once with `authentication.required: false` and no token, once
 * with it true and every request carrying `Authorization: Bearer <token>`, alternated round by
 * round (server on core 0, wrk on core 1). POST /evaluate/v1/boolean, then a batch of 100.
 *   npx tsc -p tsconfig.build.json && node dist/bench/http-auth/run.js \
 *     [--duration=8 --rounds=3 --connections=50 --warmup=3]
 * The target: with a token, within 10 % of the throughput without one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import {
  fmt,
  entityIds,
  median,
  numberOption,
  requireTool,
  SERVER_CORE,
  startNode,
  type Child,
} from '../http/processes';
import { runWrk, type WrkResult } from '../http/wrk';

const argv = process.argv.slice(2);
const DURATION = numberOption('duration', argv, 8);
const ROUNDS = numberOption('rounds', argv, 3);
const CONNECTIONS = numberOption('connections', argv, 50);
const WARMUP = numberOption('warmup', argv, 3);
const BATCH_SIZE = 100;
const TARGET_RATIO = 0.9;

const flagKey = (i: number): string => `bench-flag-${String(i).padStart(3, '0')}`;

/** A wrk script cycling through POST bodies, every request with the given headers. */
function writeScript(file: string, bodies: readonly string[], headers: Record<string, string>) {
  const quoted = bodies.map((b) => `[==[${b}]==]`).join(',\n  ');
  const lua = Object.entries({ 'Content-Type': 'application/json', ...headers })
    .map(([k, v]) => `["${k}"] = [==[${v}]==]`)
    .join(', ');
  writeFileSync(
    file,
    `local bodies = {\n  ${quoted}\n}
local requests = {}
local i = 0
function init(args)
  for k, body in ipairs(bodies) do
    requests[k] = wrk.format("POST", nil, { ${lua} }, body)
  end
end
function request()
  i = i % #requests + 1
  return requests[i]
end
`,
  );
}

const line = (label: string, r: WrkResult): string =>
  `${label.padEnd(26)} ${fmt(r.requestsPerSecond).padStart(9)} req/s` +
  `  p50 ${fmt(r.p50Ms, 2).padStart(6)} ms  p99 ${fmt(r.p99Ms, 2).padStart(6)} ms`;

async function measure(url: string, script: string, seconds: number): Promise<WrkResult> {
  const result = await runWrk({ url, script, seconds, connections: CONNECTIONS });
  if (result.errors > 0) throw new Error(`${url}: ${result.errors} failed requests under load`);
  return result;
}

async function main(): Promise<void> {
  requireTool('wrk', 'apt-get install wrk');
  requireTool('taskset', 'apt-get install util-linux');
  const work = mkdtempSync(path.join(tmpdir(), 'vexil-bench-http-auth-'));
  const children: Child[] = [];
  try {
    // Random per run, handed to the server through its environment, never printed.
    const token = randomBytes(32).toString('base64url') + '=';
    const start = (mode: string) =>
      startNode({
        core: SERVER_CORE,
        script: path.join(__dirname, 'server.js'),
        env: { BENCH_AUTH: mode, BENCH_TOKEN: token, BENCH_FLAGS: String(BATCH_SIZE) },
        readyWhen: (l) => l['message'] === 'listening',
      });
    const open = await start('none');
    children.push(open);
    const guarded = await start('token');
    children.push(guarded);

    const ids = entityIds(64);
    const booleanBodies = ids.map((entityId) =>
      JSON.stringify({
        namespaceKey: 'default',
        flagKey: flagKey(0),
        entityId,
        context: { plan: 'free' },
      }),
    );
    const batchBodies = ids.map((entityId) =>
      JSON.stringify({
        requests: Array.from({ length: BATCH_SIZE }, (_, i) => ({
          namespaceKey: 'default',
          flagKey: flagKey(i),
          entityId,
          context: { plan: 'free' },
        })),
      }),
    );
    const scripts = {
      boolean: path.join(work, 'boolean.lua'),
      booleanToken: path.join(work, 'boolean-token.lua'),
      batch: path.join(work, 'batch.lua'),
      batchToken: path.join(work, 'batch-token.lua'),
    };
    const auth = { Authorization: `Bearer ${token}` };
    writeScript(scripts.boolean, booleanBodies, {});
    writeScript(scripts.booleanToken, booleanBodies, auth);
    writeScript(scripts.batch, batchBodies, {});
    writeScript(scripts.batchToken, batchBodies, auth);

    const url = (child: Child, route: string) =>
      `http://127.0.0.1:${Number(child.ready['port'])}${route}`;
    const cases = [
      {
        label: 'boolean, no auth',
        url: url(open, '/evaluate/v1/boolean'),
        script: scripts.boolean,
      },
      {
        label: 'boolean, token',
        url: url(guarded, '/evaluate/v1/boolean'),
        script: scripts.booleanToken,
      },
      {
        label: `batch ${BATCH_SIZE}, no auth`,
        url: url(open, '/evaluate/v1/batch'),
        script: scripts.batch,
      },
      {
        label: `batch ${BATCH_SIZE}, token`,
        url: url(guarded, '/evaluate/v1/batch'),
        script: scripts.batchToken,
      },
    ];

    // The guarded server must refuse a request without the token, or the comparison is void.
    const refused = await fetch(url(guarded, '/evaluate/v1/boolean'), {
      method: 'POST',
      body: booleanBodies[0],
    });
    if (refused.status !== 401)
      throw new Error(`expected 401 without a token, got ${refused.status}`);

    console.log(
      `node ${process.version}; servers on core ${SERVER_CORE}, wrk on the other; ` +
        `${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s (warm-up ${WARMUP} s); ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    for (const c of cases) await measure(c.url, c.script, WARMUP);
    const runs = cases.map(() => [] as WrkResult[]);
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}`);
      for (const [i, c] of cases.entries()) {
        const r = await measure(c.url, c.script, DURATION);
        runs[i]?.push(r);
        console.log(`  ${line(c.label, r)}`);
      }
    }

    console.log(`\nmedians of ${ROUNDS} rounds`);
    const medians = runs.map((rs) => ({
      requestsPerSecond: median(rs.map((r) => r.requestsPerSecond)),
      p50Ms: median(rs.map((r) => r.p50Ms)),
      p99Ms: median(rs.map((r) => r.p99Ms)),
      errors: 0,
    }));
    for (const [i, c] of cases.entries())
      console.log(`  ${line(c.label, medians[i] as WrkResult)}`);
    for (const [open, guarded, name] of [
      [0, 1, 'boolean'],
      [2, 3, 'batch'],
    ] as const) {
      const ratio =
        (medians[guarded] as WrkResult).requestsPerSecond /
        (medians[open] as WrkResult).requestsPerSecond;
      console.log(
        `  ${name}: token / no auth = ${ratio.toFixed(3)} ` +
          `(target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})`,
      );
    }
  } finally {
    for (const child of children.reverse()) await child.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
