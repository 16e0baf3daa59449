import { TokenCleanupJob } from '../../../src/adapters/auth';
import { MemoryTokenRepository } from '../../../src/adapters/storage/memory/memory-token-repository';
import { runTokenCleanup } from '../../../src/domain/auth';
import type { TokenRepository } from '../../../src/ports';
import { FakeClock } from './support';

const HOUR = 3_600_000;

async function seed(repo: TokenRepository) {
  const at = (id: string, expiresAt?: string) =>
    repo.createAuthentication({
      authentication: {
        id,
        method: 'METHOD_TOKEN',
        ...(expiresAt ? { expiresAt } : {}),
        createdAt: '2029-01-01T00:00:00.000000Z',
        updatedAt: '2029-01-01T00:00:00.000000Z',
        metadata: {},
      },
      hashedClientToken: `hash-${id}`,
    });
  await at('long-expired', '2029-12-31T23:00:00.000000Z');
  await at('in-grace', '2029-12-31T23:45:00.000000Z');
  await at('valid', '2030-01-02T00:00:00.000000Z');
  await at('never');
}

describe('runTokenCleanup', () => {
  it('deletes tokens expired longer ago than the grace period, never ones without expiry', async () => {
    const repo = new MemoryTokenRepository();
    await seed(repo);
    const clock = new FakeClock(); // 2030-01-01T00:00:00Z
    const outcome = await runTokenCleanup(
      { repository: repo, clock },
      { intervalMs: HOUR, gracePeriodMs: 30 * 60_000 },
    );
    expect(outcome).toEqual({
      acquired: true,
      deleted: 1,
      nextAttemptAt: '2030-01-01T01:00:00.000000Z',
    });
    const left = (await repo.listAuthentications({ offset: 0, limit: 10 })).map((a) => a.id);
    expect(left.sort()).toEqual(['in-grace', 'never', 'valid']);
  });

  it('a second runner within the interval does not run', async () => {
    const repo = new MemoryTokenRepository();
    const clock = new FakeClock();
    const opts = { intervalMs: HOUR, gracePeriodMs: 60_000 };
    expect((await runTokenCleanup({ repository: repo, clock }, opts)).acquired).toBe(true);
    clock.advance(HOUR - 1);
    const second = await runTokenCleanup({ repository: repo, clock }, opts);
    expect(second.acquired).toBe(false);
    expect(second.nextAttemptAt).toBe('2030-01-01T01:00:00.000000Z');
    clock.advance(2);
    expect((await runTokenCleanup({ repository: repo, clock }, opts)).acquired).toBe(true);
  });
});

describe('TokenCleanupJob', () => {
  afterEach(() => jest.useRealTimers());

  it('runs at start and then whenever the lease ends; stop ends the loop', async () => {
    jest.useFakeTimers();
    const repo = new MemoryTokenRepository();
    const clock = new FakeClock();
    const spy = jest.spyOn(repo, 'deleteExpiredAuthentications');
    const job = new TokenCleanupJob({
      repository: repo,
      clock,
      intervalMs: HOUR,
      gracePeriodMs: 1,
    });
    job.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(spy).toHaveBeenCalledTimes(1);
    clock.advance(HOUR + 1);
    await jest.advanceTimersByTimeAsync(HOUR);
    expect(spy).toHaveBeenCalledTimes(2);
    await job.stop();
    clock.advance(10 * HOUR);
    await jest.advanceTimersByTimeAsync(10 * HOUR);
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('two jobs on one store: only one deletes per interval', async () => {
    jest.useFakeTimers();
    const repo = new MemoryTokenRepository();
    await seed(repo);
    const clock = new FakeClock();
    const spy = jest.spyOn(repo, 'deleteExpiredAuthentications');
    const opts = { repository: repo, clock, intervalMs: HOUR, gracePeriodMs: 60_000 };
    const a = new TokenCleanupJob(opts);
    const b = new TokenCleanupJob(opts);
    a.start();
    b.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(spy).toHaveBeenCalledTimes(1);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('retries after the error delay when a pass fails', async () => {
    jest.useFakeTimers();
    const repo = new MemoryTokenRepository();
    const clock = new FakeClock();
    const errors: string[] = [];
    let calls = 0;
    jest.spyOn(repo, 'tryAcquireLock').mockImplementation(async () => {
      calls += 1;
      throw new Error('db down');
    });
    const job = new TokenCleanupJob({
      repository: repo,
      clock,
      intervalMs: HOUR,
      gracePeriodMs: 1,
      errorRetryMs: 5 * 60_000,
      logger: {
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: (m) => void errors.push(m),
      },
    });
    job.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    await jest.advanceTimersByTimeAsync(5 * 60_000 - 1);
    expect(calls).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    expect(errors[0]).toBe('token cleanup failed');
    await job.stop();
  });

  it('refuses a zero interval or grace period', () => {
    const repo = new MemoryTokenRepository();
    const clock = new FakeClock();
    expect(
      () => new TokenCleanupJob({ repository: repo, clock, intervalMs: 0, gracePeriodMs: 1 }),
    ).toThrow(RangeError);
    expect(
      () => new TokenCleanupJob({ repository: repo, clock, intervalMs: 1, gracePeriodMs: 0 }),
    ).toThrow(RangeError);
  });
});
