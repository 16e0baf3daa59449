import {
  AuthApi,
  bootstrapToken,
  excludedServices,
  type AuthenticationExclusions,
} from '../../domain/auth';
import type { Clock, IdGenerator, Logger, Stopwatch, TokenRepository } from '../../ports';
import type { GrpcAuthDeps } from '../grpc/auth-service';
import type { GrpcAuthenticator } from '../grpc/unary';
import { createAuthRoutes } from '../http/auth';
import type { HttpRoute, RequestGuard } from '../http/route-table';
import { Authenticator, type AuthenticatorCacheOptions } from './authenticator';
import { NodeTokenCrypto } from './node-token-crypto';
import { TokenCleanupJob } from './token-cleanup-job';
import {
  createHttpAuthGuard,
  routeOfServices,
  scopeEvaluationRoutes,
  TokenGrpcAuthenticator,
} from './transport-guards';

export interface AuthComponentsOptions {
  /** `authentication.required`. */
  readonly required: boolean;
  /** `authentication.exclude.*`: groups of services that need no token even when required. */
  readonly exclude?: AuthenticationExclusions;
  /** `authentication.methods.token.enabled`. */
  readonly tokenMethodEnabled: boolean;
  readonly bootstrap: {
    /** `...token.bootstrap.token`; "" lets Vexil generate one (which it never shows). */
    readonly token: string;
    /** `...token.bootstrap.expiration` in ms; 0 = never expires. */
    readonly expirationMs: number;
  };
  readonly cleanup: {
    /** `...token.cleanup.interval` in ms (> 0). */
    readonly intervalMs: number;
    /** `...token.cleanup.grace_period` in ms (> 0). */
    readonly gracePeriodMs: number;
  };
  /**
   * Where tokens live. May be a stand-in that fails until the database is reached: lookups
   * then answer 401 and are not cached.
   */
  readonly repository: TokenRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly stopwatch: Stopwatch;
  readonly logger: Logger;
  /** Token lookup cache bounds (defaults: 10 000 entries each way, 500 ms). */
  readonly cache?: AuthenticatorCacheOptions;
}

export interface AuthComponents {
  readonly api: AuthApi;
  /** For createGrpcServer's `auth` (the flipt.auth services). */
  readonly grpcAuth: GrpcAuthDeps;
  /** The /auth/v1 routes, for createHttpHandler's `extraRoutes` (always mounted, as in Flipt). */
  readonly httpRoutes: HttpRoute[];
  /** For createHttpHandler's `guards`; empty unless authentication is required. */
  readonly httpGuards: RequestGuard[];
  /** For createGrpcServer's `authenticator`; undefined unless authentication is required. */
  readonly grpcAuthenticator?: GrpcAuthenticator;
  /**
   * Namespace scoping for the evaluation and snapshot routes (createEvaluationRoutes' result):
   * pass them through this before `extraRoutes`. The routes themselves when not required.
   * Management routes are covered by the guard, gRPC by the authenticator.
   */
  scopeEvaluationRoutes(routes: readonly HttpRoute[]): HttpRoute[];
  /** Once storage is reachable: bootstraps the first token and starts the cleanup job. */
  start(): Promise<void>;
  /** Stops the cleanup job (waits for a pass in progress). */
  stop(): Promise<void>;
  /** The lookup cache, for tests and metrics. */
  readonly authenticator: Authenticator;
}

/**
 * Builds authentication for both transports from the configuration. With
 * `authentication.required: false` nothing checks requests: no guard, no gRPC authenticator,
 * and scopeEvaluationRoutes returns the routes as they are.
 */
export function createAuthComponents(options: AuthComponentsOptions): AuthComponents {
  const { repository, clock, ids, stopwatch, logger, required, tokenMethodEnabled } = options;
  const crypto = new NodeTokenCrypto();
  const authenticator = new Authenticator({
    repository,
    crypto,
    clock,
    stopwatch,
    logger,
    ...(options.cache ? { cache: options.cache } : {}),
  });
  const api = new AuthApi({
    repository,
    crypto,
    clock,
    ids,
    logger,
    tokenMethodEnabled,
    onAuthenticationChanged: (id) => authenticator.invalidate(id),
  });
  /** Patterns of the routes that check a scoped caller themselves (see scopeEvaluationRoutes). */
  const checkedByRoute = new Set<string>();
  const exempt = excludedServices(options.exclude);
  const excludedRoute = routeOfServices(exempt);
  const cleanupJob = tokenMethodEnabled
    ? new TokenCleanupJob({
        repository,
        clock,
        logger,
        intervalMs: options.cleanup.intervalMs,
        gracePeriodMs: options.cleanup.gracePeriodMs,
      })
    : undefined;

  const httpRoutes = createAuthRoutes({
    api,
    tokenMethodEnabled,
    logger,
    ...(required
      ? {
          authenticate: (req) =>
            authenticator.authenticate(req.headers.authorization, req.headers.cookie),
        }
      : {}),
  });

  return {
    api,
    grpcAuth: { api, tokenMethodEnabled },
    httpRoutes,
    httpGuards: required ? [createHttpAuthGuard(authenticator, checkedByRoute, excludedRoute)] : [],
    ...(required ? { grpcAuthenticator: new TokenGrpcAuthenticator(authenticator, exempt) } : {}),
    scopeEvaluationRoutes: (routes) =>
      required ? scopeEvaluationRoutes(routes, checkedByRoute, excludedRoute) : [...routes],
    authenticator,
    start: async () => {
      if (!tokenMethodEnabled) return;
      // The result carries the client token; it is deliberately neither logged nor kept.
      await bootstrapToken(
        { repository, crypto, clock, ids, logger },
        { token: options.bootstrap.token, expirationMs: options.bootstrap.expirationMs },
      );
      cleanupJob?.start();
    },
    stop: async () => {
      await cleanupJob?.stop();
    },
  };
}
