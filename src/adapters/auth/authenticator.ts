import { UnauthenticatedError } from '../../domain/errors';
import type { Authentication } from '../../domain/model';
import { isExpired, toEpochMicros } from '../../domain/auth';
import type { Clock, Logger, Stopwatch, TokenCrypto, TokenRepository } from '../../ports';
import {
  extractCredential,
  extractCredentialFromMetadata,
  type ExtractedCredential,
  type MetadataReader,
} from './credential-extractor';
import { formatMicros } from '../system/clock';
import { LookupCache } from './lookup-cache';

export interface AuthenticatorCacheOptions {
  /** Known tokens kept at most (default 10 000). */
  readonly maxEntries?: number;
  /**
   * How long a found token is trusted without asking the database again (default 500 ms, at
   * most 1000): a token deleted on another instance stops working here within this time.
   */
  readonly ttlMs?: number;
  /** Unknown tokens remembered at most (default 10 000), apart from the known ones so that a
   * flood of random tokens cannot push valid ones out. */
  readonly negativeMaxEntries?: number;
  /** How long an unknown token is remembered (default 500 ms, at most 1000). */
  readonly negativeTtlMs?: number;
}

export interface AuthenticatorOptions {
  readonly repository: TokenRepository;
  readonly crypto: TokenCrypto;
  readonly clock: Clock;
  readonly stopwatch: Stopwatch;
  readonly logger?: Logger;
  readonly cache?: AuthenticatorCacheOptions;
}

/** Longest accepted credential; anything longer is refused without hashing or a lookup. */
const MAX_TOKEN_LENGTH = 4096;
const MAX_TTL_MS = 1000;

/**
 * Turns a presented client token into its Authentication, for every transport. Every failure
 * (nothing sent, wrong scheme, unknown, expired, storage down) is the same
 * UnauthenticatedError('request was not authenticated'); the token itself never appears in an
 * error or a log line.
 *
 * Lookups, found or not, are cached by token hash for under a second, so the steady state costs
 * no database round-trip per request; concurrent lookups of one token share a single query.
 * Expiry is checked against the clock on every use, so an expired token is refused at once even
 * while cached.
 */
export class Authenticator {
  private readonly known: LookupCache<string, Authentication>;
  private readonly unknown: LookupCache<string, true>;
  private readonly inFlight = new Map<string, Promise<Authentication | undefined>>();
  /** Bumped by every invalidation so that a lookup started before it is not cached after it. */
  private generation = 0;

  constructor(private readonly options: AuthenticatorOptions) {
    const cache = options.cache ?? {};
    const ttlMs = cache.ttlMs ?? 500;
    const negativeTtlMs = cache.negativeTtlMs ?? 500;
    if (ttlMs > MAX_TTL_MS || negativeTtlMs > MAX_TTL_MS) {
      throw new RangeError(`token lookup cache TTL must not exceed ${MAX_TTL_MS} ms`);
    }
    this.known = new LookupCache({
      maxEntries: cache.maxEntries ?? 10_000,
      ttlMs,
      stopwatch: options.stopwatch,
    });
    this.unknown = new LookupCache({
      maxEntries: cache.negativeMaxEntries ?? 10_000,
      ttlMs: negativeTtlMs,
      stopwatch: options.stopwatch,
    });
  }

  /**
   * Whether `expiresAt` has passed. Checked on every authenticated request: when the expiry is
   * in the clock's own fixed-width UTC form (what Vexil stores) and so is the clock's answer,
   * the two order as text and nothing is parsed; anything else is parsed as before.
   */
  private expired(expiresAt: string): boolean {
    const now = this.options.clock.now();
    if (expiresAt !== this.lastExpiresAt) {
      this.lastExpiresAt = expiresAt;
      this.lastExpiresCanonical = isCanonical(expiresAt);
    }
    if (this.lastExpiresCanonical && CANONICAL.test(now)) return expiresAt < now;
    return isExpired(expiresAt, now);
  }

  private lastExpiresAt = '';
  private lastExpiresCanonical = false;

  /**
   * The cache-hit path without any promise: the caller's authentication when the token's
   * lookup is cached, undefined when a lookup is needed (then call `authenticate`). Throws
   * UnauthenticatedError for what is refused without a lookup.
   */
  authenticateCached(
    authorization: string | readonly string[] | undefined,
    cookie?: string | readonly string[],
  ): Authentication | undefined {
    const credential = extractCredential(authorization, cookie);
    if (credential.kind !== 'token') throw new UnauthenticatedError();
    const token = credential.token;
    if (token === '' || token.length > MAX_TOKEN_LENGTH) throw new UnauthenticatedError();
    const hash = this.options.crypto.hashToken(token);
    const found = this.known.get(hash);
    if (found === undefined) {
      if (this.unknown.get(hash) !== undefined) throw new UnauthenticatedError();
      return undefined;
    }
    if (found.expiresAt !== undefined && this.expired(found.expiresAt)) {
      throw new UnauthenticatedError();
    }
    return found;
  }

  /** HTTP: the `Authorization` header and the `Cookie` header, as received. */
  authenticate(
    authorization: string | readonly string[] | undefined,
    cookie?: string | readonly string[],
  ): Promise<Authentication> {
    return this.authenticateCredential(extractCredential(authorization, cookie));
  }

  /** gRPC: the call's metadata. */
  authenticateMetadata(metadata: MetadataReader): Promise<Authentication> {
    return this.authenticateCredential(extractCredentialFromMetadata(metadata));
  }

  async authenticateCredential(credential: ExtractedCredential): Promise<Authentication> {
    if (credential.kind !== 'token') throw new UnauthenticatedError();
    return this.authenticateToken(credential.token);
  }

  async authenticateToken(token: string): Promise<Authentication> {
    if (token === '' || token.length > MAX_TOKEN_LENGTH) throw new UnauthenticatedError();
    const hash = this.options.crypto.hashToken(token);
    const found = this.known.get(hash) ?? (await this.lookup(hash));
    if (found === undefined) throw new UnauthenticatedError();
    // Reading the clock costs more than the rest of a cache hit; only expiring tokens need it.
    if (found.expiresAt !== undefined && this.expired(found.expiresAt)) {
      throw new UnauthenticatedError();
    }
    return found;
  }

  /** Forgets a token at once on this instance (after delete or expire); wire to AuthApi. */
  invalidate(authenticationId: string): void {
    this.generation += 1;
    this.inFlight.clear();
    this.known.deleteWhere((auth) => auth.id === authenticationId);
  }

  /** Forgets everything cached. */
  clear(): void {
    this.generation += 1;
    this.inFlight.clear();
    this.known.clear();
    this.unknown.clear();
  }

  /** Cached entries, known and unknown (for tests and metrics). */
  get cacheSize(): { known: number; unknown: number } {
    return { known: this.known.size, unknown: this.unknown.size };
  }

  private async lookup(hash: string): Promise<Authentication | undefined> {
    if (this.unknown.get(hash) !== undefined) return undefined;
    let pending = this.inFlight.get(hash);
    if (pending === undefined) {
      pending = this.query(hash);
      this.inFlight.set(hash, pending);
    }
    return pending;
  }

  private async query(hash: string): Promise<Authentication | undefined> {
    const generation = this.generation;
    try {
      const found = await this.options.repository.getAuthenticationByHashedToken(hash);
      if (generation === this.generation) {
        if (found === undefined) this.unknown.set(hash, true);
        else this.known.set(hash, found);
      }
      return found;
    } catch (error) {
      // Storage trouble is not the caller's to see; Flipt answers 401 as well.
      this.options.logger?.warn('authentication lookup failed', {
        error: error instanceof Error ? error.message : String(error),
      });
      throw new UnauthenticatedError();
    } finally {
      if (this.inFlight.get(hash) !== undefined && generation === this.generation) {
        this.inFlight.delete(hash);
      }
    }
  }
}

/** 'YYYY-MM-DDTHH:MM:SS.ffffffZ', the form SystemClock gives. */
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** In the canonical form and a real instant (not, say, February 30th). */
function isCanonical(ts: string): boolean {
  if (!CANONICAL.test(ts)) return false;
  const micros = toEpochMicros(ts);
  return micros !== undefined && formatMicros(micros) === ts;
}
