import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type RequestHandler } from 'express';
import { dashboardFiles } from '../../../src/adapters/http/dashboard/static-files';
import type { MountTools } from '../../../src/adapters/http/express-app';

describe('the dashboard files', () => {
  it('are served from a directory under a dot-directory (the executable extracts them to ~/.cache)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'vexil-dashboard-'));
    const dir = join(root, '.cache', 'vexil', 'dashboard');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'app-1234.js'), 'void 0;');
    const app = express();
    const pass: RequestHandler = (_req, _res, next) => next();
    const tools = { route: () => pass } as unknown as MountTools;
    dashboardFiles({ dir })(app, tools);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ['/', '/namespaces/default/flags']) {
        const res = await fetch(base + path, { headers: { Accept: 'text/html' } });
        expect(res.status).toBe(200);
        expect(await res.text()).toBe('<div id="root"></div>');
      }
      expect((await fetch(`${base}/assets/app-1234.js`)).status).toBe(200);
    } finally {
      server.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
