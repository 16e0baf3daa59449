/** An error answered by the service, in Flipt's shape `{code, message, details}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get unauthenticated(): boolean {
    return this.status === 401;
  }
}

/** Builds the error for a failed response from its status and body text. */
export function apiErrorFrom(status: number, bodyText: string): ApiError {
  let code = 2;
  let message = '';
  try {
    const body = JSON.parse(bodyText) as unknown;
    if (body !== null && typeof body === 'object') {
      const b = body as { code?: unknown; message?: unknown };
      if (typeof b.code === 'number') code = b.code;
      if (typeof b.message === 'string') message = b.message;
    }
  } catch {
    // Not JSON: a proxy's error page, say; the status text below stands in.
  }
  if (message === '') message = fallbackMessage(status);
  return new ApiError(status, code, message);
}

function fallbackMessage(status: number): string {
  if (status === 0) return 'The service could not be reached. Check your connection.';
  if (status === 401) return 'Your session has ended. Sign in again.';
  if (status === 403) return 'You are not allowed to do this.';
  if (status === 404) return 'Not found.';
  if (status === 413) return 'The request is too large.';
  if (status >= 500) return `The service failed to answer (HTTP ${status}). Try again shortly.`;
  return `The request failed (HTTP ${status}).`;
}

/** The message to show a person for any thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Which form field an API error concerns, so the form can show it beside that field.
 * The service words validation errors as `invalid field <name>: <reason>`, and uniqueness,
 * lookup and type errors name the resource; `fields` maps those names to the form's own.
 */
export function fieldOfError(
  message: string,
  fields: Readonly<Record<string, string>>,
): string | undefined {
  const invalid = /^invalid field ([A-Za-z_.]+):/.exec(message);
  if (invalid?.[1] !== undefined) {
    const name = invalid[1];
    return fields[name] ?? fields[snakeToCamel(name)] ?? fields[name.toLowerCase()];
  }
  for (const [pattern, field] of Object.entries(fields)) {
    if (pattern.startsWith('/') && new RegExp(pattern.slice(1, -1)).test(message)) return field;
  }
  return undefined;
}

function snakeToCamel(name: string): string {
  return name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}
