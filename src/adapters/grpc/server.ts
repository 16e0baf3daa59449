import * as grpc from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import type { ManagementApi } from '../../domain/services/api';
import type { HealthReporter, IdGenerator, Logger } from '../../ports';
import { createAuthServices, type GrpcAuthDeps } from './auth-service';
import { createEvaluationServices, type GrpcEvaluationDeps } from './evaluation-service';
import { createFliptHandlers } from './flipt-service';
import { announceGoaway, GOAWAY_GRACE_MS } from './goaway';
import { HealthService } from './health-service';
import { createMetaService, type GrpcMetaDeps } from './meta-service';
import { loadProtoDefinitions, serviceDefinition, SERVICE_NAMES } from './proto-definitions';
import {
  tolerantDecoding,
  wrapUnary,
  type GrpcAuthenticator,
  type GrpcCallRecorder,
  type GrpcServiceModule,
  type UnaryHandler,
} from './unary';

export type { GrpcServiceModule } from './unary';

export interface GrpcDeps {
  readonly management: ManagementApi;
  readonly health: HealthReporter;
  readonly logger: Logger;
  readonly ids: IdGenerator;
  /** flipt.evaluation.EvaluationService, DataService and the legacy flipt.Flipt/Evaluate. */
  readonly evaluation?: GrpcEvaluationDeps;
  /** flipt.auth.* services. */
  readonly auth?: GrpcAuthDeps;
  /** flipt.meta.MetadataService. */
  readonly meta?: GrpcMetaDeps;
  /**
   * Runs before every unary handler (after the request id is known, before the request is
   * looked at), so an authentication failure wins over a validation failure as in Flipt.
   * Health is never subject to it.
   */
  readonly authenticator?: GrpcAuthenticator;
  /** Per-call metrics (grpc_server_handled_total, grpc_server_handling_seconds). */
  readonly recorder?: GrpcCallRecorder;
  /**
   * Largest request message accepted, in bytes (server.max_body_bytes, as for HTTP bodies);
   * a larger one is refused with RESOURCE_EXHAUSTED before it is decoded.
   */
  readonly maxMessageBytes?: number;
  /** Passed to grpc.Server (keepalive, message size limits). */
  readonly serverOptions?: grpc.ServerOptions;
}

const healthByServer = new WeakMap<grpc.Server, HealthService>();

/**
 * Builds the gRPC server with every configured service, grpc.health.v1 and server
 * reflection. The server is not bound: see bindGrpcServer.
 */
export function createGrpcServer(deps: GrpcDeps): grpc.Server {
  routeGrpcLibraryLog(deps.logger);
  const server = new grpc.Server({
    ...(deps.maxMessageBytes === undefined
      ? {}
      : { 'grpc.max_receive_message_length': deps.maxMessageBytes }),
    ...deps.serverOptions,
  });
  const wrapperDeps = {
    logger: deps.logger,
    ids: deps.ids,
    authenticator: deps.authenticator,
    recorder: deps.recorder,
  };

  const evaluation = deps.evaluation ? createEvaluationServices(deps.evaluation) : undefined;
  const modules: GrpcServiceModule[] = [
    {
      serviceName: SERVICE_NAMES.flipt,
      handlers: createFliptHandlers(deps.management, evaluation?.legacy),
    },
    ...(evaluation?.services ?? []),
    ...(deps.auth ? createAuthServices(deps.auth) : []),
    ...(deps.meta ? [createMetaService(deps.meta)] : []),
  ];

  for (const mod of modules) {
    const definition = tolerantDecoding(serviceDefinition(mod.serviceName));
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const rpc of Object.keys(definition)) {
      const handler = mod.handlers[rpc];
      if (!handler) throw new Error(`no handler for ${mod.serviceName}/${rpc}`);
      implementation[rpc] = wrapUnary(
        `/${mod.serviceName}/${rpc}`,
        handler as UnaryHandler<unknown, unknown>,
        wrapperDeps,
      );
    }
    server.addService(definition, implementation);
  }

  const served = modules.map((m) => m.serviceName);
  const health = new HealthService(deps.health, served, deps.logger);
  server.addService(
    tolerantDecoding(serviceDefinition(SERVICE_NAMES.health)),
    health.implementation,
  );
  healthByServer.set(server, health);

  // Reflect exactly what is served, not every service the protos happen to declare.
  addReflection(server, loadProtoDefinitions, {
    services: [...served, SERVICE_NAMES.health],
  });

  return server;
}

type ReflectionOptions = ConstructorParameters<typeof ReflectionService>[1];

/**
 * Server reflection, analysed on its first call: the analysis of every served file takes
 * longer than the rest of the server's construction, and most processes are never asked.
 * The services are registered at once, from a reflection service over no files at all.
 */
function addReflection(
  server: grpc.Server,
  definitions: () => PackageDefinition,
  options: ReflectionOptions,
): void {
  const capture = (target: ReflectionService) => {
    const added: Array<{
      definition: grpc.ServiceDefinition;
      handlers: grpc.UntypedServiceImplementation;
    }> = [];
    target.addToServer({
      addService: (definition, handlers) =>
        added.push({ definition, handlers: handlers as grpc.UntypedServiceImplementation }),
    });
    return added;
  };
  let analysed: ReturnType<typeof capture> | undefined;
  const real = () => (analysed ??= capture(new ReflectionService(definitions(), options)));
  capture(new ReflectionService({}, options)).forEach(({ definition, handlers }, i) => {
    const lazy: grpc.UntypedServiceImplementation = {};
    for (const method of Object.keys(handlers)) {
      lazy[method] = ((...args: unknown[]) => {
        const handler = real()[i]?.handlers[method] as (...a: unknown[]) => unknown;
        return handler(...args);
      }) as grpc.UntypedHandleCall;
    }
    server.addService(definition, lazy);
  });
}

/**
 * Binds and starts the server. Port 0 picks a free port; the bound port is returned.
 * Plaintext unless credentials are given.
 */
export function bindGrpcServer(
  server: grpc.Server,
  host: string,
  port: number,
  credentials: grpc.ServerCredentials = grpc.ServerCredentials.createInsecure(),
): Promise<number> {
  const address =
    host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(address, credentials, (err, boundPort) => {
      if (err) reject(err);
      else resolve(boundPort);
    });
  });
}

/** The bind failure grpc-js logs itself; bindGrpcServer's caller reports it with its cause. */
const BIND_FAILURE = /^No address added out of total \d+ resolved/;

/**
 * grpc-js writes its own errors to stderr as raw "E ..." lines; they go through Vexil's
 * logger instead, as warnings (grpc-js's logger is process-wide: the last server's wins).
 */
function routeGrpcLibraryLog(logger: Logger): void {
  const forward = (...args: unknown[]): void => {
    const message = args.map(String).join(' ');
    if (!BIND_FAILURE.test(message)) logger.warn('grpc-js', { detail: message });
  };
  grpc.setLogger({ error: forward, info: forward, debug: forward });
}

/**
 * Stops accepting calls and waits for the running ones (health watchers are told
 * NOT_SERVING and closed first, or they would hold the shutdown open): a first GOAWAY that
 * still admits streams already on their way, then grpc-js's graceful shutdown. After
 * `timeoutMs` whatever is still running is cancelled.
 */
export async function shutdownGrpcServer(server: grpc.Server, timeoutMs: number): Promise<void> {
  healthByServer.get(server)?.shutdown();
  if (announceGoaway(server)) await new Promise((r) => setTimeout(r, GOAWAY_GRACE_MS));
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      server.forceShutdown();
      finish();
    }, timeoutMs);
    timer.unref();
    server.tryShutdown(() => finish());
  });
}
