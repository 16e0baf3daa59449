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
  /** 'YYYY-MM-DDTHH:MM:SS.' of the second `second` (epoch seconds): most calls share it. */
  private second = Number.NaN;
  private secondText = '';

  now(): string {
    let micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
    if (micros <= this.last) micros = this.last + 1;
    this.last = micros;
    const second = Math.floor(micros / 1_000_000);
    if (second !== this.second) {
      this.second = second;
      this.secondText = formatMicros(second * 1_000_000).slice(0, 20);
    }
    const frac = String(micros - second * 1_000_000);
    return `${this.secondText}${ZEROS.slice(frac.length)}${frac}Z`;
  }
}

const ZEROS = '000000';
