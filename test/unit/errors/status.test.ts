import {
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  UnauthenticatedError,
  UnavailableError,
  ValidationError,
} from '../../../src/domain/errors';
import {
  boundedMessage,
  GENERIC_INTERNAL_MESSAGE,
  MAX_ERROR_MESSAGE_BYTES,
  grpcCodeForKind,
  httpStatusForGrpcCode,
  toPublicError,
} from '../../../src/adapters/status';

describe('the status table', () => {
  it('maps each domain error kind to its gRPC code and HTTP status', () => {
    const table = [
      ['not_found', 5, 404],
      ['invalid_argument', 3, 400],
      ['unauthenticated', 16, 401],
      ['permission_denied', 7, 403],
      ['unavailable', 14, 503],
      ['resource_exhausted', 8, 429],
      ['internal', 13, 500],
    ] as const;
    for (const [kind, code, status] of table) {
      expect([kind, grpcCodeForKind(kind), httpStatusForGrpcCode(grpcCodeForKind(kind))]).toEqual([
        kind,
        code,
        status,
      ]);
    }
  });

  it('passes the message of an expected error through', () => {
    for (const err of [
      new NotFoundError('flag "default/f" not found'),
      new InvalidArgumentError('rule rank: 2 detected out of order'),
      new ValidationError('key', 'must not be empty'),
      new UnauthenticatedError(),
      new PermissionDeniedError(),
      new UnavailableError('storage unavailable: postgres: connect ECONNREFUSED'),
    ]) {
      expect(toPublicError(err)).toMatchObject({ message: err.message, unexpected: false });
    }
  });

  it('never lets a 500 carry an internal message', () => {
    for (const err of [
      new InternalError('rollout rank: -1 detected out of order'),
      new TypeError("Cannot read properties of undefined (reading 'rows')"),
      'a string',
      undefined,
    ]) {
      const pub = toPublicError(err);
      expect(pub).toEqual({
        code: 13,
        httpStatus: 500,
        message: GENERIC_INTERNAL_MESSAGE,
        unexpected: true,
      });
    }
  });
});

describe('error messages are bounded', () => {
  it('keeps messages up to the limit as they are', () => {
    const exact = `flag "default/${'k'.repeat(MAX_ERROR_MESSAGE_BYTES - 25)}" not found`;
    expect(Buffer.byteLength(exact)).toBe(MAX_ERROR_MESSAGE_BYTES);
    expect(boundedMessage(exact)).toBe(exact);
  });

  it('cuts longer ones at a character boundary and says so', () => {
    const long = `flag "default/${'é'.repeat(100_000)}" not found`;
    const cut = boundedMessage(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_BYTES);
    expect(Buffer.byteLength(cut)).toBeGreaterThan(MAX_ERROR_MESSAGE_BYTES - 4);
    expect(cut).toMatch(/^flag "default\/é+\.\.\.$/);
    const emoji = boundedMessage('\u{1F600}'.repeat(10_000), 11);
    expect(emoji).toBe('\u{1F600}\u{1F600}...');
  });

  it('applies to what toPublicError hands out', () => {
    const pub = toPublicError(new NotFoundError(`namespace "${'n'.repeat(1_000_000)}" not found`));
    expect(Buffer.byteLength(pub.message)).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_BYTES);
  });
});
