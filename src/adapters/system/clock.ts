import type { Clock } from '../../ports';

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** Formats epoch microseconds as 'YYYY-MM-DDTHH:MM:SS.ffffffZ'. */
export function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const d = new Date(ms);
  const frac = micros - Math.floor(micros / 1_000_000) * 1_000_000;
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}` +
    `.${pad(frac, 6)}Z`
  );
}

/** Wall-clock time at microsecond resolution, never going backwards within a process. */
export class SystemClock implements Clock {
  private last = 0;

  now(): string {
    let micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
    if (micros <= this.last) micros = this.last + 1;
    this.last = micros;
    return formatMicros(micros);
  }
}
