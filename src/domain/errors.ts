/**
 * The one error taxonomy. Messages are the exact texts clients see; the transport maps
 * `kind` to a gRPC code and HTTP status through src/adapters/status.ts.
 */
export type ErrorKind =
  | 'not_found'
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'unavailable'
  | 'resource_exhausted'
  | 'internal';

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;
}

/** `message` is the whole text, e.g. `flag "default/foo" not found`. */
export class NotFoundError extends DomainError {
  readonly kind = 'not_found' as const;
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

export class InvalidArgumentError extends DomainError {
  readonly kind = 'invalid_argument' as const;
  constructor(message: string) {
    super(message);
    this.name = 'InvalidArgumentError';
  }
}

/** Flipt's ErrValidation: `invalid field <field>: <reason>`. */
export class ValidationError extends InvalidArgumentError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`invalid field ${field}: ${reason}`);
    this.name = 'ValidationError';
  }
}

export class UnauthenticatedError extends DomainError {
  readonly kind = 'unauthenticated' as const;
  constructor(message = 'request was not authenticated') {
    super(message);
    this.name = 'UnauthenticatedError';
  }
}

export class PermissionDeniedError extends DomainError {
  readonly kind = 'permission_denied' as const;
  constructor(message = 'permission denied') {
    super(message);
    this.name = 'PermissionDeniedError';
  }
}

/** The storage (or another dependency) cannot be reached; the message names it. */
export class UnavailableError extends DomainError {
  readonly kind = 'unavailable' as const;
  constructor(message: string) {
    super(message);
    this.name = 'UnavailableError';
  }
}

/** A configured limit would be exceeded (e.g. a snapshot larger than allowed); says which. */
export class ResourceExhaustedError extends DomainError {
  readonly kind = 'resource_exhausted' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ResourceExhaustedError';
  }
}

/** Something that should not happen; its message goes to the log, never to a client. */
export class InternalError extends DomainError {
  readonly kind = 'internal' as const;
  constructor(message: string) {
    super(message);
    this.name = 'InternalError';
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

/**
 * A repository write that would break a unique key (a driver's unique or primary-key
 * violation). The domain catches it where it names the resource in Flipt's words; one that
 * slips through still answers with Flipt's generic text.
 */
export class UniqueViolationError extends InvalidArgumentError {
  constructor() {
    super('not unique');
    this.name = 'UniqueViolationError';
  }
}

/** A repository write whose parent row is missing or still referenced (a foreign key). */
export class ForeignKeyViolationError extends NotFoundError {
  constructor() {
    super('associated resource not found');
    this.name = 'ForeignKeyViolationError';
  }
}
