import { ValidationError } from '../errors';
import { utf8Length } from './json-text';

/**
 * Sizes Vexil accepts. Flipt validates none of these (only attachments, at 1000 KiB, and
 * one-of lists, at 100 values); its PostgreSQL and MySQL schemas hold keys, names and
 * constraint properties in VARCHAR(255) and descriptions and constraint values in TEXT, which
 * MySQL caps at 65535 bytes. The limits are those columns, so no data set Flipt could store
 * on those databases is refused, and every backend answers alike instead of some failing
 * in the driver. Lists have room far beyond any real configuration.
 */
export const LIMITS = {
  /** Keys of namespaces, flags, segments and variants. */
  keyChars: 255,
  /** Names, and constraint properties. */
  nameChars: 255,
  /** Descriptions and constraint values, in UTF-8 bytes. */
  textBytes: 65535,
  /** Segments one rule or rollout names. */
  segmentsPerRule: 100,
  /** Ids in one order request (rules or rollouts of a flag). */
  idsPerOrder: 10000,
} as const;

/** Code points, as PostgreSQL and MySQL count VARCHAR lengths. */
function codePoints(s: string, atLeast: number): number {
  // A string of at most `atLeast` UTF-16 units cannot have more code points than that.
  if (s.length <= atLeast) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** PostgreSQL cannot hold U+0000 in text; the others could, so every backend refuses it alike. */
function requireNoNul(value: string, field: string): void {
  if (value.includes('\u0000')) {
    throw new ValidationError(field, 'must not contain the NUL character (U+0000)');
  }
}

/** At most `max` characters, none of them NUL. */
export function requireMaxChars(value: string, field: string, max: number): void {
  if (codePoints(value, max) > max) {
    throw new ValidationError(field, `must be at most ${max} characters`);
  }
  requireNoNul(value, field);
}

/** At most `max` bytes of UTF-8, no NUL. */
export function requireMaxBytes(value: string, field: string, max: number): void {
  // UTF-8 takes at most three bytes per UTF-16 unit: short strings need no counting.
  if (value.length * 3 > max && utf8Length(value) > max) {
    throw new ValidationError(field, `must be at most ${max} bytes`);
  }
  requireNoNul(value, field);
}

export function requireMaxItems(items: readonly unknown[], field: string, max: number): void {
  if (items.length > max) throw new ValidationError(field, `must contain at most ${max} items`);
}

export const requireKeyLength = (key: string, field = 'key'): void =>
  requireMaxChars(key, field, LIMITS.keyChars);
export const requireNameLength = (name: string, field = 'name'): void =>
  requireMaxChars(name, field, LIMITS.nameChars);
export const requireTextSize = (text: string, field = 'description'): void =>
  requireMaxBytes(text, field, LIMITS.textBytes);
