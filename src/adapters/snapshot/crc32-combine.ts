import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32Finish, crc32UpdateBytes } from '../../domain/evaluation/crc32';

/** CRC-32 (IEEE) of `bytes` continuing from the checksum `crc` of what came before. */
export const crc32Continue: (bytes: Uint8Array, crc: number) => number =
  typeof zlibCrc32 === 'function'
    ? (bytes, crc) => zlibCrc32(bytes, crc)
    : (bytes, crc) => crc32Finish(crc32UpdateBytes(~crc, bytes));

/*
 * Appending n zero bytes to a message changes its CRC register by a linear map over GF(2);
 * that map, as a 32x32 bit matrix, lets the CRC of A+B be computed from crc(A), crc(B) and
 * the length of B, without reading A or B again. Used to checksum a document in which the
 * same large piece appears many times.
 */

const POLYNOMIAL = 0xedb88320;

/** The matrix times a vector: XOR of the columns selected by the vector's bits. */
function times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  let v = vector >>> 0;
  for (let i = 0; v !== 0; i++, v >>>= 1) {
    if (v & 1) sum ^= matrix[i] as number;
  }
  return sum >>> 0;
}

function square(matrix: Uint32Array): Uint32Array {
  const out = new Uint32Array(32);
  for (let i = 0; i < 32; i++) out[i] = times(matrix, matrix[i] as number);
  return out;
}

function product(a: Uint32Array, b: Uint32Array): Uint32Array {
  // (a * b) applied to v is a(b(v)): column i is a applied to b's column i.
  const out = new Uint32Array(32);
  for (let i = 0; i < 32; i++) out[i] = times(a, b[i] as number);
  return out;
}

/** The operator of one zero bit, then squared up to one zero byte. */
const ONE_BYTE = ((): Uint32Array => {
  let m: Uint32Array = new Uint32Array(32);
  m[0] = POLYNOMIAL;
  for (let i = 1; i < 32; i++) m[i] = (1 << (i - 1)) >>> 0;
  for (let i = 0; i < 3; i++) m = square(m);
  return m;
})();

/** The operator of `length` zero bytes; callers cache it per length. */
export function zeroBytesOperator(length: number): Uint32Array {
  let result: Uint32Array | undefined;
  let power = ONE_BYTE;
  for (let n = length; n > 0; n = Math.floor(n / 2)) {
    if (n % 2 === 1) result = result === undefined ? power : product(power, result);
    if (n > 1) power = square(power);
  }
  const identity = new Uint32Array(32);
  for (let i = 0; i < 32; i++) identity[i] = (1 << i) >>> 0;
  return result ?? identity;
}

/** crc(A + B) from crc(A), crc(B) and the operator of B's length. */
export const crc32Combine = (crcA: number, crcB: number, shiftByB: Uint32Array): number =>
  (times(shiftByB, crcA) ^ crcB) >>> 0;
