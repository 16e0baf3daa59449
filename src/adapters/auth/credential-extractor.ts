/*
 * Where Flipt finds a client token (reference §6.2): the `authorization` header / gRPC metadata
 * with the exact prefix `Bearer ` (case-sensitive, one space); only when that header is absent,
 * the `flipt_client_token` cookie. A header with another scheme is not a fallback to the cookie.
 */

export const CLIENT_TOKEN_COOKIE = 'flipt_client_token';
const BEARER_PREFIX = 'Bearer ';

/**
 * The result of looking for a credential. `missing`: nothing was sent. `malformed`: an
 * authorization header that is not `Bearer <token>` (or an empty token). The distinction is for
 * logs and metrics only: both are refused with the same message.
 */
export type ExtractedCredential =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'malformed' };

const first = (value: string | readonly string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : value?.[0];

/** The value of cookie `name` in a Cookie header (Go's reader: quotes stripped, no decoding). */
export function readCookie(
  cookieHeader: string | readonly string[] | undefined,
  name: string,
): string | undefined {
  const headers = typeof cookieHeader === 'string' ? [cookieHeader] : (cookieHeader ?? []);
  for (const header of headers) {
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
      let value = part.slice(eq + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
        value = value.slice(1, -1);
      }
      return value;
    }
  }
  return undefined;
}

/** From an `Authorization` header value (first one if repeated) and a `Cookie` header. */
export function extractCredential(
  authorization: string | readonly string[] | undefined,
  cookieHeader?: string | readonly string[],
): ExtractedCredential {
  const header = first(authorization);
  if (header !== undefined) {
    if (!header.startsWith(BEARER_PREFIX)) return { kind: 'malformed' };
    const token = header.slice(BEARER_PREFIX.length);
    return token === '' ? { kind: 'malformed' } : { kind: 'token', token };
  }
  const cookie = readCookie(cookieHeader, CLIENT_TOKEN_COOKIE);
  if (cookie === undefined) return { kind: 'missing' };
  return cookie === '' ? { kind: 'malformed' } : { kind: 'token', token: cookie };
}

/** The slice of grpc-js `Metadata` this module reads. */
export interface MetadataReader {
  get(key: string): ReadonlyArray<string | Buffer>;
}

/**
 * From gRPC metadata: `authorization`, else a cookie sent as `cookie` (or `grpcgateway-cookie`,
 * the name grpc-gateway forwards browser cookies under).
 */
export function extractCredentialFromMetadata(metadata: MetadataReader): ExtractedCredential {
  const strings = (key: string): string[] =>
    metadata.get(key).map((v) => (typeof v === 'string' ? v : v.toString('utf8')));
  const authorization = strings('authorization');
  const cookies = [...strings('cookie'), ...strings('grpcgateway-cookie')];
  return extractCredential(authorization.length > 0 ? authorization : undefined, cookies);
}
