import { ApiError, apiErrorFrom } from '../lib/api-error';

type Listener = (error: ApiError) => void;

let csrfToken: string | undefined;
const unauthenticatedListeners = new Set<Listener>();

/** The token that cookie-authenticated writes must echo in X-CSRF-Token. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called whenever the service answers 401, so the app can ask to sign in again. */
export function onUnauthenticated(listener: Listener): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  /** Do not announce a 401 (the session probe expects one when signed out). */
  quiet401?: boolean;
}

/** One call to the service's HTTP API; resolves with the parsed JSON or throws ApiError. */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== undefined) headers['X-CSRF-Token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw apiErrorFrom(0, '');
  }
  const text = await response.text();
  if (!response.ok) {
    const error = apiErrorFrom(response.status, text);
    if (error.unauthenticated && options.quiet401 !== true) {
      for (const listener of unauthenticatedListeners) listener(error);
    }
    throw error;
  }
  return (text === '' ? {} : JSON.parse(text)) as T;
}

export function withQuery(path: string, query: RequestOptions['query']): string {
  if (query === undefined) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

export const enc = encodeURIComponent;

export { ApiError };
