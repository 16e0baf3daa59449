import { UnavailableError } from '../../../src/domain/errors';
import { Deferred } from '../../../src/app/deferred';
import { HealthState } from '../../../src/app/health-state';
import { retryWithBackoff } from '../../../src/app/retry';

describe('health state', () => {
  it('notifies subscribers of changes only', () => {
    const h = new HealthState('NOT_SERVING', 'starting');
    const seen: string[] = [];
    const unsubscribe = h.subscribe((s) => seen.push(`${s.status}:${s.detail ?? ''}`));
    h.set('NOT_SERVING', 'starting');
    h.set('SERVING');
    h.set('SERVING');
    unsubscribe();
    h.set('NOT_SERVING', 'stopping');
    expect(seen).toEqual(['SERVING:']);
    expect(h.current()).toEqual({ status: 'NOT_SERVING', detail: 'stopping' });
  });

  it('reads a detail given as a function each time, so an outage age counts up', () => {
    let seconds = 0;
    const h = new HealthState('SERVING');
    const seen: Array<string | undefined> = [];
    h.subscribe((s) => seen.push(s.detail));
    h.set('SERVING', () => `serving last known good snapshots for ${seconds}s`);
    expect(h.current().detail).toBe('serving last known good snapshots for 0s');
    seconds = 42;
    expect(h.current()).toEqual({
      status: 'SERVING',
      detail: 'serving last known good snapshots for 42s',
    });
    // Setting the same provider again is no change; clearing it is one.
    h.set('SERVING');
    expect(h.current()).toEqual({ status: 'SERVING' });
    expect(seen).toEqual(['serving last known good snapshots for 0s', undefined]);
  });

  it('stays NOT_SERVING once shut down, whatever is set afterwards', () => {
    const h = new HealthState('SERVING');
    const seen: string[] = [];
    h.subscribe((s) => seen.push(s.status));
    h.shutDown('shutting down');
    h.set('SERVING');
    h.set('SERVING', () => 'serving last known good snapshots for 3s');
    expect(h.current()).toEqual({ status: 'NOT_SERVING', detail: 'shutting down' });
    expect(seen).toEqual(['NOT_SERVING']);
  });
});

describe('deferred service', () => {
  it('answers UNAVAILABLE until resolved, then forwards', async () => {
    const d = new Deferred<{ get(x: number): Promise<number> }>('storage is not ready');
    await expect(d.proxy.get(1)).rejects.toThrow(UnavailableError);
    await expect(d.proxy.get(1)).rejects.toThrow('storage is not ready');
    d.resolve({ get: async (x) => x * 2 });
    await expect(d.proxy.get(21)).resolves.toBe(42);
    expect(d.ready).toBe(true);
  });
});

describe('retry with backoff', () => {
  it('retries until success, reporting each failure with a growing delay', async () => {
    let calls = 0;
    const delays: number[] = [];
    const value = await retryWithBackoff(
      async () => {
        calls++;
        if (calls < 4) throw new Error(`down ${calls}`);
        return 'up';
      },
      { initialDelayMs: 1, maxDelayMs: 4, onFailure: (_e, _n, d) => delays.push(d) },
    );
    expect(value).toBe('up');
    expect(calls).toBe(4);
    expect(delays).toHaveLength(3);
    expect(Math.max(...delays)).toBeLessThanOrEqual(5);
  });

  it('gives up at once on an error waiting cannot cure', async () => {
    let calls = 0;
    const failures: unknown[] = [];
    const missing = new Error('database "x" does not exist');
    await expect(
      retryWithBackoff(
        async () => {
          calls++;
          throw calls === 1 ? new Error('connection refused') : missing;
        },
        {
          initialDelayMs: 1,
          maxDelayMs: 2,
          isPermanent: (err) => err === missing,
          onFailure: (e) => failures.push(e),
        },
      ),
    ).rejects.toBe(missing);
    expect(calls).toBe(2);
    expect(failures).toHaveLength(1);
  });

  it('waits whole milliseconds between tries (one fractional timer reshapes every timer)', async () => {
    const timers = jest.spyOn(global, 'setTimeout');
    try {
      let calls = 0;
      await retryWithBackoff(
        async () => {
          if (++calls < 6) throw new Error('down');
        },
        { initialDelayMs: 1.3, maxDelayMs: 7.7, onFailure: () => undefined },
      );
      const delays = timers.mock.calls.map(([, ms]) => ms);
      expect(delays).toHaveLength(5);
      for (const ms of delays) expect(Number.isInteger(ms)).toBe(true);
    } finally {
      timers.mockRestore();
    }
  });

  it('stops when aborted', async () => {
    const ac = new AbortController();
    const p = retryWithBackoff(() => Promise.reject(new Error('down')), {
      initialDelayMs: 50,
      maxDelayMs: 50,
      signal: ac.signal,
      onFailure: () => ac.abort(),
    });
    await expect(p).rejects.toThrow();
  });
});
