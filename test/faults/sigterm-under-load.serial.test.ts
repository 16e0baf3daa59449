import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import { rest, scaled } from './fault-support';

/*
 * SIGTERM in the middle of keep-alive evaluation load, over HTTP (fetch and node:http agents)
 * and gRPC. The clients behave as behind a load balancer: they stop sending once health checks
 * have said NOT_SERVING twice in a row, or a connection is refused. Nothing they sent may fail,
 * every response during the drain closes its connection, and a request already on the wire
 * when the listeners close is answered.
 */

const DRAIN_MS = 2000;
/** A load balancer's health-check interval, and how many failed checks mark an instance down. */
const CHECK_EVERY_MS = 250;
const FALL = 2;
const FETCH_CLIENTS = 3;
const AGENT_CLIENTS = 3;
const GRPC_CLIENTS = 2;
const LOAD_MS = scaled(1500, 5000);

jest.setTimeout(120_000);

const PROTO_DIR = join(__dirname, '../../src/adapters/grpc/proto');
const EVALUATION = { namespaceKey: 'load', flagKey: 'on', entityId: 'e', context: {} };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Unary = (req: unknown, cb: (err: grpc.ServiceError | null, res: Json) => void) => void;

function grpcClients(port: number): { evaluation: grpc.Client[]; health: grpc.Client } {
  const def = protoLoader.loadSync(['evaluation.proto', 'health.proto'], {
    enums: String,
    defaults: true,
    includeDirs: [PROTO_DIR],
  });
  const pkg = grpc.loadPackageDefinition(def) as Json;
  const address = `127.0.0.1:${port}`;
  const creds = grpc.credentials.createInsecure();
  return {
    // A channel option of its own keeps each client on its own HTTP/2 connection.
    evaluation: Array.from(
      { length: GRPC_CLIENTS },
      (_, i) => new pkg.flipt.evaluation.EvaluationService(address, creds, { 'test.client': i }),
    ),
    health: new pkg.grpc.health.v1.Health(address, creds),
  };
}

function unary(client: grpc.Client, method: string, req: unknown): Promise<Json> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, Unary>)[method] as Unary;
    fn.call(client, req, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** POST /evaluate/v1/boolean through a keep-alive node:http agent; resolves with the answer. */
function agentEvaluate(
  port: number,
  agent: Agent,
): Promise<{ status: number; connection: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(EVALUATION);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: 'POST',
        path: '/evaluate/v1/boolean',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          const enabled = res.statusCode === 200 && (JSON.parse(text) as Json)['enabled'] === true;
          if (!enabled) reject(new Error(`${res.statusCode} ${text}`));
          else resolve({ status: 200, connection: String(res.headers.connection) });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const refused = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === 'ECONNREFUSED' || e.cause?.code === 'ECONNREFUSED';
};

describe('SIGTERM under keep-alive evaluation load', () => {
  let vexil: VexilProcess;

  afterAll(async () => {
    await vexil?.stop('SIGKILL');
  });

  it('turns NOT_SERVING before refusing, fails no request, answers the one in flight, exits 0', async () => {
    vexil = await startVexil({ VEXIL_SERVER_SHUTDOWN_DRAIN: `${DRAIN_MS}ms` });
    await rest(vexil.baseUrl, 'POST', '/api/v1/namespaces', { key: 'load', name: 'load' });
    await rest(vexil.baseUrl, 'POST', '/api/v1/namespaces/load/flags', {
      key: 'on',
      name: 'on',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    const clients = grpcClients(vexil.grpcPort);

    const t = { sigterm: Infinity, notServing: Infinity, refused: Infinity, exit: Infinity };
    let sending = true;
    const failures: string[] = [];
    const counts = { http: 0, grpc: 0, duringDrain: 0, keptAliveDuringDrain: 0, refused: 0 };
    // A gRPC health watcher (as grpc-js's client-side health checking, or a service mesh).
    const watched: Array<{ status: string; at: number }> = [];
    const watch = (
      clients.health as unknown as { Watch: (req: unknown) => grpc.ClientReadableStream<Json> }
    ).Watch({ service: '' });
    watch.on('data', (m: Json) =>
      watched.push({ status: String(m['status']), at: performance.now() }),
    );
    const watchEnded = new Promise<number>((r) =>
      watch.on('status', (st: grpc.StatusObject) => r(st.code)),
    );
    watch.on('error', () => undefined);
    // The server notifies watchers and starts draining in the same step: a request sent after
    // the watcher heard NOT_SERVING reached a draining server.
    const drainingSince = (): number =>
      watched.find((w) => w.status === 'NOT_SERVING')?.at ?? Infinity;
    const served = (sentAt: number, connection?: string): void => {
      if (sentAt < drainingSince()) return;
      counts.duringDrain += 1;
      if (connection !== undefined && connection !== 'close') counts.keptAliveDuringDrain += 1;
    };
    const failed = (what: string, err: unknown): void => {
      if (refused(err)) {
        counts.refused += 1;
        sending = false;
        t.refused = Math.min(t.refused, performance.now());
      } else failures.push(`${what}: ${String((err as Error).message ?? err)}`);
    };

    // The load balancer's health check: GET /health every CHECK_EVERY_MS.
    const checker = (async () => {
      let down = 0;
      while (t.refused === Infinity) {
        try {
          const res = await fetch(`${vexil.baseUrl}/health`);
          const body = (await res.json()) as Json;
          if (body['status'] === 'NOT_SERVING') {
            t.notServing = Math.min(t.notServing, performance.now());
            down += 1;
            if (down >= FALL) sending = false;
          }
        } catch (err) {
          failed('health', err);
        }
        await sleep(CHECK_EVERY_MS);
      }
    })();

    const fetchLoops = Array.from({ length: FETCH_CLIENTS }, async () => {
      while (sending) {
        const sentAt = performance.now();
        try {
          const res = await fetch(`${vexil.baseUrl}/evaluate/v1/boolean`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(EVALUATION),
          });
          const body = (await res.json()) as Json;
          if (res.status !== 200 || body['enabled'] !== true) {
            failures.push(`fetch: ${res.status} ${JSON.stringify(body)}`);
          } else {
            counts.http += 1;
            served(sentAt);
          }
        } catch (err) {
          failed('fetch', err);
        }
      }
    });
    const agents = Array.from({ length: AGENT_CLIENTS }, () => {
      return new Agent({ keepAlive: true, maxSockets: 1 });
    });
    const agentLoops = agents.map(async (agent) => {
      while (sending) {
        const sentAt = performance.now();
        try {
          const { connection } = await agentEvaluate(vexil.httpPort, agent);
          counts.http += 1;
          served(sentAt, connection);
        } catch (err) {
          failed('node:http', err);
        }
      }
    });
    const grpcLoops = clients.evaluation.map(async (client) => {
      while (sending) {
        const sentAt = performance.now();
        try {
          const res = await unary(client, 'Boolean', EVALUATION);
          if (res['enabled'] !== true) failures.push(`grpc: ${JSON.stringify(res)}`);
          counts.grpc += 1;
          served(sentAt);
        } catch (err) {
          failed('grpc', err);
        }
      }
    });

    // A request on a kept-alive connection, half sent when SIGTERM arrives and finished only
    // once the listeners refuse new connections.
    const slow = connect(vexil.httpPort, '127.0.0.1');
    let slowResponse = '';
    const slowClosed = new Promise<void>((r) => slow.once('close', () => r()));
    slow.on('data', (d: Buffer) => (slowResponse += d.toString()));
    const body = JSON.stringify(EVALUATION);
    const head =
      'POST /evaluate/v1/boolean HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${body.length}\r\n\r\n`;
    slow.write(head + body);
    while (!slowResponse.includes('"enabled"')) await sleep(10);
    expect(slowResponse).toMatch(/connection: keep-alive/i);
    slowResponse = '';
    slow.write(head + body.slice(0, 10));

    await sleep(LOAD_MS);
    t.sigterm = performance.now();
    vexil.child.kill('SIGTERM');

    while (t.notServing === Infinity && performance.now() - t.sigterm < DRAIN_MS) await sleep(10);
    const grpcHealth = await unary(clients.health, 'Check', { service: '' });
    while (t.refused === Infinity && performance.now() - t.sigterm < 30_000) await sleep(10);
    slow.write(body.slice(10));
    const code = await vexil.exited;
    t.exit = performance.now();
    await Promise.all([checker, ...fetchLoops, ...agentLoops, ...grpcLoops, slowClosed]);
    const watchCode = await watchEnded;
    const watchedNotServing = drainingSince();
    for (const agent of agents) agent.destroy();
    for (const client of [...clients.evaluation, clients.health]) client.close();

    const since = (at: number): number => Math.round(at - t.sigterm);
    console.log(
      `SIGTERM under load (${FETCH_CLIENTS} fetch + ${AGENT_CLIENTS} node:http keep-alive clients, ` +
        `${GRPC_CLIENTS} gRPC clients, drain ${DRAIN_MS} ms, health checked every ${CHECK_EVERY_MS} ms, down after ${FALL} failed checks): ` +
        JSON.stringify({
          httpServed: counts.http,
          grpcServed: counts.grpc,
          servedDuringDrain: counts.duringDrain,
          failed: failures.length,
          refusedAttempts: counts.refused,
          notServingSeenAfterMs: since(t.notServing),
          grpcWatchNotServingAfterMs: since(watchedNotServing),
          refusedAfterMs: since(t.refused),
          exitedAfterMs: since(t.exit),
          exitCode: code,
        }),
    );
    expect(failures).toEqual([]);
    expect(code).toBe(0);
    expect(t.notServing).toBeLessThan(t.refused);
    expect(t.notServing - t.sigterm).toBeLessThan(CHECK_EVERY_MS + 1500);
    // The listeners kept serving for the drain period.
    expect(t.refused - t.sigterm).toBeGreaterThanOrEqual(DRAIN_MS - 50);
    expect(grpcHealth['status']).toBe('NOT_SERVING');
    // The watcher was told at once, then its stream ended cleanly when the listeners closed.
    expect(watched[0]?.status).toBe('SERVING');
    expect(watchedNotServing - t.sigterm).toBeLessThan(1000);
    expect(watchCode).toBe(grpc.status.OK);
    expect(counts.duringDrain).toBeGreaterThan(0);
    // Every response written during the drain told its client not to reuse the connection.
    expect(counts.keptAliveDuringDrain).toBe(0);
    expect(slowResponse).toMatch(/^HTTP\/1\.1 200/);
    expect(slowResponse).toMatch(/connection: close/i);
    expect(slowResponse).toContain('"enabled":true');
    expect(vexil.lines.join('\n')).toContain('stopped');
  });
});
