import {
  addMilliseconds,
  isExpired,
  normalizeTimestamp,
  toEpochMicros,
} from '../../../src/domain/auth';

describe('auth timestamps', () => {
  it.each([
    ['2030-01-01T00:00:00Z', '2030-01-01T00:00:00.000000Z'],
    ['2030-01-01T00:00:00.5Z', '2030-01-01T00:00:00.500000Z'],
    ['2030-01-01 00:00:00.123456', '2030-01-01T00:00:00.123456Z'],
    ['2030-01-01T02:00:00.000001+02:00', '2030-01-01T00:00:00.000001Z'],
    ['2030-01-01 00:00:00+00', '2030-01-01T00:00:00.000000Z'],
    ['2030-01-01T00:00:00.123456789Z', '2030-01-01T00:00:00.123456Z'],
  ])('normalizes %s', (input, expected) => expect(normalizeTimestamp(input)).toBe(expected));

  it('rejects text that is not a timestamp', () => {
    expect(normalizeTimestamp('tomorrow')).toBeUndefined();
    expect(toEpochMicros('')).toBeUndefined();
  });

  it('adds milliseconds across day boundaries, keeping microseconds', () => {
    expect(addMilliseconds('2030-12-31T23:59:59.999999Z', 1)).toBe('2031-01-01T00:00:00.000999Z');
    expect(addMilliseconds('2030-01-01T00:00:00.000001Z', -1)).toBe('2029-12-31T23:59:59.999001Z');
  });

  it('expired means expires_at strictly before now; no expiry never expires', () => {
    expect(isExpired(undefined, '2030-01-01T00:00:00.000000Z')).toBe(false);
    expect(isExpired('2030-01-01T00:00:00.000000Z', '2030-01-01T00:00:00.000000Z')).toBe(false);
    expect(isExpired('2030-01-01T00:00:00.000000Z', '2030-01-01T00:00:00.000001Z')).toBe(true);
  });
});
