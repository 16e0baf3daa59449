import type { Timestamp } from '../model';
import type { Clock, Logger, TokenRepository } from '../../ports';
import { TOKEN_CLEANUP_OPERATION } from './metadata-keys';
import { addMilliseconds } from './timestamps';

export interface TokenCleanupOptions {
  /** `cleanup.interval` in ms: the lock is held this long, and runs are this far apart. */
  readonly intervalMs: number;
  /** `cleanup.grace_period` in ms: tokens expired for longer than this are deleted. */
  readonly gracePeriodMs: number;
}

export interface TokenCleanupDeps {
  readonly repository: TokenRepository;
  readonly clock: Clock;
  readonly logger?: Logger;
}

export interface TokenCleanupOutcome {
  /** Whether this instance held the lock and ran the deletion. */
  readonly acquired: boolean;
  readonly deleted: number;
  /** When the current lease ends (ours or another instance's): the next attempt is due then. */
  readonly nextAttemptAt?: Timestamp;
}

/**
 * One pass of the expiry cleanup (reference §6.6): take the `cleanup_auth_token` lease for one
 * interval; if it is ours, delete TOKEN authentications with `expires_at < now - grace`.
 * Non-expiring tokens (no expires_at) are never touched.
 */
export async function runTokenCleanup(
  deps: TokenCleanupDeps,
  options: TokenCleanupOptions,
): Promise<TokenCleanupOutcome> {
  const { repository, clock, logger } = deps;
  const now = clock.now();
  const until = addMilliseconds(now, options.intervalMs);
  const attempt = await repository.tryAcquireLock(TOKEN_CLEANUP_OPERATION, now, until);
  if (!attempt.acquired) {
    return {
      acquired: false,
      deleted: 0,
      ...(attempt.acquiredUntil === undefined ? {} : { nextAttemptAt: attempt.acquiredUntil }),
    };
  }
  const before = addMilliseconds(now, -options.gracePeriodMs);
  const deleted = await repository.deleteExpiredAuthentications('METHOD_TOKEN', before);
  if (deleted > 0)
    logger?.info('expired tokens deleted', { count: deleted, expired_before: before });
  return { acquired: true, deleted, nextAttemptAt: attempt.acquiredUntil ?? until };
}
