/**
 * Conversions between the API's RFC 3339 UTC values and the browser's datetime-local input,
 * which works in the viewer's local time without a zone.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** `2024-05-01T10:00:00Z` -> `2024-05-01T12:00` for a viewer at UTC+2. */
export function toLocalInput(rfc3339: string): string {
  if (rfc3339 === '') return '';
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(rfc3339) ? `${rfc3339}T00:00:00Z` : rfc3339);
  if (Number.isNaN(date.getTime())) return '';
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

/** `2024-05-01T12:00` (local) -> `2024-05-01T10:00:00Z`; '' when the input is empty or invalid. */
export function fromLocalInput(local: string): string {
  if (local === '') return '';
  const date = new Date(local);
  if (Number.isNaN(date.getTime())) return '';
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** "3 minutes ago", "in 2 days": for timestamps in lists. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const seconds = Math.round((then - now) / 1000);
  const abs = Math.abs(seconds);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 31_536_000],
    ['month', 2_592_000],
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, size] of units) {
    if (abs >= size) return format.format(Math.round(seconds / size), unit);
  }
  return abs < 10 ? 'just now' : format.format(seconds, 'second');
}
