import type { Server as GrpcServer } from '@grpc/grpc-js';
import { ConfigStore } from '../domain/services/config';
import { createManagementService } from '../domain/services/management-service';
import { TransferService } from '../domain/services/transfer';
import { createTransferRoutes, type TransferApi } from '../adapters/http/transfer-routes';
import type { ManagementApi } from '../domain/services/api';
import {
  EvaluationService,
  NamespaceSnapshots,
  VersionReportingUnitOfWork,
} from '../domain/services/evaluation';
import type { Logger, Storage, TokenRepository } from '../ports';
import { createAuthComponents } from '../adapters/auth';
import { RandomIdGenerator, SystemClock } from '../adapters/system';
import { createCors, createHttpHandler } from '../adapters/http';
import { HttpDrain } from '../adapters/http/http-drain';
import { drained } from '../adapters/http/response-drain';
import { bindGrpcServer, createGrpcServer, shutdownGrpcServer } from '../adapters/grpc/server';
import { createEvaluationRoutes } from '../adapters/http/evaluation';
import { publicConfig, type VexilConfig } from './config';
import {
  metaInfo,
  copyFlagRoute,
  createCsrfGuard,
  createMetaRoutes,
  createSessionRoutes,
  DASHBOARD_DIST_DIR,
  dashboardBuilt,
  dashboardFiles,
} from '../adapters/http';
import type { ExpressMount } from '../adapters/http/express-app';
import { Deferred } from './deferred';
import { createHttpListener, grpcCredentials, httpPortOf, listen, readTlsFiles } from './listeners';
import { describeListenError } from './listen-errors';
import { packagedAssets } from './packaged';
import { UnusableDatabaseError } from '../adapters/storage/typeorm/storage-errors';
import { HealthState } from './health-state';
import { retryWithBackoff } from './retry';
import { readOnly } from './read-only';
import { createMetrics, type Metrics } from '../adapters/telemetry/metrics';
import { startTracing } from '../adapters/telemetry/tracing';
import { evaluationResultAttributes, traceMethods } from '../adapters/telemetry/traced-methods';
import type { HttpRoute } from '../adapters/http';
import { protocolForEndpoint } from '../adapters/telemetry/otlp-exporters';
import { createCaching, type CachingAdapters } from '../adapters/cache';
import { ClientSnapshotDocuments } from '../adapters/snapshot';

export interface VexilServer {
  readonly httpPort: number;
  readonly grpcPort: number;
  /** Resolves once storage is reached and the instance serves. */
  readonly ready: Promise<void>;
  /**
   * Graceful stop: NOT_SERVING at once, keep serving for the drain period, then stop accepting,
   * let in-flight requests finish (bounded), close storage.
   */
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly config: VexilConfig;
  readonly logger: Logger;
  /** Opens (and migrates) storage; called again with backoff while it fails. */
  readonly openStorage: () => Promise<Storage>;
  readonly version: string;
}

const stopwatch = { nowMs: () => performance.now() };

/** The composition root: builds every component from the configuration and starts serving. */
export async function startVexil({
  config,
  logger,
  openStorage,
  version,
}: StartOptions): Promise<VexilServer> {
  // Before anything starts: a certificate that cannot be used stops start-up, naming its key.
  const tls = readTlsFiles(config.server);
  const tracing = startTracing({
    enabled: config.tracing.enabled,
    protocol:
      config.tracing.otlp.protocol === 'auto'
        ? protocolForEndpoint(config.tracing.otlp.endpoint)
        : config.tracing.otlp.protocol,
    endpoint: config.tracing.otlp.endpoint,
    headers: config.tracing.otlp.headers,
    samplingRatio: config.tracing.sampling_ratio,
    serviceName: 'vexil',
    serviceVersion: version,
    onProblem: (message) =>
      logger.warn('tracing: the OpenTelemetry SDK reported a problem', { message }),
  });
  const metrics = createMetrics({ enabled: config.metrics.enabled });
  const clock = new SystemClock();
  const ids = new RandomIdGenerator();
  const health = new HealthState('NOT_SERVING', 'starting: connecting to the database');
  const management = new Deferred<ManagementApi>(
    'storage unavailable: the database has not been reached yet',
  );
  const evaluation = new Deferred<EvaluationService>(
    'storage unavailable: the database has not been reached yet',
  );

  const transfer = new Deferred<TransferApi>(
    'storage unavailable: the database has not been reached yet',
  );
  const tokens = new Deferred<TokenRepository>(
    'storage unavailable: the database has not been reached yet',
  );
  const tokenConfig = config.authentication.methods.token;
  const auth = createAuthComponents({
    required: config.authentication.required,
    exclude: config.authentication.exclude,
    tokenMethodEnabled: tokenConfig.enabled,
    bootstrap: {
      token: tokenConfig.bootstrap.token,
      expirationMs: tokenConfig.bootstrap.expiration,
    },
    cleanup: {
      intervalMs: tokenConfig.cleanup.interval,
      gracePeriodMs: tokenConfig.cleanup.grace_period,
    },
    repository: tokens.proxy,
    clock,
    ids,
    stopwatch,
    logger,
  });

  // Built once per namespace version, shared by the HTTP route and the gRPC DataService.
  const snapshotDocuments = new ClientSnapshotDocuments({
    maxBytes: config.evaluation.snapshot_max_bytes,
  });

  const managementApi =
    config.server.mode === 'read-only' ? readOnly(management.proxy) : management.proxy;

  const httpDrain = new HttpDrain();
  const httpHandler = createHttpHandler({
    management: managementApi,
    health,
    logger,
    ids,
    bodyLimitBytes: config.server.max_body_bytes,
    fastRoutes: auth.scopeEvaluationRoutes(
      createEvaluationRoutes({ evaluation: evaluation.proxy, logger, snapshotDocuments }),
    ),
    routes: [
      ...metricsRoutes(metrics),
      ...auth.httpRoutes,
      copyFlagRoute(managementApi),
      ...createSessionRoutes({
        authenticator: auth.authenticator,
        required: config.authentication.required,
        readOnly: config.server.mode === 'read-only',
        version,
      }),
      ...createMetaRoutes({
        version,
        authenticationRequired: config.authentication.required,
        readOnly: config.server.mode === 'read-only',
        config: () => publicConfig(config),
      }),
      ...createTransferRoutes({
        transfer: transfer.proxy,
        maxImportBytes: config.server.max_import_bytes,
        readOnly: config.server.mode === 'read-only',
      }),
    ],
    mounts: dashboardMounts(config, logger),
    // Cookie sessions (the dashboard) must prove their writes are their own.
    guards: config.authentication.required
      ? [...auth.httpGuards, createCsrfGuard()]
      : auth.httpGuards,
    recorder: metrics.enabled ? metrics : undefined,
    ...(config.cors.enabled
      ? {
          cors: createCors({
            allowedOrigins: config.cors.allowed_origins,
            allowedHeaders: config.cors.allowed_headers,
          }),
        }
      : {}),
    accessLog: config.log.level === 'debug' || config.log.level === 'info',
  });
  const httpServer = createHttpListener(
    httpDrain.wrap(httpHandler),
    tls,
    httpHandler.messageClasses,
  );
  httpDrain.track(httpServer);
  const { host } = config.server;
  const httpListen = httpPortOf(config.server);
  const httpPort = await listen(httpServer, host, httpListen.port).catch((err: unknown) => {
    throw describeListenError(err, {
      protocol: tls ? 'HTTPS' : 'HTTP',
      host,
      port: httpListen.port,
      portKey: httpListen.key,
    });
  });

  let grpcServer: GrpcServer;
  let grpcPort: number;
  try {
    grpcServer = createGrpcServer({
      management: managementApi,
      health,
      logger,
      ids,
      evaluation: { api: evaluation.proxy, snapshotDocuments },
      auth: auth.grpcAuth,
      meta: {
        info: () =>
          metaInfo({
            version,
            authenticationRequired: config.authentication.required,
            readOnly: config.server.mode === 'read-only',
          }),
        config: () => publicConfig(config),
      },
      recorder: metrics,
      maxMessageBytes: config.server.max_body_bytes,
      ...(auth.grpcAuthenticator ? { authenticator: auth.grpcAuthenticator } : {}),
    });
    grpcPort = await bindGrpcServer(
      grpcServer,
      host,
      config.server.grpc_port,
      grpcCredentials(tls),
    );
  } catch (err) {
    httpServer.close();
    throw describeListenError(err, {
      protocol: 'gRPC',
      host,
      port: config.server.grpc_port,
      portKey: 'server.grpc_port',
    });
  }
  logger.info('listening', {
    httpPort,
    grpcPort,
    host: config.server.host,
    mode: config.server.mode,
    protocol: config.server.protocol,
  });

  const starting = new AbortController();
  let handle: Storage | undefined;
  let caching: CachingAdapters | undefined;
  let stopSnapshots: (() => void) | undefined;
  let served = false;
  const ready = retryWithBackoff(openStorage, {
    initialDelayMs: 250,
    maxDelayMs: config.db.connect_retry_max_backoff,
    signal: starting.signal,
    isPermanent: (err) => err instanceof UnusableDatabaseError,
    onFailure: (err, attempt, nextDelayMs) => {
      const reason = err instanceof Error ? err.message : String(err);
      health.set('NOT_SERVING', `database unreachable: ${reason}`);
      logger.warn('database unreachable, retrying', { attempt, retryInMs: nextDelayMs, reason });
    },
  })
    .then((opened) => {
      handle = opened;
      const source = traceMethods(opened.evaluationSource, 'storage');
      caching = config.caching.enabled ? cachingAdapters(config, logger) : undefined;
      const snapshots = new NamespaceSnapshots(source, {
        mode: caching ? 'cached' : opened.shared ? 'version-check' : 'notified',
        stopwatch,
        logger,
        observer: {
          rebuilt: (ns, ms) => metrics.rebuilt(ns, ms),
          servedStale: (ns, err) => metrics.servedStale(ns, err),
          onCacheResult: (backend, result) => metrics.recordCache(backend, result),
          staleChanged: (stale, detail) => {
            if (stale)
              logger.warn('database unreachable: serving the last known good snapshots', {
                detail,
              });
            else logger.info('database reachable again');
            // Read at every look, so the outage's age in the detail counts up.
            health.set('SERVING', stale ? () => snapshots.freshness().detail ?? detail : undefined);
          },
        },
        pause: () => new Promise((resolve) => setImmediate(resolve)),
        delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        caching: caching && {
          ttlMs: config.caching.ttl,
          scheduler: caching.scheduler,
          cache: caching.cache,
          changeFeed: caching.changeFeed,
        },
      });
      stopSnapshots = () => snapshots.close();
      // Each committed write's version reaches the snapshots, paired there with what it touched.
      const reporting = new VersionReportingUnitOfWork(opened.unitOfWork, (ns, version) =>
        snapshots.committed(ns, version),
      );
      metrics.observeSnapshotAges(() => snapshots.ages());
      management.resolve(
        createManagementService({
          config: traceMethods(new ConfigStore({ unitOfWork: reporting, clock, ids }), 'storage'),
          // A write answers once committed: evaluations of what it changed wait for the
          // snapshot to include it (NamespaceSnapshots.invalidate), the write does not.
          notifier: {
            namespaceChanged: (ns) => void snapshots.invalidate(ns),
            writing: (ns, touched) => snapshots.writing(ns, touched),
          },
          logger,
        }),
      );
      transfer.resolve(
        new TransferService({
          unitOfWork: new VersionReportingUnitOfWork(opened.unitOfWork, (ns, version) =>
            snapshots.committed(ns, version, true),
          ),
          evaluationSource: source,
          clock,
          ids,
          notifier: { namespaceChanged: (ns) => void snapshots.invalidate(ns) },
          logger,
        }),
      );
      evaluation.resolve(
        traceMethods(
          new EvaluationService({
            snapshots,
            clock,
            ids,
            stopwatch,
            maxBatchSize: config.evaluation.max_batch_size,
            observer: metrics,
            logger,
          }),
          'evaluation',
          // The HTTP routes try the synchronous answer from a cached snapshot first.
          {
            resultAttributes: evaluationResultAttributes,
            fastPaths: { booleanCached: 'boolean' },
          },
        ),
      );
      tokens.resolve(opened.tokens);
      return auth.start();
    })
    .then(() => {
      served = true;
      health.set('SERVING');
      logger.info('serving', { database: handle?.description });
    });
  ready.catch((err: unknown) => {
    // A stop during start-up aborts the retries: nothing to report then.
    if (!starting.signal.aborted) {
      health.set('NOT_SERVING', 'start-up failed');
      // A known cause is said in one line; anything else comes with its stack.
      if (err instanceof UnusableDatabaseError) logger.error(`start-up failed: ${err.message}`);
      else logger.error('start-up failed', { error: err });
    }
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      health.shutDown('shutting down');
      starting.abort();
      httpDrain.startDraining();
      // An instance that never served has no traffic for a load balancer to move away.
      const drainMs = served ? config.server.shutdown_drain : 0;
      if (drainMs > 0) {
        logger.info('draining: health is NOT_SERVING, still serving', { drainMs });
        await new Promise((r) => setTimeout(r, drainMs));
      }
      const timeout = config.server.shutdown_timeout;
      await Promise.all([
        httpDrain.close(httpServer, timeout),
        shutdownGrpcServer(grpcServer, timeout),
      ]);
      await ready.catch(() => undefined);
      stopSnapshots?.();
      await auth.stop().catch(() => undefined);
      await caching?.close().catch(() => undefined);
      if (handle !== undefined) await handle.close();
      await tracing.shutdown().catch(() => undefined);
      metrics.close();
      logger.info('stopped');
    })();
    return stopping;
  };

  return { httpPort, grpcPort, ready, stop };
}

/** The configured backend, given its own section of `caching` (`caching.<backend>`). */
function cachingAdapters(config: VexilConfig, logger: Logger): CachingAdapters {
  const { caching } = config;
  const section = (caching as unknown as Record<string, unknown>)[caching.backend];
  return createCaching(caching.backend, section, { logger });
}

/** The dashboard's files at /, when enabled and built (the executable's extracted copy). */
function dashboardMounts(config: VexilConfig, logger: Logger): ExpressMount[] {
  if (!config.ui.enabled) return [];
  const dir = packagedAssets()?.folders['dashboard'] ?? DASHBOARD_DIST_DIR;
  if (!dashboardBuilt(dir)) {
    logger.warn('dashboard not served: its files are missing (run "npm run build")', { dir });
    return [];
  }
  return [dashboardFiles({ dir })];
}

/** GET /metrics in Prometheus text format, never authenticated; absent when metrics are off. */
function metricsRoutes(metrics: Metrics): HttpRoute[] {
  if (!metrics.enabled) return [];
  return [
    {
      method: 'GET',
      pattern: '/metrics',
      public: true,
      // Written as it is made, a piece at a time: at 10 000 flags the text is tens of MB.
      handle: async ({ res }) => {
        res.writeHead(200, { 'Content-Type': metrics.contentType });
        for await (const piece of metrics.renderPieces()) {
          if (res.destroyed) return;
          if (!res.write(piece)) await drained(res);
        }
        res.end();
      },
    },
  ];
}
