import type { ServerResponse } from 'node:http';
import { UnauthenticatedError } from '../../domain/errors';
import type { Logger } from '../../ports';
import {
  boundedMessage,
  GrpcCode,
  httpStatusForGrpcCode,
  toPublicError,
  type GrpcCodeNumber,
} from '../status';

/**
 * An error raised by the HTTP transport itself (routing, body size, JSON decoding), i.e.
 * what grpc-gateway answers before the service is reached. Domain errors keep going
 * through the status table; only these carry their own code.
 */
export class HttpError extends Error {
  readonly httpStatus: number;
  constructor(
    readonly code: GrpcCodeNumber,
    message: string,
    httpStatus?: number,
  ) {
    super(message);
    this.name = 'HttpError';
    this.httpStatus = httpStatus ?? httpStatusForGrpcCode(code);
  }
}

export const notFoundRoute = (): HttpError => new HttpError(GrpcCode.NOT_FOUND, 'Not Found');
export const methodNotAllowed = (): HttpError =>
  new HttpError(GrpcCode.UNIMPLEMENTED, 'Method Not Allowed');
export const invalidArgument = (message: string): HttpError =>
  new HttpError(GrpcCode.INVALID_ARGUMENT, message);

/** An answer already serialized, exactly as JSON.stringify would have written it. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** The JSON text of a body, as every JSON answer of the HTTP surface encodes it. */
export const jsonText = (body: unknown, trailingNewline = false): string =>
  (body instanceof RawJson ? body.text : JSON.stringify(body)) + (trailingNewline ? '\n' : '');

/**
 * Writes a body as Flipt's gateway does for `?pretty`: indented by two spaces (protojson's
 * multiline form). The body must already leave out its zero values.
 */
export function sendPrettyJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body, null, 2));
}

/** Writes a JSON body; `trailingNewline` only for /health, which Flipt ends with "\n". */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  trailingNewline = false,
): void {
  sendJsonText(res, status, jsonText(body, trailingNewline));
}

/**
 * Writes JSON text with one writeHead: headers given as a flat array skip the per-header
 * bookkeeping of setHeader when nothing was set before (headers set earlier are kept, in
 * their order, with these appended). `requestId`, when given, goes first as X-Request-Id.
 */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  requestId?: string,
): void {
  const length = Buffer.byteLength(text);
  res.writeHead(
    status,
    requestId === undefined
      ? ['Content-Type', 'application/json', 'Content-Length', length]
      : ['X-Request-Id', requestId, 'Content-Type', 'application/json', 'Content-Length', length],
  );
  res.end(text);
}

/**
 * Answers with grpc-gateway's error body `{"code":<grpc>,"message":"...","details":[]}`.
 * Unexpected errors get a generic message; their stack goes to the log only.
 */
export function writeError(
  res: ServerResponse,
  err: unknown,
  logger?: Logger,
  pretty = false,
): void {
  let code: GrpcCodeNumber;
  let status: number;
  let message: string;
  if (err instanceof HttpError) {
    ({ code, httpStatus: status } = err);
    message = boundedMessage(err.message);
  } else {
    const pub = toPublicError(err);
    ({ code, httpStatus: status, message } = pub);
    if (pub.unexpected) {
      logger?.error('unexpected error while handling a request', {
        requestId: res.getHeader('x-request-id'),
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
  }
  if (res.headersSent) {
    // Nothing sensible can be written any more; cut the response short so the client sees it.
    res.destroy();
    return;
  }
  if (err instanceof UnauthenticatedError) res.setHeader('WWW-Authenticate', message);
  // `?pretty`: the empty details list is a zero value, left out like the others.
  if (pretty) sendPrettyJson(res, status, { code, message });
  else sendJson(res, status, { code, message, details: [] });
}
