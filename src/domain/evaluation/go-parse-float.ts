/**
 * Go `strconv.ParseFloat(s, 64)`. JS `Number()` accepts whitespace, `Infinity`, `0x10` and
 * rejects `1_000`, `0x1p-2` and `inf`, so the Go grammar is validated here first; decimal
 * values are then converted by `Number()` (correctly rounded, as Go is) and hexadecimal
 * ones exactly with BigInt.
 *
 * Returns `undefined` for any error (syntax or overflow); NaN is a valid result.
 */
export function parseGoFloat(s: string): number | undefined {
  const n = s.length;
  if (n === 0) return undefined;
  const special = parseSpecial(s);
  if (special !== undefined) return special;

  let i = 0;
  let neg = false;
  const first = s.charCodeAt(0);
  if (first === 0x2b || first === 0x2d) {
    neg = first === 0x2d;
    i = 1;
  }
  let hex = false;
  if (i + 2 < n && s.charCodeAt(i) === 0x30 && (s.charCodeAt(i + 1) | 0x20) === 0x78) {
    hex = true;
    i += 2;
  }
  const mantStart = i;
  let underscores = false;
  let sawDot = false;
  let sawDigits = false;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5f) {
      underscores = true;
    } else if (c === 0x2e) {
      if (sawDot) break;
      sawDot = true;
    } else if ((c >= 0x30 && c <= 0x39) || (hex && (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66)) {
      sawDigits = true;
    } else {
      break;
    }
  }
  if (!sawDigits) return undefined;
  const mantEnd = i;

  let expValue = 0;
  let hasExp = false;
  if (i < n && (s.charCodeAt(i) | 0x20) === (hex ? 0x70 : 0x65)) {
    i++;
    if (i >= n) return undefined;
    let esign = 1;
    const c = s.charCodeAt(i);
    if (c === 0x2b) i++;
    else if (c === 0x2d) {
      i++;
      esign = -1;
    }
    if (i >= n || s.charCodeAt(i) < 0x30 || s.charCodeAt(i) > 0x39) return undefined;
    let e = 0;
    for (; i < n; i++) {
      const d = s.charCodeAt(i);
      if (d === 0x5f) {
        underscores = true;
        continue;
      }
      if (d < 0x30 || d > 0x39) break;
      if (e < 10000) e = e * 10 + (d - 0x30);
    }
    expValue = e * esign;
    hasExp = true;
  } else if (hex) {
    return undefined;
  }
  if (i !== n) return undefined;
  if (underscores && !underscoreOK(s)) return undefined;

  const mantissa = underscores
    ? s.slice(mantStart, mantEnd).replace(/_/g, '')
    : s.slice(mantStart, mantEnd);
  let value: number;
  if (hex) {
    value = hexToFloat(mantissa, expValue);
  } else {
    value = Number(hasExp ? `${mantissa}e${expValue}` : mantissa);
  }
  if (value === Infinity) return undefined;
  return neg ? -value : value;
}

/** `inf`, `infinity` (optionally signed) and `nan`, case-insensitively, as Go's special(). */
function parseSpecial(s: string): number | undefined {
  let i = 0;
  let sign = 1;
  const c0 = s.charCodeAt(0) | 0x20;
  if (s[0] === '+' || s[0] === '-') {
    sign = s[0] === '-' ? -1 : 1;
    i = 1;
  } else if (c0 === 0x6e) {
    return s.length === 3 && s.toLowerCase() === 'nan' ? NaN : undefined;
  } else if (c0 !== 0x69) {
    return undefined;
  }
  const rest = s.slice(i).toLowerCase();
  return rest === 'inf' || rest === 'infinity' ? sign * Infinity : undefined;
}

/** Go's underscoreOK: underscores only between digits (or after a base prefix). */
function underscoreOK(str: string): boolean {
  let s = str;
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'box'.includes((s[1] as string).toLowerCase())) {
    i = 2;
    saw = '0';
    hex = (s[1] as string).toLowerCase() === 'x';
  }
  for (; i < s.length; i++) {
    const ch = s[i] as string;
    const lower = ch.toLowerCase();
    if ((ch >= '0' && ch <= '9') || (hex && lower >= 'a' && lower <= 'f')) {
      saw = '0';
      continue;
    }
    if (ch === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** Exact value of hex mantissa digits (with an optional point) times 2^exp, rounded half-even. */
function hexToFloat(mantissa: string, exp: number): number {
  const dot = mantissa.indexOf('.');
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const fracDigits = dot < 0 ? 0 : mantissa.length - dot - 1;
  let m = BigInt('0x' + digits);
  if (m === 0n) return 0;
  let e2 = exp - 4 * fracDigits;
  const bitLen = m.toString(2).length;
  const top = bitLen - 1 + e2;
  if (top > 1023) return Infinity;
  // Precision left for this magnitude: 53 bits when normal, fewer when subnormal.
  const precision = top >= -1022 ? 53 : 53 - (-1022 - top);
  const shift = bitLen - precision;
  if (shift > 0) {
    const big = BigInt(shift);
    const rem = m & ((1n << big) - 1n);
    const half = 1n << (big - 1n);
    m >>= big;
    if (rem > half || (rem === half && (m & 1n) === 1n)) m += 1n;
    e2 += shift;
  }
  return scaleByPowerOfTwo(Number(m), e2);
}

function scaleByPowerOfTwo(x: number, e: number): number {
  // Split the scaling so intermediate powers never overflow or flush to zero early.
  while (e > 1000) {
    x *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    x *= 2 ** -1000;
    e += 1000;
  }
  return x * 2 ** e;
}
