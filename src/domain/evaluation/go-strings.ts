/**
 * Go `strings.TrimSpace` semantics without allocating: JS `trim()` strips U+FEFF and keeps
 * U+0085, Go does the opposite, so the operators that trim use these bounds instead.
 */

/** Go `unicode.IsSpace` for one UTF-16 code unit (no White_Space character is astral). */
export function isGoSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Index of the first character that `strings.TrimSpace` keeps (s.length when none). */
export function trimStart(s: string): number {
  let i = 0;
  while (i < s.length && isGoSpace(s.charCodeAt(i))) i++;
  return i;
}

/** Index just past the last character that `strings.TrimSpace` keeps. */
export function trimEnd(s: string, start: number): number {
  let e = s.length;
  while (e > start && isGoSpace(s.charCodeAt(e - 1))) e--;
  return e;
}

/** `len(strings.TrimSpace(s)) == 0`. */
export function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isGoSpace(s.charCodeAt(i))) return false;
  return true;
}

/** `strings.TrimSpace(s)`, for cold paths. */
export function goTrimSpace(s: string): string {
  const start = trimStart(s);
  return s.slice(start, trimEnd(s, start));
}
