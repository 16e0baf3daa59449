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

export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
