import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from './request-context';

/** What a route handler gets; the same shape serves health, the evaluation fast path, etc. */
export interface HttpExchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ctx: RequestContext;
  /** Decoded path parameters, by the names used in the pattern. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Reads the body within the configured limit and parses it as JSON (undefined when empty). */
  readJson(): Promise<unknown>;
}

/** A route answered on plain node:http. */
export interface HttpRoute {
  readonly method: string;
  /** Path pattern; `:name` segments are parameters, e.g. `/evaluate/v1/boolean`. */
  readonly pattern: string;
  /** Guards (authentication) are skipped: Flipt never authenticates /health or /metrics. */
  readonly public?: boolean;
  readonly handle: (exchange: HttpExchange) => Promise<void> | void;
}

/**
 * Runs after routing and before the body is read, for every non-public route. Throw a
 * domain error (e.g. UnauthenticatedError) to reject; may set `ctx.principal`.
 */
export type RequestGuard = (req: IncomingMessage, ctx: RequestContext) => Promise<void> | void;

interface CompiledRoute {
  readonly route: HttpRoute;
  readonly segments: readonly string[];
}

export type RouteMatch =
  | { readonly kind: 'route'; readonly route: HttpRoute; readonly params: Record<string, string> }
  | { readonly kind: 'wrong-method'; readonly pattern: string }
  | { readonly kind: 'none' };

/** Splits a request target into a path without trailing slashes and its query. */
export function splitTarget(url: string | undefined): { path: string; query: URLSearchParams } {
  const target = url ?? '/';
  const q = target.indexOf('?');
  const rawPath = q === -1 ? target : target.slice(0, q);
  const path = rawPath.replace(/\/+$/, '') || '/';
  return { path, query: new URLSearchParams(q === -1 ? '' : target.slice(q + 1)) };
}

const splitPath = (path: string): string[] => path.split('/').slice(1);

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A deliberately small matcher: the first pattern matching path and method wins. */
export class RouteTable {
  private readonly routes: CompiledRoute[];

  constructor(routes: readonly HttpRoute[]) {
    this.routes = routes.map((route) => ({
      route,
      segments: splitPath(route.pattern.replace(/\/+$/, '') || '/'),
    }));
  }

  match(method: string, path: string): RouteMatch {
    const parts = splitPath(path);
    let wrongMethod: string | undefined;
    for (const { route, segments } of this.routes) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        return { kind: 'route', route, params };
      }
      wrongMethod ??= route.pattern;
    }
    return wrongMethod === undefined
      ? { kind: 'none' }
      : { kind: 'wrong-method', pattern: wrongMethod };
  }
}

function matchSegments(
  segments: readonly string[],
  parts: readonly string[],
): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as string;
    const part = parts[i] as string;
    if (seg.startsWith(':')) {
      if (part === '') return undefined;
      params[seg.slice(1)] = decodeSegment(part);
    } else if (seg !== part) {
      return undefined;
    }
  }
  return params;
}
