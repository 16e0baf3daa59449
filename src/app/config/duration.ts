const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go-style duration ("1h30m", "500ms", "30s", "0") into milliseconds. A bare
 * number is taken as milliseconds. Throws with a readable message otherwise.
 */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let i = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m || m[1] === undefined || m[2] === undefined) {
      throw new Error(`"${text}" is not a duration such as 500ms, 30s, 5m or 1h`);
    }
    total += Number(m[1]) * (UNIT_MS[m[2]] ?? 0);
    i = re.lastIndex;
  }
  if (s === '') throw new Error('empty duration');
  return total;
}

/** Milliseconds as a duration such as parseDuration reads: "15s", "1h30m", "1s500ms". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  // Sub-millisecond parts (from ns or us) are kept as a fraction of a millisecond.
  if (rest > 0) out += `${Number(rest.toFixed(6))}ms`;
  return out;
}
