import type { IncomingMessage } from 'node:http';
import type * as grpc from '@grpc/grpc-js';
import {
  authorizeNamespace,
  isAuthenticationExempt,
  NAMESPACE_SCOPED_SERVICES,
  serviceOfGrpcPath,
} from '../../domain/auth';
import type { Authentication } from '../../domain/model';
import type { GrpcAuthenticator } from '../grpc/unary';
import type { RequestContext } from '../http/request-context';
import type { RequestGuard } from '../http/route-table';
import type { Authenticator } from './authenticator';
import type { PrincipalScope } from './principal-scope';

/** Stands for every service without namespace scoping (auth, meta...) in authorizeNamespace. */
const UNSCOPED_SERVICE = '';

/*
 * HTTP route classes whose use cases check the namespace themselves (the decorators of
 * namespace-scoping.ts): management and legacy evaluation, v2 evaluation, the client snapshot.
 * A namespace-scoped token is refused on any other guarded route (meta, ...), as Flipt refuses
 * it on services without namespace support.
 */
const SCOPED_ROUTE_PREFIXES = ['/api/v1/', '/evaluate/v1/', '/internal/v1/evaluation/snapshot/'];

function isNamespaceScopedRoute(route: string): boolean {
  for (const prefix of SCOPED_ROUTE_PREFIXES) if (route.startsWith(prefix)) return true;
  return false;
}

/**
 * The HTTP authentication guard: the `Authorization` header or the `flipt_client_token` cookie
 * must name a valid token. The caller is recorded in `ctx.principal` and in the principal scope
 * for the namespace-scoping decorators.
 */
export function createHttpAuthGuard(
  authenticator: Authenticator,
  principals: PrincipalScope,
): RequestGuard {
  return async (req: IncomingMessage, ctx: RequestContext): Promise<void> => {
    // Before any await: the handler chain that follows inherits the context this binds to.
    const slot = principals.enter();
    const authentication = await authenticator.authenticate(
      req.headers.authorization,
      req.headers.cookie,
    );
    if (!isNamespaceScopedRoute(ctx.route)) {
      authorizeNamespace(authentication, UNSCOPED_SERVICE, undefined);
    }
    slot.authentication = authentication;
    ctx.principal = authentication;
  };
}

/**
 * The gRPC counterpart: every call but the exempt services (health, public auth methods,
 * reflection) needs a token; services without namespace scoping refuse a scoped token here, the
 * scoped services check the request's namespace in the decorators.
 */
export class TokenGrpcAuthenticator implements GrpcAuthenticator {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly principals: PrincipalScope,
  ) {}

  async authenticate(call: {
    readonly method: string;
    readonly metadata: grpc.Metadata;
  }): Promise<Authentication | undefined> {
    const { service } = serviceOfGrpcPath(call.method);
    if (isAuthenticationExempt(service)) return undefined;
    const authentication = await this.authenticator.authenticateMetadata(call.metadata);
    if (!NAMESPACE_SCOPED_SERVICES.has(service)) {
      authorizeNamespace(authentication, service, undefined);
    }
    return authentication;
  }

  runAs<T>(authentication: Authentication | undefined, handler: () => Promise<T>): Promise<T> {
    return this.principals.run(authentication, handler);
  }
}
