/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) over the UTF-8 encoding of JS
 * strings, computed without materialising the bytes: Flipt hashes `[]byte(string)`, and
 * encoding on the fly keeps the hot path allocation-free.
 */

const TABLE: Int32Array = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

// Slice-by-4 tables: TABLE_k[n] is the register after n is followed by k zero bytes.
const nextTable = (prev: Int32Array): Int32Array =>
  prev.map((v) => (TABLE[v & 0xff] as number) ^ (v >>> 8));
const TABLE1 = nextTable(TABLE);
const TABLE2 = nextTable(TABLE1);
const TABLE3 = nextTable(TABLE2);

/** The register value before any byte is processed. */
export const CRC32_INITIAL = -1;

/** Feeds one byte into a running (non-finalised) CRC register. */
const step = (crc: number, byte: number): number =>
  (TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);

/**
 * Continues a running CRC over the UTF-8 bytes of `s`. Lone surrogates are encoded as
 * U+FFFD, which is what a JSON decoder in Go (and TextEncoder) produces for them.
 */
export function crc32UpdateString(crc: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      // Entity ids are mostly ASCII: take four characters at a time when they all are.
      if (i + 3 < n) {
        const c1 = s.charCodeAt(i + 1);
        const c2 = s.charCodeAt(i + 2);
        const c3 = s.charCodeAt(i + 3);
        if ((c1 | c2 | c3) < 0x80) {
          crc ^= c | (c1 << 8) | (c2 << 16) | (c3 << 24);
          crc =
            (TABLE3[crc & 0xff] as number) ^
            (TABLE2[(crc >>> 8) & 0xff] as number) ^
            (TABLE1[(crc >>> 16) & 0xff] as number) ^
            (TABLE[crc >>> 24] as number);
          i += 3;
          continue;
        }
      }
      crc = (TABLE[(crc ^ c) & 0xff] as number) ^ (crc >>> 8);
      continue;
    }
    if (c < 0x800) {
      crc = step(crc, 0xc0 | (c >> 6));
      crc = step(crc, 0x80 | (c & 0x3f));
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = ((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
        i++;
        crc = step(crc, 0xf0 | (cp >> 18));
        crc = step(crc, 0x80 | ((cp >> 12) & 0x3f));
        crc = step(crc, 0x80 | ((cp >> 6) & 0x3f));
        crc = step(crc, 0x80 | (cp & 0x3f));
        continue;
      }
      c = 0xfffd;
    }
    crc = step(crc, 0xe0 | (c >> 12));
    crc = step(crc, 0x80 | ((c >> 6) & 0x3f));
    crc = step(crc, 0x80 | (c & 0x3f));
  }
  return crc;
}

/** Continues a running CRC over raw bytes. */
export function crc32UpdateBytes(crc: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) {
    crc = (TABLE[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  }
  return crc;
}

/** Turns a running register into the unsigned checksum. */
export const crc32Finish = (crc: number): number => ~crc >>> 0;

/** CRC-32 IEEE of the UTF-8 encoding of `s`, unsigned. */
export const crc32 = (s: string): number => crc32Finish(crc32UpdateString(CRC32_INITIAL, s));

/** UTF-8 encoding with the same lone-surrogate rule as crc32UpdateString. */
export function utf8Encode(s: string): Uint8Array {
  const out: number[] = [];
  const n = s.length;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out.push(c);
    } else if (c < 0x800) {
      out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const cp = ((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
          i++;
          out.push(
            0xf0 | (cp >> 18),
            0x80 | ((cp >> 12) & 0x3f),
            0x80 | ((cp >> 6) & 0x3f),
            0x80 | (cp & 0x3f),
          );
          continue;
        }
        c = 0xfffd;
      }
      out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    }
  }
  return Uint8Array.from(out);
}
