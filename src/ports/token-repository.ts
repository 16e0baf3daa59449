import type { AuthMethod, Authentication, Timestamp } from '../domain/model';

/**
 * Storage of authentications (client tokens). Only the hash of a client token ever reaches
 * this port; the plain token stays with the caller that generated it.
 *
 * Implementations keep timestamps in the domain Timestamp form and compare them as instants.
 */
export interface NewAuthentication {
  readonly authentication: Authentication;
  /** base64url(SHA-256(client token)), 44 characters; unique across all authentications. */
  readonly hashedClientToken: string;
}

export interface AuthenticationListQuery {
  /** Undefined lists every method. */
  readonly method?: AuthMethod;
  readonly offset: number;
  /** Rows to return at most (> 0). */
  readonly limit: number;
}

/** The outcome of trying to take a named lease in `operation_lock`. */
export interface LockAttempt {
  readonly acquired: boolean;
  /**
   * Until when the lease is held: ours when acquired, otherwise the current holder's (undefined
   * when it could not be read, e.g. the holder's row vanished in between).
   */
  readonly acquiredUntil?: Timestamp;
}

export interface TokenRepository {
  /** Inserts; a hashed token that already exists fails with InvalidArgumentError. */
  createAuthentication(input: NewAuthentication): Promise<Authentication>;
  /**
   * Inserts only when no authentication of the same method exists yet, atomically with respect
   * to other callers of this method (several instances starting together create at most one).
   * Returns undefined, inserting nothing, when one exists or the hashed token is taken.
   */
  createFirstAuthentication(input: NewAuthentication): Promise<Authentication | undefined>;
  getAuthenticationByHashedToken(hashedClientToken: string): Promise<Authentication | undefined>;
  getAuthentication(id: string): Promise<Authentication | undefined>;
  /** Ordered by created_at, then id, ascending. */
  listAuthentications(query: AuthenticationListQuery): Promise<Authentication[]>;
  /** True when a row was deleted. */
  deleteAuthentication(id: string): Promise<boolean>;
  /** Sets expires_at (and updated_at); true when the row exists. */
  expireAuthentication(id: string, expiresAt: Timestamp, updatedAt: Timestamp): Promise<boolean>;
  existsAuthentication(method: AuthMethod): Promise<boolean>;
  /** Deletes rows of `method` whose expires_at is set and earlier than `before`; returns the count. */
  deleteExpiredAuthentications(method: AuthMethod, before: Timestamp): Promise<number>;
  /**
   * Takes the lease `operation` until `until` if nobody holds it at `now` (free, or its
   * acquired_until is earlier than `now`). Exactly one of several concurrent callers wins.
   */
  tryAcquireLock(operation: string, now: Timestamp, until: Timestamp): Promise<LockAttempt>;
}

/** Randomness and hashing for client tokens, kept out of the domain. */
export interface TokenCrypto {
  /** A new client token: 32 random bytes, base64 URL-safe with padding (44 characters). */
  generateToken(): string;
  /** base64url(SHA-256(token)) with padding (44 characters). */
  hashToken(token: string): string;
}
