import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { createAuthComponents, type AuthComponents } from '../../src/adapters/auth';
import {
  bindGrpcServer,
  createGrpcServer,
  shutdownGrpcServer,
} from '../../src/adapters/grpc/server';
import {
  createCors,
  createHttpHandler,
  type CorsOptions,
  type HttpRoute,
} from '../../src/adapters/http';
import type { AuthenticationExclusions } from '../../src/domain/auth';
import { createEvaluationRoutes } from '../../src/adapters/http/evaluation';
import { InMemoryStore } from '../../src/adapters/storage/memory/in-memory-store';
import { ConfigStore } from '../../src/domain/services/config';
import { MemoryTokenRepository } from '../../src/adapters/storage/memory/memory-token-repository';
import { RandomIdGenerator, SystemClock } from '../../src/adapters/system';
import { createManagementService } from '../../src/domain/services/management-service';
import { EvaluationService, NamespaceSnapshots } from '../../src/domain/services/evaluation';
import type { ManagementApi } from '../../src/domain/services/api';
import type { Logger, TokenRepository } from '../../src/ports';

/*
 * An in-process Vexil built from the real pieces (HTTP handler, gRPC server, management and
 * evaluation services over the in-memory store) with authentication wired through
 * createAuthComponents, as the composition root wires it.
 */

export const BOOTSTRAP_TOKEN = 'bootstrap-operator-token-for-the-e2e-suite';

export interface LogLine {
  readonly level: string;
  readonly message: string;
  readonly fields?: Record<string, unknown>;
}

export function captureLogger(): Logger & { lines: LogLine[]; text(): string } {
  const lines: LogLine[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, ...(fields ? { fields } : {}) });
    };
  return {
    lines,
    text: () => JSON.stringify(lines),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

export interface Shared {
  readonly store: InMemoryStore;
  readonly repository: TokenRepository;
}

export function sharedState(repository: TokenRepository = new MemoryTokenRepository()): Shared {
  const clock = new SystemClock();
  return { store: new InMemoryStore({ clock }), repository };
}

export interface Instance {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly auth: AuthComponents;
  readonly logger: ReturnType<typeof captureLogger>;
  /** The management API behind the transports, without authentication (to seed data). */
  readonly management: ManagementApi;
  stop(): Promise<void>;
}

export interface InstanceOptions {
  readonly required?: boolean;
  readonly tokenMethodEnabled?: boolean;
  readonly bootstrapToken?: string;
  readonly logger?: ReturnType<typeof captureLogger>;
  /** authentication.exclude.* */
  readonly exclude?: AuthenticationExclusions;
  /** cors.* when enabled. */
  readonly cors?: CorsOptions;
}

const stopwatch = { nowMs: () => performance.now() };

/** One instance over `shared` storage; several instances on one `shared` act as a cluster. */
export async function startInstance(
  shared: Shared,
  options: InstanceOptions = {},
): Promise<Instance> {
  const clock = new SystemClock();
  const ids = new RandomIdGenerator();
  const logger = options.logger ?? captureLogger();
  // 'version-check' re-reads the namespace version, so writes made through another instance
  // over the same store are seen.
  const snapshots = new NamespaceSnapshots(shared.store, { mode: 'version-check', stopwatch });
  const management = createManagementService({
    config: new ConfigStore({ unitOfWork: shared.store.unitOfWork, clock, ids }),
    notifier: { namespaceChanged: (ns) => snapshots.invalidate(ns) },
    logger,
  });
  const evaluation = new EvaluationService({
    snapshots,
    clock,
    ids,
    stopwatch,
    maxBatchSize: 100,
  });
  const auth = createAuthComponents({
    required: options.required ?? true,
    ...(options.exclude ? { exclude: options.exclude } : {}),
    tokenMethodEnabled: options.tokenMethodEnabled ?? true,
    bootstrap: { token: options.bootstrapToken ?? BOOTSTRAP_TOKEN, expirationMs: 0 },
    cleanup: { intervalMs: 3_600_000, gracePeriodMs: 1_800_000 },
    repository: shared.repository,
    clock,
    ids,
    stopwatch,
    logger,
  });
  await auth.start();

  const health = {
    current: () => ({ status: 'SERVING' as const }),
    subscribe: () => () => undefined,
  };
  const metricsRoute: HttpRoute = {
    method: 'GET',
    pattern: '/metrics',
    public: true,
    handle: ({ res }) => {
      res.setHeader('Content-Type', 'text/plain; version=0.0.4');
      res.end('# metrics\n');
    },
  };
  const httpServer: Server = createServer(
    createHttpHandler({
      management,
      health,
      logger,
      bodyLimitBytes: 1 << 20,
      ids,
      fastRoutes: auth.scopeEvaluationRoutes(createEvaluationRoutes({ evaluation, logger })),
      routes: [metricsRoute, ...auth.httpRoutes],
      guards: auth.httpGuards,
      ...(options.cors ? { cors: createCors(options.cors) } : {}),
    }),
  );
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const grpcServer = createGrpcServer({
    management,
    health,
    logger,
    ids,
    evaluation: { api: evaluation },
    auth: auth.grpcAuth,
    ...(auth.grpcAuthenticator ? { authenticator: auth.grpcAuthenticator } : {}),
  });
  const grpcPort = await bindGrpcServer(grpcServer, '127.0.0.1', 0);
  return {
    httpPort: (httpServer.address() as AddressInfo).port,
    grpcPort,
    auth,
    logger,
    management,
    stop: async () => {
      await auth.stop();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      await shutdownGrpcServer(grpcServer, 1000);
    },
  };
}

export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  json(): unknown;
}

/** One HTTP request with its own connection (no keep-alive between tests). */
export function http(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; agent?: import('http').Agent } = {},
): Promise<HttpResult> {
  const payload =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: options.agent ?? false,
        headers: {
          ...(payload !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => JSON.parse(text) as unknown,
          });
        });
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export const bearer = (token: string): Record<string, string> => ({
  Authorization: `Bearer ${token}`,
});

export function grpcMetadata(headers: Record<string, string>): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(headers)) md.set(k.toLowerCase(), v);
  return md;
}
