import { runTokenCleanup, toEpochMicros, type TokenCleanupOutcome } from '../../domain/auth';
import type { Clock, Logger, TokenRepository } from '../../ports';

export interface TokenCleanupJobOptions {
  readonly repository: TokenRepository;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** `authentication.methods.token.cleanup.interval` in ms (> 0). */
  readonly intervalMs: number;
  /** `authentication.methods.token.cleanup.grace_period` in ms (> 0). */
  readonly gracePeriodMs: number;
  /** Wait after a failed pass (default 5 minutes, as Flipt). */
  readonly errorRetryMs?: number;
  /** Shortest wait between attempts (default 1 s), so clock skew cannot make it spin. */
  readonly minDelayMs?: number;
}

/**
 * Runs the token cleanup in the background: a pass at start, then one whenever the lease taken
 * by the last pass (this instance's or another's) ends. Several instances may run it; the
 * `operation_lock` lease lets only one of them delete per interval.
 */
export class TokenCleanupJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(private readonly options: TokenCleanupJobOptions) {
    if (!(options.intervalMs > 0)) throw new RangeError('cleanup interval must be greater than 0');
    if (!(options.gracePeriodMs > 0)) {
      throw new RangeError('cleanup grace period must be greater than 0');
    }
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops scheduling and waits for a pass in progress to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass, now (also used by the loop). */
  runOnce(): Promise<TokenCleanupOutcome> {
    const { repository, clock, logger, intervalMs, gracePeriodMs } = this.options;
    return runTokenCleanup(
      { repository, clock, ...(logger ? { logger } : {}) },
      {
        intervalMs,
        gracePeriodMs,
      },
    );
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    let delay: number;
    const pass = this.runOnce();
    this.running = pass.catch(() => undefined);
    try {
      const outcome = await pass;
      delay = this.delayUntil(outcome.nextAttemptAt);
    } catch (error) {
      this.options.logger?.error('token cleanup failed', {
        error: error instanceof Error ? error.message : String(error),
      });
      delay = this.options.errorRetryMs ?? 5 * 60_000;
    } finally {
      this.running = undefined;
    }
    this.schedule(delay);
  }

  private delayUntil(at: string | undefined): number {
    const minDelay = this.options.minDelayMs ?? 1000;
    if (at === undefined) return Math.max(minDelay, this.options.intervalMs);
    const until = toEpochMicros(at);
    const now = toEpochMicros(this.options.clock.now());
    if (until === undefined || now === undefined) return this.options.intervalMs;
    const ms = Math.ceil((until - now) / 1000);
    return Math.min(Math.max(ms, minDelay), this.options.intervalMs);
  }
}
