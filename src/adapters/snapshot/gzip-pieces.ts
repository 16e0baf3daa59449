import { constants, deflateRaw } from 'node:zlib';
import { promisify } from 'node:util';
import { crc32Combine, crc32Continue, zeroBytesOperator } from './crc32-combine';

const deflate = promisify(deflateRaw);

/*
 * A gzip member made of independently compressed pieces. Each distinct piece is deflated
 * once by a compressor of its own, ending in a sync flush: its blocks end on a byte boundary
 * and refer to nothing before them, so the compressed bytes are valid wherever the piece
 * appears in the stream, and a piece repeated many times is compressed once and sent as the
 * same Buffer. The checksum is combined from the pieces' checksums (crc32-combine.ts).
 * Any gzip reader sees one ordinary member.
 */

export interface GzipPieces {
  readonly pieces: readonly Buffer[];
  readonly byteLength: number;
}

// ID1 ID2, CM = deflate, no flags, no mtime, no extra flags, OS unknown.
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty final block with fixed codes: BFINAL=1, BTYPE=01, end-of-block. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

export async function gzipPieces(pieces: readonly Buffer[]): Promise<GzipPieces> {
  const uses = new Map<Buffer, number>();
  for (const piece of pieces) {
    if (piece.length > 0) uses.set(piece, (uses.get(piece) ?? 0) + 1);
  }
  const deflated = new Map<Buffer, Buffer>();
  await Promise.all(
    [...uses.keys()].map(async (piece) => {
      deflated.set(piece, await deflate(piece, { finishFlush: constants.Z_SYNC_FLUSH }));
    }),
  );
  // A piece used once is checksummed in passing; a repeated one once, then combined.
  const repeated = new Map<Buffer, { crc: number; shift: Uint32Array }>();
  const shifts = new Map<number, Uint32Array>();
  const out: Buffer[] = [HEADER];
  let byteLength = HEADER.length;
  let crc = 0;
  let size = 0;
  for (const piece of pieces) {
    const body = deflated.get(piece);
    if (body === undefined) continue;
    out.push(body);
    byteLength += body.length;
    size += piece.length;
    if ((uses.get(piece) ?? 0) < 2) {
      crc = crc32Continue(piece, crc);
      continue;
    }
    let known = repeated.get(piece);
    if (known === undefined) {
      let shift = shifts.get(piece.length);
      if (shift === undefined) {
        shift = zeroBytesOperator(piece.length);
        shifts.set(piece.length, shift);
      }
      known = { crc: crc32Continue(piece, 0), shift };
      repeated.set(piece, known);
    }
    crc = crc32Combine(crc, known.crc, known.shift);
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  out.push(FINAL_BLOCK, trailer);
  byteLength += FINAL_BLOCK.length + trailer.length;
  return { pieces: out, byteLength };
}
