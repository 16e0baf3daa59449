import { gunzipSync, crc32 } from 'node:zlib';
import fc from 'fast-check';
import { jsonPieces, MIN_SHARED_BYTES } from '../../../src/adapters/snapshot/json-pieces';
import { gzipPieces } from '../../../src/adapters/snapshot/gzip-pieces';
import {
  crc32Combine,
  crc32Continue,
  zeroBytesOperator,
} from '../../../src/adapters/snapshot/crc32-combine';

const text = (pieces: readonly Buffer[]): string => Buffer.concat(pieces).toString('utf8');

/** A document in which some objects are referenced from several places. */
const sharedDocument = fc
  .tuple(
    fc.array(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }), {
      minLength: 1,
      maxLength: 4,
    }),
    fc.array(fc.nat(), { maxLength: 12 }),
    fc.nat({ max: 3000 }),
  )
  .map(([shared, refs, pad]) => {
    const objects = shared.map((o, i) => ({ ...o, pad: 'x'.repeat(i === 0 ? pad : 0) }));
    return {
      rules: refs.map((r, i) => ({ id: i, segments: [objects[r % objects.length]], rank: i + 1 })),
      first: objects[0],
    };
  });

describe('jsonPieces', () => {
  it('writes exactly what JSON.stringify writes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const out = jsonPieces(v);
        expect(text(out.pieces)).toBe(JSON.stringify(v));
        expect(out.byteLength).toBe(Buffer.byteLength(JSON.stringify(v)));
      }),
    );
  });

  it('writes shared objects identically, whatever their size', () => {
    fc.assert(
      fc.property(sharedDocument, (doc) => {
        const out = jsonPieces(doc);
        expect(text(out.pieces)).toBe(JSON.stringify(doc));
        expect(out.byteLength).toBe(Buffer.byteLength(JSON.stringify(doc)));
      }),
    );
  });

  it('drops undefined fields, writes null for holes, and follows toJSON, as JSON.stringify', () => {
    const date = new Date(0);
    const v = { a: undefined, b: [undefined, () => 1, 2], c: date, d: 'é\u2028"' };
    expect(text(jsonPieces(v).pieces)).toBe(JSON.stringify(v));
  });

  it('holds a large object referenced many times once, as one Buffer', () => {
    const segment = { key: 'big', constraints: [{ value: 'v'.repeat(100_000) }] };
    const doc = {
      flags: [{ rules: Array.from({ length: 35 }, (_, i) => ({ id: i, segments: [segment] })) }],
    };
    const out = jsonPieces(doc);
    const big = out.pieces.filter((p) => p.length > 100_000);
    expect(big).toHaveLength(35);
    expect(new Set(big).size).toBe(1);
    expect(out.byteLength).toBeGreaterThan(35 * 100_000);
    expect(out.heldBytes).toBeLessThan(110_000);
  });

  it('writes small shared objects inline', () => {
    const small = { key: 's' };
    const out = jsonPieces({ a: small, b: small, c: 'x'.repeat(MIN_SHARED_BYTES) });
    expect(out.pieces).toHaveLength(1);
  });
});

describe('crc32Combine', () => {
  it('gives the checksum of the concatenation', () => {
    fc.assert(
      fc.property(fc.uint8Array(), fc.uint8Array({ maxLength: 5000 }), (a, b) => {
        const whole = crc32(Buffer.concat([a, b]));
        expect(crc32Combine(crc32(a), crc32(b), zeroBytesOperator(b.length))).toBe(whole);
        expect(crc32Continue(b, crc32(a))).toBe(whole);
      }),
    );
  });
});

describe('gzipPieces', () => {
  it('is one gzip member that any reader decodes to the pieces, repeated ones included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 3000 }), { minLength: 0, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        async (distinct, order) => {
          const buffers = distinct.map((d) => Buffer.from(d));
          const pieces =
            buffers.length === 0 ? [] : order.map((i) => buffers[i % buffers.length] as Buffer);
          const gz = await gzipPieces(pieces);
          const bytes = Buffer.concat(gz.pieces as Buffer[]);
          expect(bytes.length).toBe(gz.byteLength);
          expect(gunzipSync(bytes).equals(Buffer.concat(pieces))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('compresses a repeated piece once and sends the same bytes each time', async () => {
    const piece = Buffer.from('{"key":"seg","value":"' + 'ab'.repeat(200_000) + '"}');
    const glue = Buffer.from(',');
    const gz = await gzipPieces([piece, glue, piece, glue, piece]);
    const big = gz.pieces.filter((p) => p.length > 100);
    expect(new Set(big).size).toBe(1);
    expect(gunzipSync(Buffer.concat(gz.pieces as Buffer[])).length).toBe(piece.length * 3 + 2);
  });
});
