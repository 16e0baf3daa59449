import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { join } from 'node:path';
import { enabledSqlBackends, requireUrl } from '../support/databases';
import { runCli, startVexil, waitForHealth, type VexilProcess } from '../support/vexil-process';

const healthProto = join(__dirname, '../../src/adapters/grpc/proto/health.proto');

type HealthClient = grpc.Client & {
  check(req: { service: string }, cb: (err: Error | null, res: { status: string }) => void): void;
};

/** grpc.health.v1.Health/Check with a real grpc-js client. */
async function grpcHealthCheck(port: number, service: string): Promise<string> {
  const def = protoLoader.loadSync(healthProto, { enums: String, defaults: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  const client = new pkg.grpc.health.v1.Health(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  ) as unknown as HealthClient;
  try {
    return await new Promise<string>((resolve, reject) =>
      client.check({ service }, (err, res) => (err ? reject(err) : resolve(res.status))),
    );
  } finally {
    client.close();
  }
}

describe('the vexil program', () => {
  it('prints its version and help', async () => {
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^vexil \d+\.\d+\.\d+\n$/);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('migrate');
    expect(help.stdout).toContain('--config <file>');
    const helpCommand = await runCli(['help']);
    expect(helpCommand.code).toBe(0);
    expect(helpCommand.stdout).toBe(help.stdout);
  });

  it.each([
    [['serve', '--server.http_port=abc'], {}, 'server.http_port'],
    [['serve'], { VEXIL_DB_URL: 'oracle://db/x' }, 'db.url'],
    [['serve', '--config', '/nonexistent/vexil.yml'], {}, 'ENOENT'],
    [['serve', '--no-such-flag=1'], {}, "unknown option '--no-such-flag=1'"],
    [['--bogus'], {}, "unknown option '--bogus'"],
    [['frobnicate'], {}, "unknown command 'frobnicate'"],
    [['frobnicate', 'x.yml'], {}, "unknown command 'frobnicate'"],
    [['import', 'x.yml'], {}, 'cannot read x.yml: ENOENT'],
  ])('exits 1 with one line for %j', async (args, env, text) => {
    const r = await runCli(args, env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(text);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([expect.stringContaining(text)]);
  });

  it('prints the configuration with a SQLite path as itself and durations as written', async () => {
    const r = await runCli(['config', '--db.url=file:/srv/vexil/flags.db'], {
      VEXIL_CACHING_TTL: '90s',
    });
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(printed['db.url']).toBe('file:/srv/vexil/flags.db');
    expect(printed['caching.ttl']).toBe('1m30s');
    expect(printed['server.shutdown_timeout']).toBe('15s');
  });

  it.each([
    ['HTTP', 'server.http_port', 'VEXIL_SERVER_HTTP_PORT'],
    ['gRPC', 'server.grpc_port', 'VEXIL_SERVER_GRPC_PORT'],
  ])('a %s port in use ends start-up with one line naming %s', async (protocol, key, env) => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = await runCli(['serve', '--server.host=127.0.0.1'], {
        VEXIL_SERVER_HTTP_PORT: '0',
        VEXIL_SERVER_GRPC_PORT: '0',
        [env]: String(port),
        VEXIL_LOG_ENCODING: 'json',
      });
      expect(r.code).toBe(1);
      const errors = r.stderr.split('\n').filter(Boolean);
      expect(errors).toEqual([
        `vexil: ${protocol} port ${port} on 127.0.0.1 is already in use by another process: ` +
          `stop it, or set ${key} (${env}, --${key}=...) to a free port`,
      ]);
      expect(r.stdout).not.toContain('No address added');
    } finally {
      taken.close();
    }
  });

  it('migrates an embedded database and exits 0, twice', async () => {
    const url = `file:${join(tmpdir(), `vexil-migrate-${process.pid}-${Date.now()}.db`)}`;
    const first = await runCli(['migrate', '--log.encoding=json'], { VEXIL_DB_URL: url });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('migrations applied');
    const second = await runCli(['migrate', '--log.encoding=json'], { VEXIL_DB_URL: url });
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('migrations applied');
    expect(second.stdout).toContain('database is up to date');
  });

  describe('serving on the embedded database', () => {
    let vexil: VexilProcess;
    beforeAll(async () => {
      vexil = await startVexil();
    });
    afterAll(async () => {
      await vexil.stop();
    });

    it('vexil health exits 0 against it, 1 against a port nobody listens on', async () => {
      const up = await runCli(['health', '--server.http_port', String(vexil.httpPort)]);
      expect(up).toMatchObject({ code: 0, stdout: 'SERVING\n' });
      const free = createServer();
      await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
      const port = (free.address() as AddressInfo).port;
      await new Promise((r) => free.close(r));
      const url = `http://127.0.0.1:${port}/health`;
      const down = await runCli(['health', '--url', url]);
      expect(down.code).toBe(1);
      expect(down.stderr).toBe(`vexil: ${url}: ECONNREFUSED\n`);
    });

    it('answers /health over HTTP', async () => {
      const res = await fetch(`${vexil.baseUrl}/health`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(await res.json()).toEqual({ status: 'SERVING' });
    });

    it.each([
      '',
      'flipt.Flipt',
      'flipt.evaluation.EvaluationService',
      'flipt.evaluation.DataService',
    ])('answers gRPC health Check for %j', async (service) => {
      expect(await grpcHealthCheck(vexil.grpcPort, service)).toBe('SERVING');
    });

    it('logs one access line per request with the request id it echoes', async () => {
      const res = await fetch(`${vexil.baseUrl}/api/v1/namespaces/default`, {
        headers: { 'x-request-id': 'trace-me-123' },
      });
      expect(res.headers.get('x-request-id')).toBe('trace-me-123');
      await new Promise((r) => setTimeout(r, 100));
      const line = vexil.lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.requestId === 'trace-me-123');
      expect(line).toMatchObject({ method: 'GET', status: 200, route: '/api/v1/namespaces/:key' });
      expect(typeof line?.durationMs).toBe('number');
    });

    it('serves what it was just told (read-your-writes on the embedded database)', async () => {
      const post = (path: string, body: object) =>
        fetch(`${vexil.baseUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
      await post('/api/v1/namespaces/default/flags', {
        key: 'rw',
        name: 'rw',
        type: 'BOOLEAN_FLAG_TYPE',
        enabled: true,
      });
      const before = await (
        await post('/evaluate/v1/boolean', { flagKey: 'rw', entityId: 'e' })
      ).json();
      expect(before).toMatchObject({ enabled: true, reason: 'DEFAULT_EVALUATION_REASON' });
      await post('/api/v1/namespaces/default/flags/rw/rollouts', {
        rank: 1,
        threshold: { percentage: 100, value: false },
      });
      const after = await (
        await post('/evaluate/v1/boolean', { flagKey: 'rw', entityId: 'e' })
      ).json();
      expect(after).toMatchObject({ enabled: false, reason: 'MATCH_EVALUATION_REASON' });
    });
  });

  it('requires a client token when authentication is required, and accepts the bootstrap one', async () => {
    const token = 'bootstrap-token-for-the-e2e-test-0123456789';
    const vexil = await startVexil({
      VEXIL_AUTHENTICATION_REQUIRED: 'true',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: token,
    });
    try {
      const anonymous = await fetch(`${vexil.baseUrl}/api/v1/namespaces`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('request was not authenticated');
      const authorized = await fetch(`${vexil.baseUrl}/api/v1/namespaces`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(authorized.status).toBe(200);
      expect((await fetch(`${vexil.baseUrl}/health`)).status).toBe(200);
      expect(vexil.lines.join('\n')).not.toContain(token);
    } finally {
      expect(await vexil.stop()).toBe(0);
    }
  });

  it('keeps retrying an unreachable database, NOT_SERVING meanwhile, without leaking its password, and stops without a drain', async () => {
    const vexil = await startVexil(
      {
        VEXIL_DB_URL: 'postgres://vexil:hunter2@127.0.0.1:9/vexil',
        VEXIL_DB_CONNECT_RETRY_MAX_BACKOFF: '300ms',
        VEXIL_SERVER_SHUTDOWN_DRAIN: '60s',
      },
      { waitForServing: false },
    );
    try {
      await waitForHealth(vexil.baseUrl, 'NOT_SERVING');
      await new Promise((r) => setTimeout(r, 1500));
      const health = await fetch(`${vexil.baseUrl}/health`);
      expect(health.status).toBe(503);
      const body = (await health.json()) as { status: string; detail: string };
      expect(body.status).toBe('NOT_SERVING');
      expect(body.detail).toMatch(
        /^database unreachable: storage unavailable: postgres: .*ECONNREFUSED/,
      );
      expect(await grpcHealthCheck(vexil.grpcPort, '')).toBe('NOT_SERVING');
      const write = await fetch(`${vexil.baseUrl}/api/v1/namespaces`, {
        method: 'POST',
        body: JSON.stringify({ key: 'x', name: 'x' }),
      });
      expect(write.status).toBe(503);
      expect(((await write.json()) as { code: number }).code).toBe(14);
      const retries = vexil.lines.filter((l) => l.includes('database unreachable'));
      expect(retries.length).toBeGreaterThanOrEqual(2);
      expect(vexil.lines.join('\n')).not.toContain('hunter2');
      expect(vexil.child.exitCode).toBeNull();
    } finally {
      const stopping = Date.now();
      expect(await vexil.stop()).toBe(0);
      // It never served, so no load balancer sends it anything to drain.
      expect(Date.now() - stopping).toBeLessThan(10_000);
    }
  });

  const networkBackends = enabledSqlBackends().filter((b) => b.name !== 'sqlite');
  it.each(networkBackends.map((b) => [b.name, b] as const))(
    'on %s, a database that does not exist ends start-up at once, saying to create it',
    async (_name, backend) => {
      const url = new URL(requireUrl(backend));
      url.pathname = `/vexil_missing_${process.pid}`;
      const started = Date.now();
      const r = await runCli(['serve', '--server.http_port=0', '--server.grpc_port=0'], {
        VEXIL_DB_URL: url.toString(),
        VEXIL_LOG_ENCODING: 'console',
      });
      expect(r.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(r.stdout).toMatch(
        new RegExp(`start-up failed: database .vexil_missing_${process.pid}. does not exist`),
      );
      expect(r.stdout).toContain('create it first (CREATE DATABASE');
      expect(r.stdout).not.toContain('retrying');
      const migrate = await runCli(['migrate'], { VEXIL_DB_URL: url.toString() });
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toContain('does not exist');
    },
  );

  it('finishes in-flight requests on SIGTERM, refuses new ones, and exits 0', async () => {
    const vexil = await startVexil();
    const body = JSON.stringify({ key: 'inflight', name: 'In flight' });
    const socket = connect(vexil.httpPort, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let response = '';
    socket.on('data', (d) => (response += d.toString()));
    socket.write(
      `POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    vexil.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    await expect(fetch(`${vexil.baseUrl}/health`)).rejects.toThrow();
    socket.write(body.slice(10));
    const code = await vexil.exited;
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response).toContain('"key":"inflight"');
    expect(code).toBe(0);
    expect(vexil.lines.join('\n')).toContain('stopped');
  });
});
