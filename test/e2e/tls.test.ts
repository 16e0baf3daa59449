import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { clientFor, unary } from '../unit/grpc/grpc-test-support';
import { runCli, startVexil, type VexilProcess } from '../support/vexil-process';

/*
 * server.protocol: https with Flipt's keys (cert_file, cert_key, https_port): the built server
 * over real HTTPS (the evaluation fast path and Express) and real gRPC over TLS, with a
 * self-signed certificate made for the test; and the start-up errors naming the key at fault.
 */

const dir = mkdtempSync(join(tmpdir(), 'vexil-tls-'));

function selfSigned(name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

const pair = selfSigned('server');
const other = selfSigned('other');
const ca = readFileSync(pair.cert);

function https(
  port: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, method, path, ca, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function serving(port: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const health = await https(port, 'GET', '/health').catch(() => undefined);
    if ((health?.json as { status?: string } | undefined)?.status === 'SERVING') return;
    if (Date.now() > deadline) throw new Error('not SERVING over HTTPS in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('server.protocol: https', () => {
  let vexil: VexilProcess;
  const config = join(dir, 'flipt.yml');

  beforeAll(async () => {
    // Written as a Flipt configuration names these keys.
    writeFileSync(
      config,
      [
        'server:',
        '  protocol: https',
        '  host: 127.0.0.1',
        '  https_port: 0',
        '  grpc_port: 0',
        `  cert_file: ${pair.cert}`,
        `  cert_key: ${pair.key}`,
        'db:',
        `  url: file:${join(dir, 'flags.db')}`,
      ].join('\n'),
    );
    vexil = await startVexil(
      { VEXIL_SERVER_SHUTDOWN_DRAIN: '1s' },
      { args: ['--config', config], waitForServing: false },
    );
    await serving(vexil.httpPort);
  });
  afterAll(() => vexil.stop());

  it('starts without a warning about the TLS keys', () => {
    const warnings = vexil.lines.filter((l) => l.includes('configuration: '));
    expect(warnings).toEqual([]);
  });

  it('serves management and the evaluation fast path over HTTPS', async () => {
    const created = await https(vexil.httpPort, 'POST', '/api/v1/namespaces/default/flags', {
      key: 'tls',
      name: 'TLS',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    expect(created.status).toBe(200);
    const evaluated = await https(vexil.httpPort, 'POST', '/evaluate/v1/boolean', {
      namespaceKey: 'default',
      flagKey: 'tls',
      entityId: 'e',
      context: {},
    });
    expect(evaluated.status).toBe(200);
    expect(evaluated.json).toMatchObject({ enabled: true, flagKey: 'tls' });
  });

  it('does not answer plain HTTP on the HTTPS port', async () => {
    const status = await new Promise<number | string>((resolve) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: vexil.httpPort, path: '/health', agent: false },
        (res) => resolve(res.statusCode ?? 0),
      );
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      req.end();
    });
    expect(status).not.toBe(200);
  });

  it('serves gRPC over TLS with the same certificate, and refuses a plaintext client', async () => {
    const secure = clientFor('flipt.Flipt', vexil.grpcPort, grpc.credentials.createSsl(ca));
    try {
      const flag = await unary<{ key: string; enabled: boolean }>(secure, 'GetFlag', {
        namespaceKey: 'default',
        key: 'tls',
      });
      expect(flag).toMatchObject({ key: 'tls', enabled: true });
    } finally {
      secure.close();
    }
    const evaluation = clientFor(
      'flipt.evaluation.EvaluationService',
      vexil.grpcPort,
      grpc.credentials.createSsl(ca),
    );
    try {
      const res = await unary<{ enabled: boolean }>(evaluation, 'Boolean', {
        namespaceKey: 'default',
        flagKey: 'tls',
        entityId: 'e',
      });
      expect(res.enabled).toBe(true);
    } finally {
      evaluation.close();
    }
    const plain = clientFor('flipt.Flipt', vexil.grpcPort);
    try {
      await expect(unary(plain, 'ListNamespaces', {})).rejects.toMatchObject({
        code: grpc.status.UNAVAILABLE,
      });
    } finally {
      plain.close();
    }
  });

  it('vexil health asks over HTTPS on server.https_port', async () => {
    const run = await runCli(['health', '--config', config], {
      VEXIL_SERVER_HTTPS_PORT: String(vexil.httpPort),
    });
    expect(run.stdout.trim()).toBe('SERVING');
    expect(run.code).toBe(0);
  });

  // Last: it stops the server.
  it('on SIGTERM, answers NOT_SERVING during the drain and closes each HTTPS connection after its response', async () => {
    const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca });
    const get = (path: string) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = httpsRequest(
          { host: '127.0.0.1', port: vexil.httpPort, path, agent },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      });
    const flag = { key: 'drain', name: 'drain', type: 'BOOLEAN_FLAG_TYPE', enabled: true };
    await https(vexil.httpPort, 'POST', '/api/v1/namespaces/default/flags', flag);
    expect(await get('/health')).toEqual({ status: 200, connection: 'keep-alive' });
    // A request whose body is still coming when SIGTERM arrives.
    const slow = tlsConnect({ host: '127.0.0.1', port: vexil.httpPort, ca });
    await once(slow, 'secureConnect');
    let response = '';
    slow.on('data', (d: Buffer) => (response += d.toString()));
    const body = JSON.stringify({ namespaceKey: 'default', flagKey: 'drain', entityId: 'e' });
    slow.write(
      'POST /evaluate/v1/boolean HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    vexil.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    expect(await get('/health')).toEqual({ status: 503, connection: 'close' });
    const closed = once(slow, 'close');
    slow.write(body.slice(10));
    await closed;
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response).toMatch(/connection: close/i);
    expect(response).toContain('"enabled":true');
    expect(await vexil.exited).toBe(0);
    agent.destroy();
  });
});

describe('server.protocol: https start-up errors', () => {
  const base = {
    VEXIL_SERVER_HOST: '127.0.0.1',
    VEXIL_SERVER_HTTPS_PORT: '0',
    VEXIL_SERVER_GRPC_PORT: '0',
    VEXIL_DB_URL: `file:${join(dir, 'errors.db')}`,
    FLIPT_SERVER_PROTOCOL: 'https',
  };

  it.each([
    [
      'a missing certificate file',
      { FLIPT_SERVER_CERT_FILE: join(dir, 'nope.crt'), FLIPT_SERVER_CERT_KEY: pair.key },
      `server.cert_file: cannot read ${join(dir, 'nope.crt')}: ENOENT`,
    ],
    [
      'a key file that is not a key',
      { FLIPT_SERVER_CERT_FILE: pair.cert, FLIPT_SERVER_CERT_KEY: pair.cert },
      'server.cert_key: ',
    ],
    [
      'a key of another certificate',
      { FLIPT_SERVER_CERT_FILE: pair.cert, FLIPT_SERVER_CERT_KEY: other.key },
      'is not the key of server.cert_file',
    ],
    [
      'no key at all',
      { FLIPT_SERVER_CERT_FILE: pair.cert },
      'server.cert_key: required when server.protocol is https',
    ],
  ])('%s ends start-up with one line naming the key', async (_, env, text) => {
    const run = await runCli(['serve'], { ...base, ...env });
    expect(run.code).toBe(1);
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([expect.stringContaining(text)]);
  });
});
