import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorizeNamespace, type AuthApi } from '../../../domain/auth';
import { UnauthenticatedError } from '../../../domain/errors';
import { AUTH_METHODS, type Authentication } from '../../../domain/model';
import type { Logger } from '../../../ports';
import { CLIENT_TOKEN_COOKIE, readCookie } from '../../auth/credential-extractor';
import { sendJson, writeError } from '../http-error';
import { decodeJsonMessage, decodeQueryMessage, type MessageSchema } from '../proto-json-decoder';
import type { HttpExchange, HttpRoute } from '../route-table';
import { presentAuthentication, presentMethodInfo } from './present';

export interface AuthRoutesDeps {
  readonly api: Pick<
    AuthApi,
    | 'createToken'
    | 'listAuthentications'
    | 'getAuthentication'
    | 'deleteAuthentication'
    | 'getAuthenticationSelf'
    | 'expireAuthenticationSelf'
    | 'listAuthenticationMethods'
  >;
  /**
   * Checks the caller's credential when `authentication.required` is true; absent otherwise, in
   * which case these routes are open and /auth/v1/self answers 401, as in Flipt.
   */
  readonly authenticate?: (req: IncomingMessage) => Promise<Authentication>;
  /** `authentication.methods.token.enabled`: mounts POST /auth/v1/method/token. */
  readonly tokenMethodEnabled: boolean;
  readonly logger: Logger;
}

/** Flipt's session cookies, cleared on logout (expire self) and on a refused /auth/v1 call. */
const SESSION_COOKIES = ['flipt_client_state', 'flipt_client_token'];

/** Go's http.SetCookie for `MaxAge: -1`, `Path: "/"` and no domain configured. */
function clearSessionCookies(res: ServerResponse): void {
  res.setHeader(
    'Set-Cookie',
    SESSION_COOKIES.map((name) => `${name}=; Path=/; Max-Age=0`),
  );
}

const AUTH_SERVICE = 'flipt.auth.AuthenticationService';

const LIST_REQUEST: MessageSchema = {
  method: { enum: 'flipt.auth.Method', values: AUTH_METHODS },
  limit: 'int32',
  pageToken: 'string',
};

const CREATE_TOKEN_REQUEST: MessageSchema = {
  name: 'string',
  description: 'string',
  // google.protobuf.Timestamp travels as its RFC 3339 string; AuthApi validates it.
  expiresAt: 'string',
  namespaceKey: 'string',
  metadata: 'stringMap',
};

const EXPIRE_SELF_REQUEST: MessageSchema = { expiresAt: 'string' };

/**
 * The /auth/v1 routes (reference §1.12). They authenticate the caller themselves rather than
 * through the shared guards, to clear the session cookies when they refuse one as Flipt does;
 * GET /auth/v1/method needs no credential. A namespace-scoped token is refused on all of them.
 */
export function createAuthRoutes(deps: AuthRoutesDeps): HttpRoute[] {
  const { api } = deps;

  const caller = async (x: HttpExchange): Promise<Authentication | undefined> => {
    if (deps.authenticate === undefined) return undefined;
    const authentication = await deps.authenticate(x.req);
    authorizeNamespace(authentication, AUTH_SERVICE, undefined);
    x.ctx.principal = authentication;
    return authentication;
  };

  const route = (
    method: string,
    pattern: string,
    handle: (x: HttpExchange, caller: Authentication | undefined) => Promise<unknown>,
  ): HttpRoute => ({
    method,
    pattern,
    public: true,
    handle: async (x) => {
      try {
        sendJson(x.res, 200, await handle(x, await caller(x)));
      } catch (err) {
        if (
          err instanceof UnauthenticatedError &&
          readCookie(x.req.headers.cookie, CLIENT_TOKEN_COOKIE) !== undefined
        ) {
          clearSessionCookies(x.res);
        }
        writeError(x.res, err, deps.logger);
      }
    },
  });

  const routes: HttpRoute[] = [
    {
      method: 'GET',
      pattern: '/auth/v1/method',
      public: true,
      handle: ({ res }) =>
        sendJson(res, 200, {
          methods: api.listAuthenticationMethods().methods.map(presentMethodInfo),
        }),
    },
    route('GET', '/auth/v1/self', async (_x, self) =>
      presentAuthentication(api.getAuthenticationSelf(self)),
    ),
    route('PUT', '/auth/v1/self/expire', async (x, self) => {
      const req = decodeQueryMessage(x.query, EXPIRE_SELF_REQUEST);
      const expiresAt = req['expiresAt'] as string;
      await api.expireAuthenticationSelf(self, expiresAt === '' ? {} : { expiresAt });
      clearSessionCookies(x.res);
      return {};
    }),
    route('GET', '/auth/v1/tokens', async (x) => {
      const req = decodeQueryMessage(x.query, LIST_REQUEST);
      const res = await api.listAuthentications({
        method: req['method'] as (typeof AUTH_METHODS)[number],
        limit: req['limit'] as number,
        pageToken: req['pageToken'] as string,
      });
      return {
        authentications: res.authentications.map(presentAuthentication),
        nextPageToken: res.nextPageToken,
      };
    }),
    route('GET', '/auth/v1/tokens/:id', async (x) =>
      presentAuthentication(await api.getAuthentication(x.params['id'] ?? '')),
    ),
    route('DELETE', '/auth/v1/tokens/:id', async (x) => {
      await api.deleteAuthentication(x.params['id'] ?? '');
      return {};
    }),
  ];

  if (deps.tokenMethodEnabled) {
    routes.push(
      route('POST', '/auth/v1/method/token', async (x) => {
        const req = decodeJsonMessage(await x.readJson(), CREATE_TOKEN_REQUEST);
        const expiresAt = req['expiresAt'] as string;
        const res = await api.createToken({
          name: req['name'] as string,
          description: req['description'] as string,
          ...(expiresAt === '' ? {} : { expiresAt }),
          namespaceKey: req['namespaceKey'] as string,
          metadata: req['metadata'] as Record<string, string>,
        });
        return {
          clientToken: res.clientToken,
          authentication: presentAuthentication(res.authentication),
        };
      }),
    );
  }
  return routes;
}
