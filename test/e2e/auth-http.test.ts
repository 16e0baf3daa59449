import { Agent } from 'node:http';
import type { MemoryTokenRepository } from '../../src/adapters/storage/memory/memory-token-repository';
import {
  BOOTSTRAP_TOKEN,
  bearer,
  http,
  sharedState,
  startInstance,
  type Instance,
  type Shared,
} from './auth-harness';

/*
 * Authentication over HTTP with `authentication.required: true`: every route class
 * (management, evaluation incl. batches, legacy evaluation, snapshot, /auth/v1) against every
 * kind of credential; the open routes; the 401 shape; cookies; namespace-scoped tokens.
 */

import { ROUTES, type RouteCase } from './auth-routes';
const UNAUTHENTICATED = { code: 16, message: 'request was not authenticated', details: [] };

let shared: Shared;
let vexil: Instance;
let port: number;

/** Tokens by kind, created through the API with the bootstrap token. */
const tokens: Record<string, string> = {};

async function createToken(body: Record<string, unknown>): Promise<{
  clientToken: string;
  authentication: { id: string; expiresAt?: string; metadata: Record<string, string> };
}> {
  const res = await http(port, 'POST', '/auth/v1/method/token', {
    headers: bearer(BOOTSTRAP_TOKEN),
    body,
  });
  expect(res.status).toBe(200);
  return res.json() as never;
}

beforeAll(async () => {
  shared = sharedState();
  vexil = await startInstance(shared);
  port = vexil.httpPort;
  for (const ns of ['prod', 'staging']) {
    await vexil.management.createNamespace({ key: ns, name: ns, description: '' });
  }
  for (const ns of ['default', 'prod', 'staging']) {
    await vexil.management.createFlag({
      namespaceKey: ns,
      key: 'on',
      name: 'On',
      description: '',
      enabled: true,
      type: 'BOOLEAN_FLAG_TYPE',
    });
    await vexil.management.createFlag({
      namespaceKey: ns,
      key: 'color',
      name: 'Color',
      description: '',
      enabled: true,
      type: 'VARIANT_FLAG_TYPE',
    });
  }
  tokens['good'] = (await createToken({ name: 'good' })).clientToken;
  tokens['prod'] = (await createToken({ name: 'prod', namespaceKey: 'prod' })).clientToken;
  tokens['expired'] = (
    await createToken({ name: 'expired', expiresAt: '2020-01-01T00:00:00Z' })
  ).clientToken;
  const deleted = await createToken({ name: 'deleted' });
  tokens['deleted'] = deleted.clientToken;
  // Used once so that its lookup is cached when it is deleted.
  expect(
    (await http(port, 'GET', '/auth/v1/self', { headers: bearer(deleted.clientToken) })).status,
  ).toBe(200);
  const del = await http(port, 'DELETE', `/auth/v1/tokens/${deleted.authentication.id}`, {
    headers: bearer(BOOTSTRAP_TOKEN),
  });
  expect(del.status).toBe(200);
  expect(del.json()).toEqual({});
});

const storedRows = (s: Shared) =>
  (s.repository as MemoryTokenRepository).dump() as { authentications: unknown[] };

afterAll(async () => {
  await vexil.stop();
});

function expectUnauthenticated(res: Awaited<ReturnType<typeof http>>): void {
  expect({ status: res.status, body: res.json() }).toEqual({
    status: 401,
    body: UNAUTHENTICATED,
  });
  expect(res.headers['www-authenticate']).toBe('request was not authenticated');
  expect(res.headers['content-type']).toBe('application/json');
}

const call = (route: RouteCase, headers: Record<string, string>) =>
  http(port, route.method, route.path(), {
    headers,
    ...(route.body ? { body: route.body() } : {}),
  });

const REFUSED_CREDENTIALS: Array<[string, () => Record<string, string>]> = [
  ['no credential', () => ({})],
  ['a lower-case scheme', () => ({ Authorization: `bearer ${tokens['good']}` })],
  ['another scheme', () => ({ Authorization: `Token ${tokens['good']}` })],
  ['an empty bearer', () => ({ Authorization: 'Bearer ' })],
  ['two spaces', () => ({ Authorization: `Bearer  ${tokens['good']}` })],
  ['an unknown token', () => bearer('A'.repeat(43) + '=')],
  ['an expired token', () => bearer(tokens['expired'] ?? '')],
  ['a deleted token', () => bearer(tokens['deleted'] ?? '')],
  [
    'a header with another scheme next to a good cookie',
    () => ({
      Authorization: 'Basic dXNlcjpwYXNz',
      Cookie: `flipt_client_token=${tokens['good']}`,
    }),
  ],
];

describe.each(ROUTES)('$method $name', (route) => {
  it.each(REFUSED_CREDENTIALS)('refuses %s with 401', async (_label, headers) => {
    expectUnauthenticated(await call(route, headers()));
  });

  it('accepts a good token', async () => {
    const res = await call(route, bearer(tokens['good'] ?? ''));
    expect(res.status).toBe(200);
  });

  it('accepts a good token in the flipt_client_token cookie', async () => {
    const res = await call(route, { Cookie: `other=1; flipt_client_token=${tokens['good']}` });
    expect(res.status).toBe(200);
  });

  it(`${route.ns === 'prod' ? 'accepts' : 'refuses'} a token scoped to prod`, async () => {
    const res = await call(route, bearer(tokens['prod'] ?? ''));
    if (route.ns === 'prod') expect(res.status).toBe(200);
    else expectUnauthenticated(res);
  });
});

describe('open routes', () => {
  it.each([
    ['/health', 200],
    ['/metrics', 200],
    ['/auth/v1/method', 200],
  ])('GET %s needs no token', async (path, status) => {
    expect((await http(port, 'GET', path)).status).toBe(status);
    expect((await http(port, 'GET', path, { headers: bearer('garbage') })).status).toBe(status);
  });

  it('lists the methods as Flipt does', async () => {
    const res = await http(port, 'GET', '/auth/v1/method');
    expect(res.json()).toEqual({
      methods: [
        { method: 'METHOD_TOKEN', enabled: true, sessionCompatible: false },
        { method: 'METHOD_GITHUB', enabled: false, sessionCompatible: true },
        { method: 'METHOD_OIDC', enabled: false, sessionCompatible: true },
        { method: 'METHOD_KUBERNETES', enabled: false, sessionCompatible: false },
        { method: 'METHOD_JWT', enabled: false, sessionCompatible: false },
      ],
    });
  });

  it('an unknown route is 404 without asking for a token', async () => {
    const res = await http(port, 'GET', '/nowhere');
    expect(res.status).toBe(404);
  });
});

describe('/auth/v1 routes', () => {
  it('creates a token: 44 characters, shown once, metadata as Flipt writes it', async () => {
    const res = await http(port, 'POST', '/auth/v1/method/token', {
      headers: bearer(BOOTSTRAP_TOKEN),
      body: {
        name: 'ci',
        description: 'for CI',
        namespace_key: 'prod',
        expiresAt: '2099-01-02T03:04:05.5Z',
        metadata: { team: 'a' },
      },
    });
    expect(res.status).toBe(200);
    const body = res.json() as {
      clientToken: string;
      authentication: Record<string, unknown>;
    };
    expect(body.clientToken).toMatch(/^[A-Za-z0-9_-]{43}=$/);
    expect(Object.keys(body)).toEqual(['clientToken', 'authentication']);
    expect(body.authentication).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      method: 'METHOD_TOKEN',
      expiresAt: '2099-01-02T03:04:05.500Z',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      metadata: {
        'io.flipt.auth.token.description': 'for CI',
        'io.flipt.auth.token.name': 'ci',
        'io.flipt.auth.token.namespace': 'prod',
        team: 'a',
      },
    });
    expect(Object.keys(body.authentication)).toEqual([
      'id',
      'method',
      'expiresAt',
      'createdAt',
      'updatedAt',
      'metadata',
    ]);
    const got = await http(port, 'GET', `/auth/v1/tokens/${String(body.authentication['id'])}`, {
      headers: bearer(BOOTSTRAP_TOKEN),
    });
    expect(got.json()).toEqual(body.authentication);
    expect(got.text).not.toContain(body.clientToken);
  });

  it('omits expiresAt for a token that never expires', async () => {
    const res = await http(port, 'GET', '/auth/v1/self', { headers: bearer(tokens['good'] ?? '') });
    expect(res.json()).not.toHaveProperty('expiresAt');
    expect(res.json()).toMatchObject({
      method: 'METHOD_TOKEN',
      metadata: { 'io.flipt.auth.token.name': 'good' },
    });
  });

  it('pages the token list with decimal offsets', async () => {
    const first = await http(port, 'GET', '/auth/v1/tokens?limit=2', {
      headers: bearer(BOOTSTRAP_TOKEN),
    });
    const page = first.json() as { authentications: unknown[]; nextPageToken: string };
    expect(page.authentications).toHaveLength(2);
    expect(page.nextPageToken).toBe('2');
    expect(Object.keys(page)).toEqual(['authentications', 'nextPageToken']);
    const all = await http(port, 'GET', '/auth/v1/tokens?method=METHOD_TOKEN&limit=100', {
      headers: bearer(BOOTSTRAP_TOKEN),
    });
    const everything = all.json() as { authentications: unknown[]; nextPageToken: string };
    expect(everything.nextPageToken).toBe('');
    expect(everything.authentications.length).toBeGreaterThan(2);
    const bad = await http(port, 'GET', '/auth/v1/tokens?method=NOPE', {
      headers: bearer(BOOTSTRAP_TOKEN),
    });
    expect(bad.status).toBe(400);
  });

  it('GET of an unknown id is 404 with Flipt message; DELETE of one is {}', async () => {
    const res = await http(port, 'GET', '/auth/v1/tokens/nope', {
      headers: bearer(BOOTSTRAP_TOKEN),
    });
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({
      code: 5,
      message: 'getting authentication by token: reading authentication: resource not found',
      details: [],
    });
    const del = await http(port, 'DELETE', '/auth/v1/tokens/nope', {
      headers: bearer(BOOTSTRAP_TOKEN),
    });
    expect({ status: del.status, body: del.json() }).toEqual({ status: 200, body: {} });
  });

  it('expire self: refuses the token at once and clears the session cookies', async () => {
    const { clientToken } = await createToken({ name: 'short-lived' });
    expect(
      (await http(port, 'GET', '/auth/v1/self', { headers: bearer(clientToken) })).status,
    ).toBe(200);
    const res = await http(port, 'PUT', '/auth/v1/self/expire', { headers: bearer(clientToken) });
    expect({ status: res.status, body: res.json() }).toEqual({ status: 200, body: {} });
    expect(res.headers['set-cookie']).toEqual([
      'flipt_client_state=; Path=/; Max-Age=0',
      'flipt_client_token=; Path=/; Max-Age=0',
    ]);
    expectUnauthenticated(
      await http(port, 'GET', '/auth/v1/self', { headers: bearer(clientToken) }),
    );
    expectUnauthenticated(
      await http(port, 'POST', '/evaluate/v1/boolean', {
        headers: bearer(clientToken),
        body: { flagKey: 'on', entityId: 'x' },
      }),
    );
  });

  it('expire self at a later time keeps the token working until then', async () => {
    const { clientToken, authentication } = await createToken({ name: 'later' });
    const res = await http(port, 'PUT', '/auth/v1/self/expire?expiresAt=2099-01-01T00:00:00Z', {
      headers: bearer(clientToken),
    });
    expect(res.status).toBe(200);
    const self = await http(port, 'GET', '/auth/v1/self', { headers: bearer(clientToken) });
    expect(self.json()).toMatchObject({ id: authentication.id, expiresAt: '2099-01-01T00:00:00Z' });
  });

  it('a refused /auth/v1 call with the token cookie clears the session cookies', async () => {
    const res = await http(port, 'GET', '/auth/v1/self', {
      headers: { Cookie: 'flipt_client_token=unknown' },
    });
    expectUnauthenticated(res);
    expect(res.headers['set-cookie']).toEqual([
      'flipt_client_state=; Path=/; Max-Age=0',
      'flipt_client_token=; Path=/; Max-Age=0',
    ]);
    const noCookie = await http(port, 'GET', '/auth/v1/self');
    expect(noCookie.headers['set-cookie']).toBeUndefined();
  });

  it('refuses before reading the body: a bad body with no token is still 401', async () => {
    expectUnauthenticated(await http(port, 'POST', '/evaluate/v1/boolean', { body: '{not json' }));
    expectUnauthenticated(
      await http(port, 'POST', '/api/v1/namespaces/prod/flags', { body: '{not json' }),
    );
  });
});

describe('the caller travels with the request', () => {
  it('keep-alive connections alternate good, scoped and missing tokens without mixing them up', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    try {
      const sequence = Array.from({ length: 60 }, (_, i) => i % 3);
      const results = await Promise.all(
        sequence.map((kind) =>
          http(port, 'GET', '/api/v1/namespaces/staging/flags', {
            agent,
            headers:
              kind === 0
                ? bearer(tokens['good'] ?? '')
                : kind === 1
                  ? bearer(tokens['prod'] ?? '')
                  : {},
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(sequence.map((k) => (k === 0 ? 200 : 401)));
    } finally {
      agent.destroy();
    }
  });
});

describe('deletion across instances', () => {
  it('a token deleted on one instance stops working on another within 1 s, cached or not', async () => {
    const other = await startInstance(shared);
    try {
      const { clientToken, authentication } = await createToken({ name: 'shared' });
      const evaluate = () =>
        http(other.httpPort, 'POST', '/evaluate/v1/boolean', {
          headers: bearer(clientToken),
          body: { flagKey: 'on', entityId: 'e' },
        });
      expect((await evaluate()).status).toBe(200); // now cached on `other`
      const del = await http(port, 'DELETE', `/auth/v1/tokens/${authentication.id}`, {
        headers: bearer(BOOTSTRAP_TOKEN),
      });
      expect(del.status).toBe(200);
      // On the instance that deleted it: at once.
      expectUnauthenticated(
        await http(port, 'GET', '/auth/v1/self', { headers: bearer(clientToken) }),
      );
      const deletedAt = performance.now();
      let status = 200;
      while (status === 200 && performance.now() - deletedAt < 2000) {
        status = (await evaluate()).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(401);
      expect(performance.now() - deletedAt).toBeLessThan(1000);
    } finally {
      await other.stop();
    }
  });
});

describe('the bootstrap token', () => {
  it('is created once, with Flipt metadata, and is usable', async () => {
    const res = await http(port, 'GET', '/auth/v1/self', { headers: bearer(BOOTSTRAP_TOKEN) });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({
      metadata: {
        'io.flipt.auth.token.name': 'initial_bootstrap_token',
        'io.flipt.auth.token.description':
          'Initial token created when bootstrapping authentication',
      },
    });
    // A second instance on the same storage finds tokens and creates none.
    const count = () => storedRows(shared).authentications.length;
    const before = count();
    const other = await startInstance(shared, { bootstrapToken: 'another-bootstrap-token-value' });
    await other.stop();
    expect(count()).toBe(before);
    expect(
      (
        await http(port, 'GET', '/auth/v1/self', {
          headers: bearer('another-bootstrap-token-value'),
        })
      ).status,
    ).toBe(401);
  });
});

describe('plaintext tokens', () => {
  it('appear neither in the logs nor in the stored rows', async () => {
    const stored = JSON.stringify(storedRows(shared));
    const logs = vexil.logger.text();
    expect(vexil.logger.lines.length).toBeGreaterThan(50);
    for (const token of [BOOTSTRAP_TOKEN, ...Object.values(tokens)]) {
      expect(stored).not.toContain(token);
      expect(logs).not.toContain(token);
    }
    expect(stored).toContain('hashedClientToken'); // the dump does hold the rows
  });
});
