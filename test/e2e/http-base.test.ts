import {
  createServer,
  IncomingMessage,
  request as httpRequest,
  ServerResponse,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createHttpHandler, sendJson, type HttpDeps } from '../../src/adapters/http';
import { NotFoundError, UnauthenticatedError } from '../../src/domain/errors';
import type { ManagementApi } from '../../src/domain/services/api';
import type { HealthSnapshot, Logger } from '../../src/ports';

/*
 * The transport base over real HTTP: health, request ids, access log, body limit, error
 * writing, guards and extra routes. The management API is a stub here; the full
 * management surface runs against the real service in http-management.test.ts.
 */

interface LogLine {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

const lines: LogLine[] = [];
const logger: Logger = {
  debug: (message, fields) => lines.push({ level: 'debug', message, fields }),
  info: (message, fields) => lines.push({ level: 'info', message, fields }),
  warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
  error: (message, fields) => lines.push({ level: 'error', message, fields }),
};

let health: HealthSnapshot = { status: 'SERVING' };
let guardCalls = 0;
let requireAuth = false;

const management = {
  getFlag: async (req: { key: string }) => {
    if (req.key === 'boom') throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2');
    throw new NotFoundError(`flag "default/${req.key}" not found`);
  },
  createNamespace: async (req: { key: string; name: string; description: string }) => ({
    ...req,
    protected: false,
    createdAt: '2024-05-01T10:00:00.000000Z',
    updatedAt: '2024-05-01T10:00:00.000000Z',
  }),
} as unknown as ManagementApi;

const deps: HttpDeps = {
  management,
  health: { current: () => health, subscribe: () => () => undefined },
  logger,
  bodyLimitBytes: 1024,
  ids: { uuid: () => randomUUID() },
  guards: [
    () => {
      guardCalls++;
      if (requireAuth) throw new UnauthenticatedError();
    },
  ],
  extraRoutes: [
    {
      method: 'POST',
      pattern: '/evaluate/v1/echo/:name',
      handle: async ({ res, params, readJson }) => {
        sendJson(res, 200, { name: params.name, body: (await readJson()) ?? null });
      },
    },
  ],
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer(createHttpHandler(deps));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  health = { status: 'SERVING' };
  requireAuth = false;
  guardCalls = 0;
  lines.length = 0;
});

const call = (path: string, init?: RequestInit): Promise<Response> => fetch(base + path, init);

describe('GET /health', () => {
  it('answers SERVING with a trailing newline', async () => {
    const res = await call('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('{"status":"SERVING"}\n');
  });

  it('answers 503 NOT_SERVING when the reporter says so', async () => {
    health = { status: 'NOT_SERVING', detail: 'database unreachable' };
    const res = await call('/health/');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'NOT_SERVING', detail: 'database unreachable' });
  });

  it('accepts known service names and rejects unknown ones', async () => {
    expect((await call('/health?service=flipt.Flipt')).status).toBe(200);
    expect((await call('/health?service=')).status).toBe(200);
    const res = await call('/health?service=nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 5, message: 'unknown service', details: [] });
  });

  it('is never guarded', async () => {
    requireAuth = true;
    expect((await call('/health')).status).toBe(200);
    expect(guardCalls).toBe(0);
  });

  it('answers another method with 501', async () => {
    const res = await call('/health', { method: 'POST' });
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual({ code: 12, message: 'Method Not Allowed', details: [] });
  });
});

describe('request ids and the access log', () => {
  it('echoes a given x-request-id and logs one line with the route pattern', async () => {
    const res = await call('/api/v1/flags/some-flag?x=1', {
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    await res.text();
    await new Promise((r) => setImmediate(r));
    const access = lines.filter((l) => l.message === 'http request');
    expect(access).toHaveLength(1);
    expect(access[0]?.fields).toMatchObject({
      method: 'GET',
      route: '/api/v1/flags/:key',
      status: 404,
      requestId: 'abc-123',
    });
    expect(typeof access[0]?.fields?.durationMs).toBe('number');
  });

  it('generates a UUID when none is given', async () => {
    const res = await call('/health');
    expect(res.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

describe('errors', () => {
  it('answers an unexpected error with a generic 500 and logs the stack', async () => {
    const res = await call('/api/v1/namespaces/default/flags/boom');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ code: 13, message: 'internal error', details: [] });
    expect(text).not.toMatch(/hunter2|ECONNREFUSED|at /);
    const logged = lines.find((l) => l.level === 'error');
    expect(logged?.fields?.stack).toEqual(expect.stringContaining('ECONNREFUSED'));
  });

  it('sets WWW-Authenticate on 401 from a guard, before the body is read', async () => {
    requireAuth = true;
    const res = await call('/api/v1/namespaces', { method: 'POST', body: '{not json' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('request was not authenticated');
    expect(await res.json()).toEqual({
      code: 16,
      message: 'request was not authenticated',
      details: [],
    });
  });

  it('answers unknown paths with 404 Not Found', async () => {
    for (const path of ['/nope', '/api/v1/nope', '/api/v1/namespaces/a/b/c/d/e/f/g']) {
      const res = await call(path);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ code: 5, message: 'Not Found', details: [] });
    }
  });
});

describe('bodies', () => {
  it('accepts JSON sent as text/plain, as the Flipt SDK does', async () => {
    const res = await call('/api/v1/namespaces', {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({ key: 'k', name: 'N' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ key: 'k', name: 'N', description: '' });
  });

  it('refuses a body over the limit with 413 (declared length)', async () => {
    const res = await call('/api/v1/namespaces', { method: 'POST', body: 'x'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      code: 8,
      message: 'request body is larger than the limit of 1024 bytes',
      details: [],
    });
  });

  it('refuses a chunked body over the limit with 413 while streaming', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const url = new URL(`${base}/api/v1/namespaces`);
        const req = httpRequest(
          { host: url.hostname, port: url.port, path: url.pathname, method: 'POST' },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject);
        req.write('{"key":"' + 'a'.repeat(800));
        req.write('b'.repeat(800) + '"}');
        req.end();
      },
    );
    expect(status).toBe(413);
    expect(JSON.parse(body).code).toBe(8);
  });

  it('serves extra routes in front of Express, with the same body reading', async () => {
    const res = await call('/evaluate/v1/echo/a%20b/', { method: 'POST', body: '{"x":1}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'a b', body: { x: 1 } });
    expect(guardCalls).toBe(1);
    const bad = await call('/evaluate/v1/echo/x', { method: 'POST', body: '{"x":' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ code: 3, message: 'unexpected EOF', details: [] });
    expect((await call('/evaluate/v1/echo/x')).status).toBe(501);
  });
});

describe('request and response objects', () => {
  it('keep node:http’s own prototypes through management, evaluation and unknown routes', async () => {
    const handler = createHttpHandler({ ...deps, guards: [] });
    const seen: boolean[] = [];
    const standalone = createServer((req, res) => {
      handler(req, res);
      res.on('close', () => {
        seen.push(
          Object.getPrototypeOf(req) === IncomingMessage.prototype &&
            Object.getPrototypeOf(res) === ServerResponse.prototype,
        );
      });
    });
    await new Promise<void>((resolve) => standalone.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(standalone.address() as AddressInfo).port}`;
      expect((await fetch(`${url}/api/v1/flags/x`)).status).toBe(404);
      const created = await fetch(`${url}/api/v1/namespaces`, {
        method: 'POST',
        body: JSON.stringify({ key: 'k', name: 'K' }),
      });
      expect(created.status).toBe(200);
      expect((await fetch(`${url}/nowhere`)).status).toBe(404);
      expect(
        (await fetch(`${url}/evaluate/v1/echo/a`, { method: 'POST', body: '{}' })).status,
      ).toBe(200);
      await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([true, true, true, true]);
    } finally {
      await new Promise<void>((resolve) => standalone.close(() => resolve()));
    }
  });
});
