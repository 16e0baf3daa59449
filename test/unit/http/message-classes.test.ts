import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { messageClasses } from '../../../src/adapters/http/message-classes';

/*
 * Requests and responses made by the server already have the Express app's prototypes, so
 * that Express's own prototype change is a no-op and both the app and plain node:http
 * handling see objects of one shape; Express and node:http both still work on them.
 */

let server: Server;
let base: string;
const seen: Array<{ request: boolean; response: boolean }> = [];

beforeAll(async () => {
  const app = express();
  app.get('/express', (req, res) => {
    res.status(201).json({
      header: req.get('x-probe') ?? null,
      path: req.path,
      app: req.app === app && res.app === app,
    });
  });
  const plain = (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('plain');
  };
  server = createServer({ ...messageClasses(app) }, (req, res) => {
    seen.push({
      request: Object.getPrototypeOf(req) === app.request,
      response: Object.getPrototypeOf(res) === app.response,
    });
    if (req.url === '/plain') plain(req, res);
    else app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('messageClasses', () => {
  it('makes requests and responses with the app prototypes, before Express sees them', async () => {
    seen.length = 0;
    await (await fetch(`${base}/plain`)).text();
    await (await fetch(`${base}/express`)).text();
    expect(seen).toEqual([
      { request: true, response: true },
      { request: true, response: true },
    ]);
  });

  it('leaves node:http and Express working on them', async () => {
    const plain = await fetch(`${base}/plain`);
    expect(plain.status).toBe(200);
    expect(await plain.text()).toBe('plain');
    const routed = await fetch(`${base}/express?x=1`, { headers: { 'x-probe': 'yes' } });
    expect(routed.status).toBe(201);
    expect(await routed.json()).toEqual({ header: 'yes', path: '/express', app: true });
  });
});
