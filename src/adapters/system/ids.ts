import { randomFillSync } from 'node:crypto';
import type { IdGenerator } from '../../ports';

/** Random bytes are drawn from the system in blocks of this many UUIDs. */
const UUIDS_PER_FILL = 256;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * Random (version 4) UUIDs in lower-case hex. Bytes come from the system CSPRNG a block at
 * a time and are written as ASCII into one buffer that is read back as a single string: the
 * id is then one flat string, where node's randomUUID returns one made of twenty pieces
 * that every later use (a header check, a JSON quote, a comparison) first has to join.
 */
export class RandomIdGenerator implements IdGenerator {
  private readonly pool = Buffer.alloc(16 * UUIDS_PER_FILL);
  private offset = this.pool.length;
  private readonly text = Buffer.alloc(36);

  uuid(): string {
    if (this.offset === this.pool.length) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const pool = this.pool;
    const start = this.offset;
    this.offset += 16;
    const text = this.text;
    let at = 0;
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d; // '-'
      let byte = pool[start + i] as number;
      if (i === 6)
        byte = (byte & 0x0f) | 0x40; // version 4
      else if (i === 8) byte = (byte & 0x3f) | 0x80; // RFC 4122 variant
      text[at++] = HEX_DIGITS[byte >> 4] as number;
      text[at++] = HEX_DIGITS[byte & 0x0f] as number;
    }
    return text.toString('latin1', 0, 36);
  }
}
