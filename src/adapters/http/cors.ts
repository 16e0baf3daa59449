import type { IncomingMessage, ServerResponse } from 'node:http';

/*
 * Cross-origin resource sharing as Flipt configures it (`cors.*`; Flipt uses go-chi/cors with
 * methods GET, POST, PUT, DELETE, OPTIONS, credentials allowed, a max age of 300 s and `Link`
 * exposed). It runs in front of every route, the evaluation fast path and the Express app
 * alike, so both always answer the same way. A refused origin, method or header simply gets
 * no Access-Control-* headers: the browser then refuses the response to the page.
 *
 * Not the `cors` middleware: it serves Express routes only (the fast path would need a second
 * implementation anyway), answers preflights with a fixed method list instead of echoing the
 * one asked for as Flipt does, and never refuses a request header that is not allowed.
 */

export interface CorsOptions {
  /** `*` allows any origin; one `*` inside an origin matches any text there. */
  readonly allowedOrigins: readonly string[];
  /** Request headers a cross-origin request may carry; `*` allows any. */
  readonly allowedHeaders: readonly string[];
}

/** CORS for a request, before it is routed. */
export interface CorsHandler {
  /** An OPTIONS request carrying Access-Control-Request-Method: answered by `preflight`. */
  isPreflight(req: IncomingMessage): boolean;
  /** Answers a preflight: 200, no body, the Access-Control-* headers when all is allowed. */
  preflight(req: IncomingMessage, res: ServerResponse): void;
  /** Sets the headers of an actual request on the response; the route answers it. */
  actual(req: IncomingMessage, res: ServerResponse): void;
}

const ALLOWED_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS']);
const MAX_AGE_SECONDS = '300';
const EXPOSED_HEADERS = 'Link';
const PREFLIGHT_VARY = [
  'Origin',
  'Access-Control-Request-Method',
  'Access-Control-Request-Headers',
];

type OriginTest = (origin: string) => boolean;

function originTest(allowed: readonly string[]): OriginTest | 'any' {
  const exact = new Set<string>();
  const patterns: Array<readonly [string, string]> = [];
  for (const raw of allowed) {
    const origin = raw.toLowerCase();
    if (origin === '*') return 'any';
    const star = origin.indexOf('*');
    if (star === -1) exact.add(origin);
    else patterns.push([origin.slice(0, star), origin.slice(star + 1)] as const);
  }
  return (origin) => {
    const o = origin.toLowerCase();
    if (exact.has(o)) return true;
    return patterns.some(
      ([prefix, suffix]) =>
        o.length >= prefix.length + suffix.length && o.startsWith(prefix) && o.endsWith(suffix),
    );
  };
}

/** `content-type` -> `Content-Type`, as Go writes header names. */
const canonical = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

const headerList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map(canonical)
    .filter((h) => h !== '');

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

export function createCors(options: CorsOptions): CorsHandler {
  const origins = originTest(options.allowedOrigins);
  const originAllowed = (origin: string): boolean => origins === 'any' || origins(origin);
  const anyHeader = options.allowedHeaders.some((h) => h.trim() === '*');
  // The Origin header itself is always allowed.
  const headers = new Set([...options.allowedHeaders.map(canonical), 'Origin']);
  const allowOrigin = (origin: string): string => (origins === 'any' ? '*' : origin);

  const preflight = (req: IncomingMessage, res: ServerResponse, method: string): void => {
    res.setHeader('Vary', PREFLIGHT_VARY);
    const origin = single(req.headers.origin);
    const requested = headerList(single(req.headers['access-control-request-headers']));
    const allowed =
      origin !== undefined &&
      origin !== '' &&
      originAllowed(origin) &&
      ALLOWED_METHODS.has(method.toUpperCase()) &&
      (anyHeader || requested.every((h) => headers.has(h)));
    if (allowed) {
      res.setHeader('Access-Control-Allow-Origin', allowOrigin(origin));
      res.setHeader('Access-Control-Allow-Methods', method.toUpperCase());
      if (requested.length > 0) res.setHeader('Access-Control-Allow-Headers', requested.join(', '));
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Max-Age', MAX_AGE_SECONDS);
    }
    res.writeHead(200, { 'Content-Length': 0 });
    res.end();
  };

  return {
    isPreflight: (req) => {
      if (req.method !== 'OPTIONS') return false;
      const requested = single(req.headers['access-control-request-method']);
      return requested !== undefined && requested !== '';
    },
    preflight: (req, res) =>
      preflight(req, res, single(req.headers['access-control-request-method']) ?? ''),
    actual: (req, res) => {
      const method = req.method ?? 'GET';
      // As go-chi/cors: an OPTIONS request that is not a preflight gets nothing.
      if (method === 'OPTIONS') return;
      res.setHeader('Vary', 'Origin');
      const origin = single(req.headers.origin);
      if (origin === undefined || origin === '' || !originAllowed(origin)) return;
      if (!ALLOWED_METHODS.has(method)) return;
      res.setHeader('Access-Control-Allow-Origin', allowOrigin(origin));
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    },
  };
}
