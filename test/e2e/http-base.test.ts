import {
  createServer,
  IncomingMessage,
  request as httpRequest,
  ServerResponse,
  type Server,
} from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import {
  createHttpHandler,
  sendJson,
  type HttpDeps,
  type HttpExchange,
} from '../../src/adapters/http';
import type { JsonRoute } from '../../src/adapters/http/http-handler';
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
  fastRoutes: [
    {
      method: 'POST',
      pattern: '/evaluate/v1/echo/:name',
      handle: async ({ res, params, readJson }: HttpExchange) => {
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
  it('keep node:http’s own prototypes on the evaluation routes, served in front of Express', async () => {
    const handler = createHttpHandler({ ...deps, guards: [] });
    const seen: Array<[string, boolean]> = [];
    const standalone = createServer((req, res) => {
      handler(req, res);
      res.on('close', () => {
        seen.push([
          req.url ?? '',
          Object.getPrototypeOf(req) === IncomingMessage.prototype &&
            Object.getPrototypeOf(res) === ServerResponse.prototype,
        ]);
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
      // Express serves the others, on its own request and response prototypes.
      expect(seen).toEqual([
        ['/api/v1/flags/x', false],
        ['/api/v1/namespaces', false],
        ['/nowhere', false],
        ['/evaluate/v1/echo/a', true],
      ]);
    } finally {
      await new Promise<void>((resolve) => standalone.close(() => resolve()));
    }
  });
});

describe('answers of JSON routes', () => {
  /** A JSON route that echoes `n`, logging when each answer is computed and written. */
  async function turnServer(log: string[]): Promise<{ server: Server; port: number }> {
    const route: JsonRoute = {
      method: 'POST',
      pattern: '/evaluate/v1/turn',
      public: true,
      handle: () => undefined,
      answer: (body) => {
        const n = (body as { n: string }).n;
        log.push(`answer ${n}`);
        return { n };
      },
    };
    const handler = createHttpHandler({ ...deps, guards: [], fastRoutes: [route] });
    const server = createServer((req, res) => {
      const writeHead = res.writeHead;
      res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
        log.push(`write ${String(req.headers['x-request-id'])}`);
        return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
      } as typeof res.writeHead;
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port };
  }

  const rawRequest = (n: string): string => {
    const body = JSON.stringify({ n });
    return (
      `POST /evaluate/v1/turn HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${n}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
    );
  };

  /** Sockets connected and accepted by `server`, each collecting what it receives. */
  async function connect(
    server: Server,
    port: number,
    count: number,
  ): Promise<Array<{ socket: Socket; received: () => string }>> {
    let accepted = 0;
    const onConnection = (): void => void accepted++;
    server.on('connection', onConnection);
    const clients = await Promise.all(
      Array.from({ length: count }, async () => {
        const socket = netConnect(port, '127.0.0.1');
        let data = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (data += chunk));
        socket.on('error', () => undefined);
        await new Promise((resolve) => socket.once('connect', resolve));
        return { socket, received: () => data };
      }),
    );
    await waitFor(() => accepted === count);
    server.off('connection', onConnection);
    return clients;
  }

  /** Blocks this process, so requests written before reach the server in one turn. */
  const blockFor = (ms: number): void => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // busy: the server reads nothing until the loop turns
    }
  };

  const waitFor = async (check: () => boolean): Promise<void> => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(check()).toBe(true);
  };

  /** A turn server with `count` clients connected, torn down after `fn`. */
  async function withClients(
    count: number,
    fn: (
      clients: Array<{ socket: Socket; received: () => string }>,
      log: string[],
    ) => Promise<void>,
  ): Promise<void> {
    const log: string[] = [];
    const { server, port } = await turnServer(log);
    const clients = await connect(server, port, count);
    try {
      await fn(clients, log);
    } finally {
      clients.forEach((c) => c.socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  it('writes the answers computed in one turn together, once all of them are computed', async () => {
    await withClients(3, async (clients, log) => {
      clients.forEach((c, i) => c.socket.write(rawRequest(`r${i}`)));
      blockFor(50);
      await waitFor(() => clients.every((c) => c.received().includes('\r\n\r\n{"n"')));
      expect(log.slice(0, 3).sort()).toEqual(['answer r0', 'answer r1', 'answer r2']);
      expect(log.slice(3).sort()).toEqual(['write r0', 'write r1', 'write r2']);
      clients.forEach((c, i) => {
        expect(c.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
        expect(c.received()).toContain(`\r\nX-Request-Id: r${i}\r\n`);
        expect(c.received().endsWith(`\r\n\r\n{"n":"r${i}"}`)).toBe(true);
      });
    });
  });

  it('still answers the others when a client leaves before its answer is written', async () => {
    await withClients(3, async (clients) => {
      clients.forEach((c, i) => c.socket.write(rawRequest(`r${i}`)));
      // The middle client resets its connection before the server reads anything.
      (clients[1] as { socket: Socket }).socket.resetAndDestroy();
      blockFor(50);
      const [first, , last] = clients as [(typeof clients)[0], unknown, (typeof clients)[0]];
      await waitFor(
        () => first.received().endsWith('{"n":"r0"}') && last.received().endsWith('{"n":"r2"}'),
      );
      // A keep-alive connection still serves the next request.
      first.socket.write(rawRequest('again'));
      await waitFor(() => first.received().endsWith('{"n":"again"}'));
    });
  });
});
