import { crc32Finish, crc32UpdateBytes, crc32UpdateString, CRC32_INITIAL } from './crc32';

/** Flipt's bucket space for distributions: `crc mod 1000`. */
export const TOTAL_BUCKETS = 1000;

/**
 * Width of a distribution in buckets, as Go computes `int(d.Rollout * percentMultiplier)`
 * with float32 operands: the product is rounded to float32 before truncation (0.7 gives 7,
 * not the 6 a double product would).
 */
export const distributionWidth = (rollout: number): number =>
  Math.trunc(Math.fround(Math.fround(rollout) * 10));

/** Flipt keeps only distributions whose float32 rollout is positive. */
export const isValidRollout = (rollout: number): boolean => Math.fround(rollout) > 0;

/** Cumulative upper bounds of the valid distributions, in order. */
export function distributionBounds(rollouts: readonly number[]): Int32Array {
  const bounds = new Int32Array(rollouts.length);
  let sum = 0;
  rollouts.forEach((r, i) => {
    sum += distributionWidth(r);
    bounds[i] = sum;
  });
  return bounds;
}

/** Index of the first bound above `bucket` (sort.SearchInts for bucket+1); length if none. */
export function findDistribution(bounds: Int32Array, bucket: number): number {
  const n = bounds.length;
  for (let i = 0; i < n; i++) if ((bounds[i] as number) > bucket) return i;
  return n;
}

/** CRC register after the flag key: distribution hashing continues from here. */
export const flagKeyPrefixState = (flagKey: string): number =>
  crc32UpdateString(CRC32_INITIAL, flagKey);

/** `crc32(flagKey + entityId) mod 1000` from the precomputed flag-key state. */
export const variantBucket = (flagKeyState: number, entityId: string): number =>
  crc32Finish(crc32UpdateString(flagKeyState, entityId)) % TOTAL_BUCKETS;

/** `crc32(entityId + flagKey) mod 100`: the entity comes first for thresholds. */
export const thresholdBucket = (entityId: string, flagKeyBytes: Uint8Array): number =>
  crc32Finish(crc32UpdateBytes(crc32UpdateString(CRC32_INITIAL, entityId), flagKeyBytes)) % 100;
