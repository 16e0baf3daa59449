/*
 * Go's strconv.Quote (the `%q` verb), because Flipt's messages quote user input with it:
 * a client comparing messages byte for byte sees the same escapes as from Flipt.
 */

// unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

const SHORT_ESCAPES: { readonly [cp: number]: string } = {
  0x07: '\\a',
  0x08: '\\b',
  0x09: '\\t',
  0x0a: '\\n',
  0x0b: '\\v',
  0x0c: '\\f',
  0x0d: '\\r',
  0x22: '\\"',
  0x5c: '\\\\',
};

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    let cp = ch.codePointAt(0) ?? 0;
    // A lone surrogate cannot come from valid UTF-8; Go would have decoded it as U+FFFD.
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    const short = SHORT_ESCAPES[cp];
    if (short !== undefined) {
      out += short;
    } else if (cp >= 0x20 && cp < 0x7f) {
      out += String.fromCodePoint(cp);
    } else if (cp >= 0x80 && PRINTABLE.test(String.fromCodePoint(cp))) {
      out += String.fromCodePoint(cp);
    } else if (cp < 0x80) {
      out += `\\x${hex(cp, 2)}`;
    } else if (cp < 0x10000) {
      out += `\\u${hex(cp, 4)}`;
    } else {
      out += `\\U${hex(cp, 8)}`;
    }
  }
  return out + '"';
}
