import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tokenNamespace } from '../../../domain/auth';
import { UnauthenticatedError } from '../../../domain/errors';
import type { Authentication } from '../../../domain/model';
import { CLIENT_TOKEN_COOKIE, readCookie, type Authenticator } from '../../auth';
import { GrpcCode } from '../../status';
import { presentAuthentication } from '../auth/present';
import { HttpError, sendJson } from '../http-error';
import type { HttpRoute, RequestGuard } from '../route-table';

/**
 * The token a cookie-authenticated write must echo in X-CSRF-Token: derived from the
 * session's client token, so it needs no server-side state, holds across instances, and
 * cannot be computed by a page that cannot read the HttpOnly cookie.
 */
export const csrfTokenFor = (clientToken: string): string =>
  createHmac('sha256', clientToken).update('vexil dashboard csrf').digest('base64url');

export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a state-changing request that authenticates with the session cookie and lacks
 * the matching X-CSRF-Token. Requests with an Authorization header carry their credential
 * explicitly and are not subject to it.
 */
export function createCsrfGuard(): RequestGuard {
  return (req) => {
    if (SAFE_METHODS.has(req.method ?? 'GET') || req.headers.authorization !== undefined) return;
    const token = readCookie(req.headers.cookie, CLIENT_TOKEN_COOKIE);
    if (token === undefined || token === '') return;
    const given = req.headers[CSRF_HEADER];
    const expected = Buffer.from(csrfTokenFor(token));
    const actual = Buffer.from(typeof given === 'string' ? given : '');
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
      throw new HttpError(
        GrpcCode.PERMISSION_DENIED,
        'CSRF token missing or invalid: reload the dashboard and try again',
        403,
      );
    }
  };
}

export interface SessionRoutesDeps {
  readonly authenticator: Authenticator;
  /** `authentication.required`. */
  readonly required: boolean;
  /** `server.mode` is read-only. */
  readonly readOnly: boolean;
  readonly version: string;
}

const cookieSecure = (req: IncomingMessage): boolean =>
  (req.socket as { encrypted?: boolean }).encrypted === true ||
  req.headers['x-forwarded-proto'] === 'https';

function setSessionCookie(
  res: ServerResponse,
  req: IncomingMessage,
  token: string,
  expiresAt: string | undefined,
): void {
  const parts = [`${CLIENT_TOKEN_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (expiresAt !== undefined) {
    const seconds = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
    parts.push(`Max-Age=${seconds}`);
  }
  if (cookieSecure(req)) parts.push('Secure');
  res.setHeader('Set-Cookie', parts.join('; '));
}

function clearSessionCookie(res: ServerResponse, req: IncomingMessage): void {
  const parts = [`${CLIENT_TOKEN_COOKIE}=`, 'Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0'];
  if (cookieSecure(req)) parts.push('Secure');
  res.setHeader('Set-Cookie', parts.join('; '));
}

/** A cross-site form cannot sign a browser in: an Origin, when sent, must be this host. */
function checkSameOrigin(req: IncomingMessage): void {
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    host = '';
  }
  if (host !== req.headers.host) {
    throw new HttpError(GrpcCode.PERMISSION_DENIED, 'cross-origin sign-in refused', 403);
  }
}

/**
 * The dashboard's session: GET says whether one is needed and who is signed in, POST
 * exchanges a client token for an HttpOnly SameSite=Strict cookie, DELETE signs out (the
 * cookie is cleared; the token itself stays valid, as applications may share it).
 */
export function createSessionRoutes(deps: SessionRoutesDeps): HttpRoute[] {
  const describe = (authentication: Authentication | undefined, cookieToken?: string) => {
    if (deps.required && authentication === undefined) {
      return { authenticationRequired: true, authenticated: false };
    }
    const namespaceKey = authentication ? tokenNamespace(authentication) : undefined;
    return {
      authenticationRequired: deps.required,
      authenticated: authentication !== undefined,
      ...(namespaceKey === undefined ? {} : { namespaceKey }),
      readOnly: deps.readOnly,
      version: deps.version,
      ...(cookieToken === undefined ? {} : { csrfToken: csrfTokenFor(cookieToken) }),
      ...(authentication ? { authentication: presentAuthentication(authentication) } : {}),
    };
  };

  return [
    {
      method: 'GET',
      pattern: '/dashboard/v1/session',
      public: true,
      handle: async ({ req, res }) => {
        res.setHeader('Cache-Control', 'no-store');
        if (!deps.required) {
          sendJson(res, 200, describe(undefined));
          return;
        }
        const cookieToken = readCookie(req.headers.cookie, CLIENT_TOKEN_COOKIE);
        try {
          const authentication = await deps.authenticator.authenticate(
            req.headers.authorization,
            req.headers.cookie,
          );
          const viaCookie = req.headers.authorization === undefined ? cookieToken : undefined;
          sendJson(res, 200, describe(authentication, viaCookie));
        } catch (err) {
          if (!(err instanceof UnauthenticatedError)) throw err;
          // An expired or revoked token: drop the cookie so the browser stops sending it.
          if (cookieToken !== undefined) clearSessionCookie(res, req);
          sendJson(res, 200, describe(undefined));
        }
      },
    },
    {
      method: 'POST',
      pattern: '/dashboard/v1/session',
      public: true,
      handle: async ({ req, res, readJson }) => {
        checkSameOrigin(req);
        const body = await readJson();
        const token =
          typeof body === 'object' && body !== null
            ? (body as { clientToken?: unknown }).clientToken
            : undefined;
        if (typeof token !== 'string' || token.trim() === '') {
          throw new HttpError(
            GrpcCode.INVALID_ARGUMENT,
            'invalid field clientToken: must not be empty',
          );
        }
        const clientToken = token.trim();
        const authentication = await deps.authenticator.authenticate(`Bearer ${clientToken}`);
        setSessionCookie(res, req, clientToken, authentication.expiresAt);
        res.setHeader('Cache-Control', 'no-store');
        sendJson(res, 200, {
          ...describe(authentication, clientToken),
          authenticationRequired: deps.required,
        });
      },
    },
    {
      method: 'DELETE',
      pattern: '/dashboard/v1/session',
      public: true,
      handle: ({ req, res }) => {
        clearSessionCookie(res, req);
        sendJson(res, 200, {});
      },
    },
  ];
}
