import { loadConfig } from '../../src/app/config';
import { http, sharedState, startInstance, type Instance } from './auth-harness';

/*
 * cors.* over real HTTP, on the management routes (Express) and on the evaluation fast path
 * alike: preflights answered as Flipt's go-chi/cors answers them (200, no body, the requested
 * method and headers echoed, credentials, max age 300, Vary), actual requests decorated with
 * the allowed origin and `Link` exposed, anything not allowed left without Access-Control-*.
 */

const ALLOWED = 'http://app.example';
const defaults = loadConfig({ env: {} }).cors;

const evaluate = { namespaceKey: 'default', flagKey: 'on', entityId: 'e', context: {} };

function preflight(port: number, path: string, headers: Record<string, string>) {
  return http(port, 'OPTIONS', path, { headers });
}

const varyOf = (h: string | string[] | undefined): string[] =>
  (Array.isArray(h) ? h : [h ?? ''])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);

describe('CORS with an origin list and the default headers', () => {
  let vexil: Instance;
  let port: number;
  beforeAll(async () => {
    vexil = await startInstance(sharedState(), {
      required: false,
      cors: {
        allowedOrigins: [ALLOWED, 'https://*.example.org'],
        allowedHeaders: defaults.allowed_headers,
      },
    });
    port = vexil.httpPort;
    await vexil.management.createFlag({
      namespaceKey: 'default',
      key: 'on',
      name: 'On',
      description: '',
      enabled: true,
      type: 'BOOLEAN_FLAG_TYPE',
    });
  });
  afterAll(() => vexil.stop());

  it("has Flipt's defaults: any origin, Flipt's header list", () => {
    expect(defaults.enabled).toBe(false);
    expect(defaults.allowed_origins).toEqual(['*']);
    expect(defaults.allowed_headers).toEqual([
      'Accept',
      'Authorization',
      'Content-Type',
      'X-CSRF-Token',
      'X-Fern-Language',
      'X-Fern-SDK-Name',
      'X-Fern-SDK-Version',
      'X-Flipt-Namespace',
      'X-Flipt-Accept-Server-Version',
    ]);
  });

  it.each(['/evaluate/v1/boolean', '/api/v1/namespaces', '/api/v1/namespaces/default/flags'])(
    'answers an allowed preflight for %s',
    async (path) => {
      const res = await preflight(port, path, {
        Origin: ALLOWED,
        'Access-Control-Request-Method': 'post',
        'Access-Control-Request-Headers': 'content-type, authorization',
      });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(res.headers['access-control-allow-methods']).toBe('POST');
      expect(res.headers['access-control-allow-headers']).toBe('Content-Type, Authorization');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers['access-control-max-age']).toBe('300');
      expect(varyOf(res.headers['vary'])).toEqual([
        'Origin',
        'Access-Control-Request-Method',
        'Access-Control-Request-Headers',
      ]);
      expect(res.headers['x-request-id']).toBeDefined();
    },
  );

  it.each([
    ['another origin', { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'GET' }],
    [
      'a header not in the list',
      {
        Origin: ALLOWED,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'X-Secret',
      },
    ],
    [
      'a method Flipt does not allow',
      { Origin: ALLOWED, 'Access-Control-Request-Method': 'PATCH' },
    ],
    ['no origin', { 'Access-Control-Request-Method': 'GET' }],
  ])('answers a preflight with %s without any Access-Control-Allow-*', async (_, headers) => {
    const res = await preflight(port, '/evaluate/v1/boolean', headers);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
    expect(varyOf(res.headers['vary'])).toContain('Origin');
  });

  it('matches a wildcard origin, in any case', async () => {
    const res = await preflight(port, '/api/v1/namespaces', {
      Origin: 'https://Flags.Example.org',
      'Access-Control-Request-Method': 'GET',
    });
    expect(res.headers['access-control-allow-origin']).toBe('https://Flags.Example.org');
    const not = await preflight(port, '/api/v1/namespaces', {
      Origin: 'http://flags.example.org',
      'Access-Control-Request-Method': 'GET',
    });
    expect(not.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('decorates actual requests on the fast path and on Express the same way', async () => {
    const fast = await http(port, 'POST', '/evaluate/v1/boolean', {
      body: evaluate,
      headers: { Origin: ALLOWED },
    });
    const managed = await http(port, 'GET', '/api/v1/namespaces', { headers: { Origin: ALLOWED } });
    const missing = await http(port, 'GET', '/api/v1/nope', { headers: { Origin: ALLOWED } });
    for (const res of [fast, managed, missing]) {
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers['access-control-expose-headers']).toBe('Link');
      expect(varyOf(res.headers['vary'])).toContain('Origin');
      expect(res.headers['x-request-id']).toBeDefined();
    }
    expect(fast.status).toBe(200);
    expect(fast.json()).toMatchObject({ enabled: true });
    expect(managed.status).toBe(200);
    expect(missing.status).toBe(404);
  });

  it('leaves a request from another origin undecorated but answered (the browser refuses it)', async () => {
    const res = await http(port, 'POST', '/evaluate/v1/boolean', {
      body: evaluate,
      headers: { Origin: 'http://evil.example' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(varyOf(res.headers['vary'])).toContain('Origin');
  });
});

describe('CORS with any origin and any header', () => {
  let vexil: Instance;
  beforeAll(async () => {
    vexil = await startInstance(sharedState(), {
      required: false,
      cors: { allowedOrigins: ['*'], allowedHeaders: ['*'] },
    });
  });
  afterAll(() => vexil.stop());

  it('answers "*" and echoes whatever headers are asked for', async () => {
    const res = await preflight(vexil.httpPort, '/evaluate/v1/variant', {
      Origin: 'http://anywhere.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'x-anything',
    });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toBe('X-Anything');
    const actual = await http(vexil.httpPort, 'GET', '/api/v1/namespaces', {
      headers: { Origin: 'http://anywhere.example' },
    });
    expect(actual.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('CORS off (the default)', () => {
  let vexil: Instance;
  beforeAll(async () => {
    vexil = await startInstance(sharedState(), { required: false });
  });
  afterAll(() => vexil.stop());

  it('adds no CORS header and does not answer preflights', async () => {
    const res = await preflight(vexil.httpPort, '/api/v1/namespaces', {
      Origin: ALLOWED,
      'Access-Control-Request-Method': 'GET',
    });
    expect(res.status).not.toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const actual = await http(vexil.httpPort, 'GET', '/api/v1/namespaces', {
      headers: { Origin: ALLOWED },
    });
    expect(actual.headers['access-control-allow-origin']).toBeUndefined();
    expect(actual.headers['vary'] ?? '').not.toContain('Origin');
  });
});
