/**
 * Go `time.Parse(time.RFC3339, s)` with the `2006-01-02` fallback Flipt applies, at
 * nanosecond precision (JS Date keeps milliseconds only). An instant is a pair of whole
 * seconds since the Unix epoch (a safe integer for years 0-9999) and nanoseconds 0..1e9-1.
 */

export interface Instant {
  readonly seconds: number;
  readonly nanos: number;
}

// The hot path parses into these two slots rather than allocating an Instant per call.
let parsedSeconds = 0;
let parsedNanos = 0;

/** Seconds of the last successful parseDateTimeInto call. */
export const lastSeconds = (): number => parsedSeconds;
/** Nanoseconds of the last successful parseDateTimeInto call. */
export const lastNanos = (): number => parsedNanos;

const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Inverse of daysFromCivil. */
export function civilFromDays(z0: number): [number, number, number] {
  const z = z0 + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

const digitAt = (s: string, i: number): number => {
  const c = s.charCodeAt(i) - 0x30;
  return c >= 0 && c <= 9 ? c : -1;
};

/** Fixed-width unsigned decimal at [i, i+len), or -1. */
function fixed(s: string, i: number, len: number): number {
  if (i + len > s.length) return -1;
  let x = 0;
  for (let k = 0; k < len; k++) {
    const d = digitAt(s, i + k);
    if (d < 0) return -1;
    x = x * 10 + d;
  }
  return x;
}

function setInstant(
  year: number,
  month: number,
  day: number,
  hour: number,
  min: number,
  sec: number,
  nanos: number,
  offsetSeconds: number,
): true {
  parsedSeconds =
    daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - offsetSeconds;
  parsedNanos = nanos;
  return true;
}

/** Nanoseconds from the digits at [from, to): at most 9 used, the rest truncated. */
function fraction(s: string, from: number, to: number): number {
  let ns = 0;
  const end = Math.min(to, from + 9);
  for (let k = from; k < end; k++) ns = ns * 10 + (s.charCodeAt(k) - 0x30);
  for (let k = end - from; k < 9; k++) ns *= 10;
  return ns;
}

/**
 * Parses like Flipt's tryParseDateTime: RFC 3339 (Go's strict fast path, then its
 * tolerant general parser), else `YYYY-MM-DD` at midnight UTC. On success the instant is
 * readable through lastSeconds()/lastNanos().
 */
export function parseDateTimeInto(s: string): boolean {
  return parseRfc3339Fast(s) || parseRfc3339General(s) || parseDateOnly(s);
}

/** Allocating convenience wrapper for cold paths. */
export function parseDateTime(s: string): Instant | undefined {
  return parseDateTimeInto(s) ? { seconds: parsedSeconds, nanos: parsedNanos } : undefined;
}

function parseRfc3339Fast(s: string): boolean {
  if (s.length < 19) return false;
  const year = fixed(s, 0, 4);
  const month = fixed(s, 5, 2);
  const day = fixed(s, 8, 2);
  const hour = fixed(s, 11, 2);
  const min = fixed(s, 14, 2);
  const sec = fixed(s, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return false;
  if (hour < 0 || hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 59) return false;
  if (s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':') return false;
  let i = 19;
  let nanos = 0;
  if (s.length - i >= 2 && s[i] === '.' && digitAt(s, i + 1) >= 0) {
    let n = i + 2;
    while (n < s.length && digitAt(s, n) >= 0) n++;
    nanos = fraction(s, i + 1, n);
    i = n;
  }
  const rest = s.length - i;
  if (rest === 1 && s[i] === 'Z') return setInstant(year, month, day, hour, min, sec, nanos, 0);
  if (rest !== 6) return false;
  const hr = fixed(s, i + 1, 2);
  const mm = fixed(s, i + 4, 2);
  if (hr < 0 || hr > 23 || mm < 0 || mm > 59) return false;
  const sign = s[i];
  if ((sign !== '-' && sign !== '+') || s[i + 3] !== ':') return false;
  const offset = (hr * 60 + mm) * 60 * (sign === '-' ? -1 : 1);
  return setInstant(year, month, day, hour, min, sec, nanos, offset);
}

/** Go's layout-driven parser for "2006-01-02T15:04:05Z07:00". */
function parseRfc3339General(s: string): boolean {
  if (s.length < 4 || digitAt(s, 0) < 0) return false;
  const year = fixed(s, 0, 4);
  if (year < 0) return false;
  let i = 4;
  if (s[i++] !== '-') return false;
  const month = fixed(s, i, 2);
  if (month < 0) return false;
  i += 2;
  if (month < 1 || month > 12) return false;
  if (s[i++] !== '-') return false;
  const day = fixed(s, i, 2);
  if (day < 0) return false;
  i += 2;
  if (s[i++] !== 'T') return false;
  // stdHour: one or two digits.
  const h1 = digitAt(s, i);
  if (h1 < 0) return false;
  let hour = h1;
  i++;
  const h2 = digitAt(s, i);
  if (h2 >= 0) {
    hour = h1 * 10 + h2;
    i++;
  }
  if (hour >= 24) return false;
  if (s[i++] !== ':') return false;
  const min = fixed(s, i, 2);
  if (min < 0 || min >= 60) return false;
  i += 2;
  if (s[i++] !== ':') return false;
  const sec = fixed(s, i, 2);
  if (sec < 0 || sec >= 60) return false;
  i += 2;
  let nanos = 0;
  if (i + 1 < s.length && (s[i] === '.' || s[i] === ',') && digitAt(s, i + 1) >= 0) {
    let n = i + 2;
    while (n < s.length && digitAt(s, n) >= 0) n++;
    nanos = fraction(s, i + 1, n);
    i = n;
  }
  let offset = 0;
  if (i < s.length && s[i] === 'Z') {
    i++;
  } else {
    if (s.length - i < 6 || s[i + 3] !== ':') return false;
    const sign = s[i];
    const hr = fixed(s, i + 1, 2);
    const mm = fixed(s, i + 4, 2);
    if (hr < 0 || mm < 0 || hr > 24 || mm > 60) return false;
    if (sign !== '+' && sign !== '-') return false;
    offset = (hr * 60 + mm) * 60 * (sign === '-' ? -1 : 1);
    i += 6;
  }
  if (i !== s.length) return false;
  if (day < 1 || day > daysIn(month, year)) return false;
  return setInstant(year, month, day, hour, min, sec, nanos, offset);
}

function parseDateOnly(s: string): boolean {
  if (s.length !== 10 || s[4] !== '-' || s[7] !== '-') return false;
  const year = fixed(s, 0, 4);
  const month = fixed(s, 5, 2);
  const day = fixed(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return false;
  return setInstant(year, month, day, 0, 0, 0, 0, 0);
}

/** Orders two instants: negative, zero or positive. */
export const compareInstants = (aSec: number, aNs: number, bSec: number, bNs: number): number =>
  aSec !== bSec ? aSec - bSec : aNs - bNs;
