#!/usr/bin/env node
/* global fetch, AbortSignal, URL, setTimeout, clearTimeout -- Node 20 globals */
/*
 * Smoke test of the single executable (build/vexil, from `npm run package`), as a user would run
 * it: copied alone into an empty directory, started with an empty environment (no PATH, so no
 * node; no node_modules anywhere near). Checks --version, config and migrate, then serve: health
 * SERVING over HTTP and gRPC, gRPC reflection, the dashboard at /, a flag created and evaluated,
 * a clean stop. On the embedded SQLite
 * default, and on PostgreSQL when VEXIL_TEST_POSTGRES_URL is set (required when
 * VEXIL_TEST_REQUIRE lists postgres).
 *
 *   node scripts/smoke-executable.js [path/to/vexil]
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { Client } = require('pg');

const ROOT = path.resolve(__dirname, '..');
const EXECUTABLE = path.resolve(process.argv[2] ?? path.join(ROOT, 'build', 'vexil'));
const VERSION = require(path.join(ROOT, 'package.json')).version;

const check = (ok, what) => {
  if (!ok) throw new Error(what);
};

/** An empty directory holding only a copy of the executable. */
function lonelyCopy(label) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `vexil-smoke-${label}-`));
  fs.copyFileSync(EXECUTABLE, path.join(dir, 'vexil'));
  fs.chmodSync(path.join(dir, 'vexil'), 0o755);
  check(fs.readdirSync(dir).join() === 'vexil', `${dir} holds more than the executable`);
  return dir;
}

function run(dir, args, env) {
  const r = spawnSync('./vexil', args, { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
  check(r.status === 0, `vexil ${args.join(' ')} exited ${r.status}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function grpcHealth(port) {
  const def = protoLoader.loadSync(path.join(ROOT, 'src/adapters/grpc/proto/health.proto'), {
    enums: String,
  });
  const { Health } = grpc.loadPackageDefinition(def).grpc.health.v1;
  const client = new Health(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    return await new Promise((resolve, reject) =>
      client.check({ service: '' }, (err, res) => (err ? reject(err) : resolve(res.status))),
    );
  } finally {
    client.close();
  }
}

/** The services gRPC server reflection lists (v1alpha, as grpcurl asks). */
async function reflectedServices(port) {
  const dir = path.dirname(require.resolve('@grpc/reflection/package.json'));
  const def = protoLoader.loadSync(
    path.join(dir, 'build/proto/grpc/reflection/v1alpha/reflection.proto'),
    { keepCase: true, defaults: true, oneofs: true },
  );
  const { ServerReflection } = grpc.loadPackageDefinition(def).grpc.reflection.v1alpha;
  const client = new ServerReflection(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    return await new Promise((resolve, reject) => {
      const stream = client.ServerReflectionInfo();
      stream.on('data', (res) => {
        resolve((res.list_services_response?.service ?? []).map((s) => s.name));
        stream.end();
      });
      stream.on('error', reject);
      stream.write({ list_services: '' });
    });
  } finally {
    client.close();
  }
}

/** Starts serve on ephemeral ports; resolves once it logs `serving`, with its ports. */
function serve(dir, env) {
  const child = spawn(
    './vexil',
    ['serve', '--server.host=127.0.0.1', '--server.http_port=0', '--server.grpc_port=0'],
    { cwd: dir, env: { ...env, VEXIL_LOG_ENCODING: 'json' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines = [];
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not serving after 30 s:\n${lines.join('\n')}`)),
      30_000,
    );
    let ports;
    const onLine = (line) => {
      lines.push(line);
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (entry.message === 'listening') ports = { http: entry.httpPort, grpc: entry.grpcPort };
      if (entry.message === 'serving') {
        clearTimeout(timer);
        resolve(ports);
      }
    };
    let buffered = '';
    const onData = (d) => {
      buffered += d.toString();
      let i;
      while ((i = buffered.indexOf('\n')) >= 0) {
        onLine(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => reject(new Error(`exited ${code} before serving:\n${lines.join('\n')}`)));
  });
  return { child, started, exited, lines };
}

async function call(base, method, route, body) {
  const res = await fetch(`${base}${route}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.json() };
}

async function smoke(label, env) {
  const dir = lonelyCopy(label);
  try {
    check(run(dir, ['--version'], env) === `vexil ${VERSION}\n`, '--version');
    const config = JSON.parse(run(dir, ['config'], env));
    check(typeof config['db.url'] === 'string', 'config prints db.url');
    run(dir, ['migrate'], env);
    const server = serve(dir, env);
    const ports = await server.started;
    const base = `http://127.0.0.1:${ports.http}`;
    const health = await call(base, 'GET', '/health');
    check(health.body.status === 'SERVING', `HTTP health: ${JSON.stringify(health.body)}`);
    check((await grpcHealth(ports.grpc)) === 'SERVING', 'gRPC health');
    const services = await reflectedServices(ports.grpc);
    check(services.includes('flipt.evaluation.EvaluationService'), `reflection: ${services}`);
    const page = await fetch(`${base}/`, { signal: AbortSignal.timeout(10_000) });
    const html = await page.text();
    check(
      page.status === 200 &&
        /text\/html/.test(page.headers.get('content-type') ?? '') &&
        /<script/.test(html),
      `the dashboard at /: ${page.status} ${html.slice(0, 200)}`,
    );
    const flag = { key: 'smoke', name: 'Smoke', type: 'BOOLEAN_FLAG_TYPE', enabled: true };
    const created = await call(base, 'POST', '/api/v1/namespaces/default/flags', flag);
    check(created.status === 200, `create flag: ${JSON.stringify(created.body)}`);
    const rollout = { rank: 1, threshold: { percentage: 100, value: false } };
    const added = await call(
      base,
      'POST',
      '/api/v1/namespaces/default/flags/smoke/rollouts',
      rollout,
    );
    check(added.status === 200, `create rollout: ${JSON.stringify(added.body)}`);
    const evaluated = await call(base, 'POST', '/evaluate/v1/boolean', {
      namespaceKey: 'default',
      flagKey: 'smoke',
      entityId: 'user-1',
      context: {},
    });
    check(
      evaluated.status === 200 &&
        evaluated.body.enabled === false &&
        evaluated.body.reason === 'MATCH_EVALUATION_REASON',
      `evaluate: ${JSON.stringify(evaluated.body)}`,
    );
    server.child.kill('SIGTERM');
    const code = await server.exited;
    check(code === 0, `serve exited ${code} on SIGTERM`);
    process.stdout.write(
      `smoke ${label}: ok (health SERVING over HTTP and gRPC, reflection, dashboard, flag created and evaluated)\n`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function withPostgresDatabase(serverUrl, fn) {
  const name = `vexil_smoke_${process.pid}`;
  const admin = async (sql) => {
    const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    await fn(url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function main() {
  check(fs.existsSync(EXECUTABLE), `${EXECUTABLE} is missing: run npm run package`);
  await smoke('sqlite', {});
  const required = (process.env.VEXIL_TEST_REQUIRE ?? '').split(',').map((s) => s.trim());
  const postgres = process.env.VEXIL_TEST_POSTGRES_URL ?? '';
  if (postgres !== '') {
    await withPostgresDatabase(postgres, (url) => smoke('postgres', { VEXIL_DB_URL: url }));
  } else if (required.includes('postgres')) {
    throw new Error(
      'postgres is required (VEXIL_TEST_REQUIRE) but VEXIL_TEST_POSTGRES_URL is not set',
    );
  } else {
    process.stdout.write('smoke postgres: not run (VEXIL_TEST_POSTGRES_URL not set)\n');
  }
}

main().catch((err) => {
  process.stderr.write(`smoke: ${err.stack || err}\n`);
  process.exit(1);
});
