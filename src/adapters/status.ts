import { isDomainError, type ErrorKind } from '../domain/errors';

/** gRPC status codes (numbers are part of the wire contract). */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCodeNumber = (typeof GrpcCode)[keyof typeof GrpcCode];

/** The one table: domain error kind -> gRPC code. */
const KIND_TO_GRPC: Record<ErrorKind, GrpcCodeNumber> = {
  not_found: GrpcCode.NOT_FOUND,
  invalid_argument: GrpcCode.INVALID_ARGUMENT,
  unauthenticated: GrpcCode.UNAUTHENTICATED,
  permission_denied: GrpcCode.PERMISSION_DENIED,
  unavailable: GrpcCode.UNAVAILABLE,
  resource_exhausted: GrpcCode.RESOURCE_EXHAUSTED,
  internal: GrpcCode.INTERNAL,
};

/** gRPC code -> HTTP status, as grpc-gateway maps them. */
const GRPC_TO_HTTP: Record<GrpcCodeNumber, number> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

export const grpcCodeForKind = (kind: ErrorKind): GrpcCodeNumber => KIND_TO_GRPC[kind];
export const httpStatusForGrpcCode = (code: GrpcCodeNumber): number => GRPC_TO_HTTP[code];

export const GENERIC_INTERNAL_MESSAGE = 'internal error';

/**
 * Longest error message sent, in UTF-8 bytes. Messages quote what a request sent (keys,
 * values, enum names); over gRPC the message travels in a trailer, and one of a few hundred
 * KB leaves the call without a status and wedges the connection. Flipt's messages about
 * values within the size limits stay far below this.
 */
export const MAX_ERROR_MESSAGE_BYTES = 2048;

/** The message, or its first bytes (whole characters) followed by "..." when too long. */
export function boundedMessage(message: string, maxBytes = MAX_ERROR_MESSAGE_BYTES): string {
  if (message.length * 3 <= maxBytes || Buffer.byteLength(message) <= maxBytes) return message;
  let bytes = 0;
  let end = 0;
  for (const ch of message) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxBytes - 3) break;
    bytes += size;
    end += ch.length;
  }
  return `${message.slice(0, end)}...`;
}

export interface PublicError {
  readonly code: GrpcCodeNumber;
  readonly httpStatus: number;
  readonly message: string;
  /** True when the error was unexpected: log it with its stack. */
  readonly unexpected: boolean;
}

/** Turns anything thrown into what a client may see. Internals never leak. */
export function toPublicError(err: unknown): PublicError {
  if (isDomainError(err) && err.kind !== 'internal') {
    const code = grpcCodeForKind(err.kind);
    return {
      code,
      httpStatus: httpStatusForGrpcCode(code),
      message: boundedMessage(err.message),
      unexpected: false,
    };
  }
  return {
    code: GrpcCode.INTERNAL,
    httpStatus: 500,
    message: GENERIC_INTERNAL_MESSAGE,
    unexpected: true,
  };
}
