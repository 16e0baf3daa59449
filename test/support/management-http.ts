import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createHttpHandler } from '../../src/adapters/http';
import type { ManagementApi } from '../../src/domain/services/api';
import type { Logger } from '../../src/ports';
import { InMemoryStore } from '../../src/adapters/storage/memory/in-memory-store';
import { ConfigStore } from '../../src/domain/services/config';
import { RandomIdGenerator, SystemClock } from '../../src/adapters/system';
import { createManagementService } from '../../src/domain/services/management-service';

/*
 * Flipt's REST management API over real HTTP, against the real management service and the
 * in-memory store, for the http-management*.test.ts files: one server per test file, started
 * and stopped by the file's hooks. Assertions there are about what a Flipt client sees:
 * status, error body, JSON shape and the quirks of reference section 13.
 */

export type Json = Record<string, unknown> & { [k: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Reply {
  status: number;
  body: Json;
  text: string;
  headers: Headers;
}

export interface ManagementHttp {
  send(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Reply>;
  get(path: string): Promise<Reply>;
  post(path: string, body?: unknown): Promise<Reply>;
  put(path: string, body?: unknown): Promise<Reply>;
  del(path: string): Promise<Reply>;
  /** The fields of every error line the server logged. */
  readonly errors: unknown[];
}

/** The namespace most tests work in (created by the file's first test or its set-up). */
export const NS = '/api/v1/namespaces/team';

export const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;

export function expectError(
  reply: Reply,
  status: number,
  code: number,
  message: string | RegExp,
): void {
  expect({ status: reply.status, code: reply.body.code }).toEqual({ status, code });
  if (typeof message === 'string') expect(reply.body.message).toBe(message);
  else expect(reply.body.message).toMatch(message);
  expect(reply.body.details).toEqual([]);
  expect(reply.headers.get('content-type')).toBe('application/json');
}

/** Starts the server before the file's tests (stops it after) and returns its client. */
export function useManagementHttp(): ManagementHttp {
  const errors: unknown[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (_m, fields) => errors.push(fields),
  };
  let server: Server;
  let base = '';

  beforeAll(async () => {
    const ids = new RandomIdGenerator();
    const real = createManagementService({
      config: new ConfigStore({
        unitOfWork: new InMemoryStore({ clock: new SystemClock() }),
        clock: new SystemClock(),
        ids,
      }),
      notifier: { namespaceChanged: () => undefined },
      logger,
    });
    // A flag key that makes the service blow up with an internal-looking error.
    const management: ManagementApi = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'getFlag') {
          return async (req: Parameters<ManagementApi['getFlag']>[0]) => {
            if (req.key === 'explode')
              throw new TypeError("Cannot read properties of undefined (reading 'rows')");
            return target.getFlag(req);
          };
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    server = createServer(
      createHttpHandler({
        management,
        health: { current: () => ({ status: 'SERVING' }), subscribe: () => () => undefined },
        logger,
        bodyLimitBytes: 64 * 1024,
        ids: { uuid: () => randomUUID() },
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function send(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Reply> {
    const res = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: Json = {};
    try {
      parsed = JSON.parse(text) as Json;
    } catch {
      // non-JSON bodies are asserted through `text`
    }
    return { status: res.status, body: parsed, text, headers: res.headers };
  }

  return {
    send,
    get: (p) => send('GET', p),
    post: (p, b) => send('POST', p, b),
    put: (p, b) => send('PUT', p, b),
    del: (p) => send('DELETE', p),
    errors,
  };
}
