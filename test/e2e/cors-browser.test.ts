import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from '@playwright/test';
import { startVexil, type VexilProcess } from '../support/vexil-process';

/*
 * CORS from a real browser (Debian's Chromium through Playwright): a page served from another
 * origin calls Vexil with fetch(). From an allowed origin the calls succeed, including those
 * that need a preflight (a JSON body, Flipt's namespace header, credentials); from another
 * origin, or with a header Vexil does not allow, the browser refuses them.
 */

async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>app</title><p>app</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface FetchOutcome {
  readonly status?: number;
  readonly body?: unknown;
  readonly error?: string;
}

describe('CORS from a browser page on another origin', () => {
  let allowed: Awaited<ReturnType<typeof pageServer>>;
  let refused: Awaited<ReturnType<typeof pageServer>>;
  let vexil: VexilProcess;
  let browser: Browser;

  beforeAll(async () => {
    allowed = await pageServer();
    refused = await pageServer();
    vexil = await startVexil({
      VEXIL_DB_URL: join(mkdtempSync(join(tmpdir(), 'vexil-cors-')), 'vexil.db'),
      FLIPT_CORS_ENABLED: 'true',
      // Flipt's form from the environment: a whitespace-separated list.
      FLIPT_CORS_ALLOWED_ORIGINS: `http://app.example ${allowed.origin}`,
    });
    const created = await fetch(`${vexil.baseUrl}/api/v1/namespaces/default/flags`, {
      method: 'POST',
      body: JSON.stringify({ key: 'web', name: 'Web', type: 'BOOLEAN_FLAG_TYPE', enabled: true }),
    });
    expect(created.status).toBe(200);
    browser = await chromium.launch({
      executablePath: process.env.VEXIL_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
    allowed?.server.close();
    refused?.server.close();
  });

  /** Runs fetch() in a page of `origin` against Vexil. */
  async function fetchFrom(origin: string, path: string, init: RequestInit): Promise<FetchOutcome> {
    const page = await browser.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async ([url, options]) => {
          try {
            const res = await fetch(url, options);
            return { status: res.status, body: (await res.json()) as unknown };
          } catch (err) {
            return { error: String(err) };
          }
        },
        [`${vexil.baseUrl}${path}`, init] as const,
      );
    } finally {
      await page.close();
    }
  }

  const evaluation: RequestInit = {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Flipt-Namespace': 'default' },
    body: JSON.stringify({ namespaceKey: 'default', flagKey: 'web', entityId: 'e', context: {} }),
  };

  it('lets an allowed origin evaluate (a preflighted POST on the fast path)', async () => {
    const outcome = await fetchFrom(allowed.origin, '/evaluate/v1/boolean', evaluation);
    expect(outcome).toMatchObject({ status: 200, body: { enabled: true, flagKey: 'web' } });
  });

  it('lets an allowed origin call the management API with credentials', async () => {
    const outcome = await fetchFrom(allowed.origin, '/api/v1/namespaces', {
      credentials: 'include',
    });
    expect(outcome.status).toBe(200);
    expect(outcome.body).toMatchObject({
      namespaces: [expect.objectContaining({ key: 'default' })],
    });
  });

  it('refuses another origin, for simple and preflighted requests alike', async () => {
    const simple = await fetchFrom(refused.origin, '/api/v1/namespaces', {});
    expect(simple.error).toMatch(/Failed to fetch/);
    const preflighted = await fetchFrom(refused.origin, '/evaluate/v1/boolean', evaluation);
    expect(preflighted.error).toMatch(/Failed to fetch/);
  });

  it('refuses a header outside cors.allowed_headers', async () => {
    const outcome = await fetchFrom(allowed.origin, '/api/v1/namespaces', {
      headers: { 'X-Not-Allowed': '1' },
    });
    expect(outcome.error).toMatch(/Failed to fetch/);
  });
});
