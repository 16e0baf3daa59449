import { crc32 } from '../../../src/domain/evaluation/crc32';
import {
  compileNamespace,
  evaluateBoolean,
  evaluateVariant,
  type CompiledNamespace,
} from '../../../src/domain/evaluation';
import { buildNamespace, entityInBucket, type FlagSpec, type SegmentSpec } from './fixtures';

/** Segments every test namespace here has, and shorthands for evaluating against one. */
export const segments: SegmentSpec[] = [
  { key: 'everyone' },
  { key: 'everyone-any', match: 'ANY' },
  { key: 'pro', constraints: [['STRING', 'plan', 'eq', 'pro']] },
  { key: 'eu', constraints: [['STRING', 'region', 'eq', 'eu']] },
  { key: 'adult', constraints: [['NUMBER', 'age', 'gte', '18']] },
  {
    key: 'pro-eu-all',
    constraints: [
      ['STRING', 'plan', 'eq', 'pro'],
      ['STRING', 'region', 'eq', 'eu'],
    ],
  },
  {
    key: 'pro-or-eu',
    match: 'ANY',
    constraints: [
      ['STRING', 'plan', 'eq', 'pro'],
      ['STRING', 'region', 'eq', 'eu'],
    ],
  },
  { key: 'weird', constraints: [['UNKNOWN', 'plan', 'eq', 'pro']] },
];

export const ns = (...flags: FlagSpec[]): CompiledNamespace =>
  compileNamespace(buildNamespace({ flags, segments }));

/** An entity whose variant bucket for `flagKey` is `bucket`. */
export const variantEntity = (flagKey: string, bucket: number) =>
  entityInBucket(crc32, flagKey, '', 1000, bucket);
/** An entity whose threshold bucket for `flagKey` is `bucket`. */
export const thresholdEntity = (flagKey: string, bucket: number) =>
  entityInBucket(crc32, '', flagKey, 100, bucket);

export const variant = (n: CompiledNamespace, flagKey: string, entityId = 'e', context = {}) =>
  evaluateVariant(n, { flagKey, entityId, context });
export const boolean = (n: CompiledNamespace, flagKey: string, entityId = 'e', context = {}) =>
  evaluateBoolean(n, { flagKey, entityId, context });
