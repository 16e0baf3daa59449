import * as grpc from '@grpc/grpc-js';
import type { Authentication } from '../../domain/model';
import type { IdGenerator, Logger } from '../../ports';
import { boundedMessage, toPublicError } from '../status';
import {
  callerTraceId,
  extractGrpcContext,
  finishGrpcServerSpan,
  runInContext,
  startServerSpan,
  traceIdOf,
} from '../telemetry/tracing';

/** What a handler knows about the call besides its request message. */
export interface CallContext {
  /** Fully-qualified method, e.g. `/flipt.Flipt/GetFlag`. */
  readonly method: string;
  /** From the `x-request-id` metadata, or generated. */
  readonly requestId: string;
  readonly metadata: grpc.Metadata;
  /** Set when an authenticator is configured and accepted the call. */
  readonly authentication?: Authentication;
}

export type UnaryHandler<Req = unknown, Res = unknown> = (
  request: Req,
  ctx: CallContext,
) => Promise<Res>;

/** One service a server registers: its fully-qualified name and a handler per RPC. */
export interface GrpcServiceModule {
  readonly serviceName: string;
  readonly handlers: Readonly<Record<string, UnaryHandler<never, unknown>>>;
}

/**
 * Decides whether a call may proceed. Throws a domain error (UnauthenticatedError, ...) to
 * refuse it; returns the caller's authentication (or undefined for calls it lets through
 * anonymously, such as public auth methods).
 */
export interface GrpcAuthenticator {
  authenticate(call: {
    readonly method: string;
    readonly metadata: grpc.Metadata;
    /** The decoded request message, for checks that depend on it (namespace-scoped tokens). */
    readonly request: unknown;
  }): Promise<Authentication | undefined>;
}

/** An error that already is a gRPC status (code and message go out as they are). */
export class GrpcStatusError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
    this.name = 'GrpcStatusError';
  }
}

/**
 * What a request that is not a valid protobuf message decodes to (see tolerantDecoding):
 * grpc-js would answer INTERNAL, a server fault, for what is the client's.
 */
export const UNDECODABLE = Symbol('undecodable request');

/** The service definition with decoding failures handed to the handler as UNDECODABLE. */
export function tolerantDecoding<
  D extends Record<string, { requestDeserialize: (b: Buffer) => unknown }>,
>(definition: D): D {
  const out: Record<string, unknown> = {};
  for (const [rpc, method] of Object.entries(definition)) {
    out[rpc] = {
      ...method,
      requestDeserialize: (bytes: Buffer): unknown => {
        try {
          return method.requestDeserialize(bytes);
        } catch {
          return UNDECODABLE;
        }
      },
    };
  }
  return out as D;
}

/** grpc-go's wording, which Flipt returns for RPCs it does not serve. */
export const unimplemented = (rpc: string): GrpcStatusError =>
  new GrpcStatusError(grpc.status.UNIMPLEMENTED, `method ${rpc} not implemented`);

/** Where per-call figures go (the metrics registry); optional. */
export interface GrpcCallRecorder {
  recordGrpc(service: string, method: string, code: number, seconds: number): void;
}

export interface UnaryWrapperDeps {
  readonly logger: Logger;
  readonly ids: IdGenerator;
  readonly authenticator?: GrpcAuthenticator;
  readonly recorder?: GrpcCallRecorder;
}

const REQUEST_ID_HEADER = 'x-request-id';

export function requestIdOf(metadata: grpc.Metadata, ids: IdGenerator): string {
  const given = metadata.get(REQUEST_ID_HEADER)[0];
  return typeof given === 'string' && given !== '' ? given : ids.uuid();
}

/**
 * Adapts a promise-returning handler to grpc-js: resolves the request id, runs the
 * authenticator, maps thrown errors to a gRPC status through the shared status table, and
 * writes one access log line per call. Unexpected errors are logged with their stack and
 * answered INTERNAL with a generic message, so internals never reach a client.
 */
export function wrapUnary<Req, Res>(
  method: string,
  handler: UnaryHandler<Req, Res>,
  deps: UnaryWrapperDeps,
): grpc.handleUnaryCall<Req, Res> {
  const slash = method.lastIndexOf('/');
  const service = method.slice(1, slash);
  const rpc = method.slice(slash + 1);
  const spanAttributes = { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': rpc };
  return (call, callback) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(call.metadata, deps.ids);
    const server = startServerSpan(
      `${service}/${rpc}`,
      spanAttributes,
      extractGrpcContext(call.metadata),
    );
    const echo = new grpc.Metadata();
    echo.set(REQUEST_ID_HEADER, requestId);
    call.sendMetadata(echo);

    const finish = (code: grpc.status, message?: string): void => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      deps.recorder?.recordGrpc(service, rpc, code, durationMs / 1000);
      const traceId =
        server === undefined
          ? callerTraceId(call.metadata.get('traceparent')[0])
          : traceIdOf(server.span);
      if (server !== undefined) finishGrpcServerSpan(server.span, code, message);
      deps.logger.info('grpc call', {
        method,
        code: grpc.status[code] ?? String(code),
        durationMs: Math.round(durationMs * 1000) / 1000,
        requestId,
        ...(traceId === undefined ? {} : { traceId }),
        ...(message === undefined ? {} : { error: message }),
      });
    };

    const run = async (): Promise<Res> => {
      if ((call.request as unknown) === UNDECODABLE) {
        throw new GrpcStatusError(
          grpc.status.INVALID_ARGUMENT,
          'request message could not be decoded',
        );
      }
      const authentication = deps.authenticator
        ? await deps.authenticator.authenticate({
            method,
            metadata: call.metadata,
            request: call.request,
          })
        : undefined;
      return handler(call.request, { method, requestId, metadata: call.metadata, authentication });
    };

    (server === undefined ? run() : runInContext(server.context, run)).then(
      (response) => {
        finish(grpc.status.OK);
        callback(null, response);
      },
      (err: unknown) => {
        const { code, message } = statusOf(err, method, requestId, deps.logger);
        finish(code, message);
        callback({ code, details: message, metadata: new grpc.Metadata() });
      },
    );
  };
}

function statusOf(
  err: unknown,
  method: string,
  requestId: string,
  logger: Logger,
): { code: grpc.status; message: string } {
  if (err instanceof GrpcStatusError)
    return { code: err.code, message: boundedMessage(err.message) };
  const pub = toPublicError(err);
  if (pub.unexpected) {
    const e = err instanceof Error ? err : new Error(String(err));
    logger.error('unexpected error in grpc call', {
      method,
      requestId,
      error: e.message,
      stack: e.stack,
    });
  }
  return { code: pub.code as grpc.status, message: pub.message };
}
