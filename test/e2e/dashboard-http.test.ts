import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DASHBOARD_DIST_DIR } from '../../src/adapters/http/dashboard';
import * as grpc from '@grpc/grpc-js';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import { clientFor, unary } from '../unit/grpc/grpc-test-support';

const TOKEN = 'dashboard-http-test-token-aaaaaaaaaaaaaaaaaaaa';

describe('the dashboard over HTTP', () => {
  let vexil: VexilProcess;
  beforeAll(async () => {
    vexil = await startVexil();
  }, 60_000);
  afterAll(() => vexil.stop());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(vexil.baseUrl + path, { headers });

  it('serves the app at / and at client-side routes, revalidated on each load', async () => {
    for (const path of ['/', '/namespaces/default/flags', '/tokens']) {
      const res = await get(path, { Accept: 'text/html' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it('serves hashed assets compressed, with a year-long immutable cache', async () => {
    const asset = readdirSync(join(DASHBOARD_DIST_DIR, 'assets')).find((f) => f.endsWith('.js'));
    const res = await get(`/assets/${asset ?? ''}`, { 'Accept-Encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).toBe('gzip');
  });

  it('never answers an unknown API path or a missing asset with the app', async () => {
    for (const path of ['/api/v1/nope', '/meta/nope', '/evaluate/v1/nope', '/auth/v1/nope']) {
      const res = await get(path, { Accept: 'text/html' });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ code: 5, message: 'Not Found', details: [] });
    }
    expect((await get('/assets/missing.js', { Accept: 'text/html' })).status).toBe(404);
    expect((await get('/namespaces/default/flags', { Accept: 'application/json' })).status).toBe(
      404,
    );
  });

  it('answers /meta/info and /meta/config as Flipt does, without secrets', async () => {
    const info = (await (await get('/meta/info')).json()) as Record<string, unknown>;
    expect(info).toMatchObject({
      version: expect.any(String),
      updateAvailable: false,
      authentication: { required: false },
      storage: { type: 'database' },
    });
    const text = await (await get('/meta/config')).text();
    const config = JSON.parse(text) as {
      server: Record<string, unknown>;
      db: Record<string, unknown>;
    };
    expect(config.server).toMatchObject({ httpPort: 0, mode: 'read-write' });
    expect(config.db).not.toHaveProperty('url');
    expect(text).not.toMatch(/password|bootstrap"?:\s*\{[^}]*token/i);
  });
});

describe('the dashboard session with authentication required', () => {
  let vexil: VexilProcess;
  beforeAll(async () => {
    vexil = await startVexil({
      VEXIL_AUTHENTICATION_REQUIRED: 'true',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: TOKEN,
      VEXIL_SERVER_MODE: 'read-only',
    });
  }, 60_000);
  afterAll(() => vexil.stop());

  const call = (
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: unknown,
  ) =>
    fetch(vexil.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('MetadataService over gRPC answers the same JSON in an HttpBody, with a token only', async () => {
    const client = clientFor('flipt.meta.MetadataService', vexil.grpcPort);
    try {
      await expect(unary(client, 'GetInfo', {})).rejects.toMatchObject({ code: 16 });
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${TOKEN}`);
      const info = await unary<{ contentType: string; data: Buffer }>(
        client,
        'GetInfo',
        {},
        metadata,
      );
      expect(info.contentType).toBe('application/json');
      expect(JSON.parse(info.data.toString())).toMatchObject({
        authentication: { required: true },
        storage: { type: 'database', readOnly: true },
      });
      const config = await unary<{ data: Buffer }>(client, 'GetConfiguration', {}, metadata);
      const parsed = JSON.parse(config.data.toString()) as { server: { mode: string }; db: object };
      expect(parsed.server.mode).toBe('read-only');
      expect(parsed.db).not.toHaveProperty('url');
      expect(config.data.toString()).not.toContain(TOKEN);
    } finally {
      client.close();
    }
  });

  it('meta needs a token, and says the instance is read-only', async () => {
    expect((await call('GET', '/meta/info')).status).toBe(401);
    const info = await (
      await call('GET', '/meta/info', { Authorization: `Bearer ${TOKEN}` })
    ).json();
    expect(info).toMatchObject({ authentication: { required: true }, storage: { readOnly: true } });
  });

  it('exchanges a token for an HttpOnly SameSite cookie, and refuses a bad one', async () => {
    expect((await call('POST', '/dashboard/v1/session', {}, { clientToken: 'nope' })).status).toBe(
      401,
    );
    const res = await call('POST', '/dashboard/v1/session', {}, { clientToken: TOKEN });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBe(
      `flipt_client_token=${TOKEN}; Path=/; HttpOnly; SameSite=Strict`,
    );
    const session = (await res.json()) as {
      authenticated: boolean;
      csrfToken: string;
      readOnly: boolean;
    };
    expect(session).toMatchObject({ authenticated: true, readOnly: true });

    const cookie = `flipt_client_token=${TOKEN}`;
    const again = await (await call('GET', '/dashboard/v1/session', { Cookie: cookie })).json();
    expect(again).toMatchObject({ authenticated: true, csrfToken: session.csrfToken });
    expect((await call('GET', '/api/v1/namespaces', { Cookie: cookie })).status).toBe(200);
  });

  it('refuses a cookie-authenticated write without the CSRF token, not one with a bearer token', async () => {
    const cookie = `flipt_client_token=${TOKEN}`;
    const body = { key: 'x', name: 'x' };
    const forged = await call('POST', '/api/v1/namespaces', { Cookie: cookie }, body);
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { message: string }).message).toMatch(/CSRF/);
    const session = (await (
      await call('GET', '/dashboard/v1/session', { Cookie: cookie })
    ).json()) as {
      csrfToken: string;
    };
    // With the token the write reaches the service, which is read-only here.
    const sent = await call(
      'POST',
      '/api/v1/namespaces',
      { Cookie: cookie, 'X-CSRF-Token': session.csrfToken },
      body,
    );
    expect(((await sent.json()) as { message: string }).message).toMatch(/read-only/);
    const bearer = await call(
      'POST',
      '/api/v1/namespaces',
      { Authorization: `Bearer ${TOKEN}` },
      body,
    );
    expect(((await bearer.json()) as { message: string }).message).toMatch(/read-only/);
  });

  it('signs out by clearing the cookie, and a cross-site sign-in is refused', async () => {
    const out = await call('DELETE', '/dashboard/v1/session');
    expect(out.headers.get('set-cookie')).toContain(
      'flipt_client_token=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0',
    );
    const cross = await call(
      'POST',
      '/dashboard/v1/session',
      { Origin: 'https://evil.example' },
      { clientToken: TOKEN },
    );
    expect(cross.status).toBe(403);
  });
});
