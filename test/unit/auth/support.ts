import type { Clock, Stopwatch } from '../../../src/ports';

/** A settable clock: Timestamp text from epoch milliseconds. */
export class FakeClock implements Clock, Stopwatch {
  constructor(public ms = Date.UTC(2030, 0, 1)) {}
  now(): string {
    return new Date(this.ms).toISOString().replace(/Z$/, '000Z');
  }
  nowMs(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export function sequentialIds(prefix = 'a') {
  let n = 0;
  return {
    uuid: () => `00000000-0000-4000-8${prefix}00-${String(++n).padStart(12, '0')}`,
  };
}
