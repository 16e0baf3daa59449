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
  GENERIC_INTERNAL_MESSAGE,
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
