import { LookupCache } from '../../../src/adapters/auth';

function fakeStopwatch() {
  let now = 0;
  return { nowMs: () => now, advance: (ms: number) => void (now += ms) };
}

describe('LookupCache', () => {
  it('forgets an entry once its TTL has passed', () => {
    const sw = fakeStopwatch();
    const cache = new LookupCache<string, number>({ maxEntries: 10, ttlMs: 500, stopwatch: sw });
    cache.set('a', 1);
    sw.advance(499);
    expect(cache.get('a')).toBe(1);
    sw.advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('a hit does not extend the lifetime', () => {
    const sw = fakeStopwatch();
    const cache = new LookupCache<string, number>({ maxEntries: 10, ttlMs: 500, stopwatch: sw });
    cache.set('a', 1);
    for (let i = 0; i < 4; i += 1) {
      sw.advance(100);
      expect(cache.get('a')).toBe(1);
    }
    sw.advance(100);
    expect(cache.get('a')).toBeUndefined();
  });

  it('stays within its bound, evicting the least recently used', () => {
    const sw = fakeStopwatch();
    const cache = new LookupCache<string, number>({ maxEntries: 3, ttlMs: 1000, stopwatch: sw });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    for (let i = 0; i < 1000; i += 1) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
  });

  it('deletes by key and by predicate', () => {
    const sw = fakeStopwatch();
    const cache = new LookupCache<string, number>({ maxEntries: 10, ttlMs: 1000, stopwatch: sw });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 2);
    cache.delete('a');
    cache.deleteWhere((v) => v === 2);
    expect(cache.size).toBe(0);
  });

  it('refuses a bound below one', () => {
    expect(() => new LookupCache({ maxEntries: 0, ttlMs: 1, stopwatch: fakeStopwatch() })).toThrow(
      RangeError,
    );
  });
});
