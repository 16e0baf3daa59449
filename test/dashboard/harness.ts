import AxeBuilder from '@axe-core/playwright';
import { expect, test as base, type Locator, type Page } from '@playwright/test';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVexil, type VexilProcess } from '../support/vexil-process';

export { expect };

/** JSON over the API, failing loudly: test data is set up through the public API. */
export class Api {
  constructor(
    readonly baseUrl: string,
    private readonly token?: string,
  ) {}

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: {
        'Content-Type': 'application/json',
        ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  post = <T = unknown>(path: string, body: unknown) => this.call<T>('POST', path, body);
  put = <T = unknown>(path: string, body: unknown) => this.call<T>('PUT', path, body);
  get = <T = unknown>(path: string) => this.call<T>('GET', path);
  del = <T = unknown>(path: string) => this.call<T>('DELETE', path);

  flag = (ns: string, key: string, type = 'BOOLEAN_FLAG_TYPE', extra: object = {}) =>
    this.post(`/api/v1/namespaces/${ns}/flags`, { key, name: key, type, ...extra });
  segment = (ns: string, key: string, constraints: object[] = [], matchType = 'ALL_MATCH_TYPE') =>
    this.post(`/api/v1/namespaces/${ns}/segments`, { key, name: key, matchType }).then(async () => {
      for (const c of constraints)
        await this.post(`/api/v1/namespaces/${ns}/segments/${key}/constraints`, c);
    });
}

interface FileServer {
  readonly file: string;
  readonly server: VexilProcess;
  readonly dbPath: string;
}

/** The running server and the file it belongs to: one worker runs the files one after another. */
let current: FileServer | undefined;

async function serverFor(file: string, env: Record<string, string>): Promise<FileServer> {
  if (current?.file === file) return current;
  await current?.server.stop();
  current = undefined;
  const dbPath = join(mkdtempSync(join(tmpdir(), 'vexil-ui-')), 'vexil.db');
  const server = await startVexil({ VEXIL_DB_URL: dbPath, ...env }, { timeoutMs: 60_000 });
  current = { file, server, dbPath };
  return current;
}

/**
 * A Vexil server per test file (started on its first test, on a fresh SQLite file), its API,
 * and pages pointed at it. `serverEnv` sets VEXIL_* keys for files that need another
 * configuration.
 */
export const test = base.extend<
  { api: Api; server: VexilProcess; dbPath: string; fileServer: FileServer },
  { serverEnv: Record<string, string>; stopServers: void }
>({
  serverEnv: [{}, { option: true, scope: 'worker' }],
  stopServers: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      await use();
      await current?.server.stop();
      current = undefined;
    },
    { scope: 'worker', auto: true },
  ],
  fileServer: async ({ serverEnv }, use, testInfo) => {
    await use(await serverFor(testInfo.file, serverEnv));
  },
  server: async ({ fileServer }, use) => use(fileServer.server),
  dbPath: async ({ fileServer }, use) => use(fileServer.dbPath),
  api: async ({ server, serverEnv }, use) => {
    await use(
      new Api(server.baseUrl, serverEnv['VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN']),
    );
  },
  baseURL: async ({ server }, use) => {
    await use(server.baseUrl);
  },
});

/** No serious or critical accessibility violation on the page as it is now. */
export async function expectAccessible(page: Page, context: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
    `accessibility of ${context}`,
  ).toEqual([]);
}

/** The error message shown beside the control labelled `label`, within `scope`. */
export function fieldError(scope: Page | Locator, label: string) {
  const page = 'page' in scope && typeof scope.page === 'function' ? scope.page() : (scope as Page);
  return scope
    .locator('.field')
    .filter({ has: page.getByLabel(label, { exact: true }) })
    .locator('.error');
}

/** Signs in through the sign-in page and waits to be let in. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Client token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/**
 * Takes a screenshot named `name`. The README's pictures in docs/images are rewritten only when
 * VEXIL_SCREENSHOTS=docs is set, so an ordinary test run leaves the working tree clean; otherwise
 * the picture goes to the (ignored) test-results directory, where a failed run can be looked at.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir =
    process.env['VEXIL_SCREENSHOTS'] === 'docs'
      ? join(__dirname, '..', '..', 'docs', 'images')
      : join(__dirname, '..', '..', 'test-results', 'screenshots');
  const file = join(dir, `${name}.png`);
  await page.screenshot({ path: file });
  expect(statSync(file).size).toBeGreaterThan(10_000);
}
