import type { Timestamp } from '../model';

/*
 * Token expiry arithmetic on the domain Timestamp text. Instants are handled as integer epoch
 * microseconds so that nothing is lost to Date's millisecond resolution.
 */

const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/**
 * Epoch microseconds of an RFC 3339 timestamp (a missing offset means UTC, as the databases store
 * it). Undefined when the text is not a timestamp.
 */
export function toEpochMicros(ts: string): number | undefined {
  const m = PATTERN.exec(ts.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0'));
  }
  const micros = Number(frac.padEnd(6, '0').slice(0, 6));
  return (ms - offsetMinutes * 60_000) * 1000 + micros;
}

/** 'YYYY-MM-DDTHH:MM:SS.ffffffZ' for epoch microseconds. */
export function fromEpochMicros(micros: number): Timestamp {
  const ms = Math.floor(micros / 1000);
  const d = new Date(ms);
  const frac = micros - Math.floor(micros / 1_000_000) * 1_000_000;
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}` +
    `.${pad(frac, 6)}Z`
  );
}

/** The canonical Timestamp text for any accepted form; undefined when it is not a timestamp. */
export function normalizeTimestamp(ts: string): Timestamp | undefined {
  const micros = toEpochMicros(ts);
  return micros === undefined ? undefined : fromEpochMicros(micros);
}

/** `ts` moved by `ms` milliseconds (negative moves back). */
export function addMilliseconds(ts: Timestamp, ms: number): Timestamp {
  const micros = toEpochMicros(ts);
  if (micros === undefined) throw new RangeError(`not a timestamp: ${ts}`);
  return fromEpochMicros(micros + Math.round(ms * 1000));
}

/** True when `expiresAt` is set and earlier than `now` (Flipt: `expires_at < now`). */
export function isExpired(expiresAt: Timestamp | undefined, now: Timestamp): boolean {
  if (expiresAt === undefined) return false;
  const at = toEpochMicros(expiresAt);
  const current = toEpochMicros(now);
  if (at === undefined || current === undefined) return true;
  return at < current;
}
