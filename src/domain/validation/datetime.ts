/*
 * Flipt normalises DATETIME constraint values with Go's time package: RFC 3339 input
 * becomes UTC at second precision (`2006-01-02T15:04:05Z`, fraction truncated), a bare date
 * (`2006-01-02`) is kept as a date. Computed on integers because Date maps years 0-99
 * to 1900-1999 and knows nothing of Go's range rules.
 */

// Go's general parser also takes a one-digit hour and a comma before the fraction.
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,]\d+)?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const validDate = (y: number, m: number, d: number): boolean =>
  m >= 1 && m <= 12 && d >= 1 && d <= daysIn(m, y);

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian, day 0 = 1970-01-01).
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

const pad = (n: number, width: number): string =>
  (n < 0 ? '-' : '') + String(Math.abs(n)).padStart(width, '0');

/**
 * The value as Flipt stores it, or undefined when Go's time.Parse would reject it both as
 * RFC 3339 and as a date.
 */
export function normalizeDatetime(value: string): string | undefined {
  const full = RFC3339.exec(value);
  if (full !== null) {
    const [y, mo, d, h, mi, s] = full.slice(1, 7).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    if (!validDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return undefined;
    let offset = 0;
    if (full[7] !== undefined) {
      const oh = Number(full[8]);
      const om = Number(full[9]);
      if (oh > 24 || om > 60) return undefined;
      offset = (full[7] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
    }
    const total = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset;
    const days = Math.floor(total / 86400);
    const secs = total - days * 86400;
    const [yy, mm, dd] = civilFromDays(days);
    return (
      `${pad(yy, 4)}-${pad(mm, 2)}-${pad(dd, 2)}T` +
      `${pad(Math.floor(secs / 3600), 2)}:${pad(Math.floor((secs % 3600) / 60), 2)}:${pad(secs % 60, 2)}Z`
    );
  }
  const date = DATE_ONLY.exec(value);
  if (date !== null && validDate(Number(date[1]), Number(date[2]), Number(date[3]))) return value;
  return undefined;
}
