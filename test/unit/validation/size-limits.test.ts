import type { CreateConstraintRequest } from '../../../src/domain/model';
import * as v from '../../../src/domain/validation';
import { outcome } from './fixtures';

const ns = { key: 'n', name: 'N', description: '' };
const flag = {
  namespaceKey: '',
  key: 'f',
  name: 'F',
  description: '',
  enabled: false,
  type: 'VARIANT_FLAG_TYPE' as const,
};
const segment = {
  namespaceKey: '',
  key: 's',
  name: 'S',
  description: '',
  matchType: 'ALL_MATCH_TYPE' as const,
};
const variant = {
  namespaceKey: '',
  flagKey: 'f',
  key: 'v',
  name: '',
  description: '',
  attachment: '',
};
const constraint: CreateConstraintRequest = {
  namespaceKey: '',
  segmentKey: 's',
  type: 'STRING_COMPARISON_TYPE',
  property: 'p',
  operator: 'eq',
  value: 'x',
  description: '',
};
const segs = { segmentKey: '', segmentOperator: 'OR_SEGMENT_OPERATOR' as const };
const rollout = { namespaceKey: '', flagKey: 'f', rank: 1, description: '' };

const chars = (n: number, ch = 'a'): string => ch.repeat(n);
const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `k${i}`);

const KEY = v.LIMITS.keyChars;
const NAME = v.LIMITS.nameChars;
const TEXT = v.LIMITS.textBytes;

describe('size limits: each at its limit passes, one more is a 400 naming the limit', () => {
  const cases: Array<[string, (n: number) => unknown, number, string]> = [
    [
      'namespace key',
      (n) => v.validateCreateNamespace({ ...ns, key: chars(n) }),
      KEY,
      `invalid field key: must be at most ${KEY} characters`,
    ],
    [
      'namespace name',
      (n) => v.validateCreateNamespace({ ...ns, name: chars(n) }),
      NAME,
      `invalid field name: must be at most ${NAME} characters`,
    ],
    [
      'namespace name on update',
      (n) => v.validateUpdateNamespace({ ...ns, name: chars(n) }),
      NAME,
      `invalid field name: must be at most ${NAME} characters`,
    ],
    [
      'namespace description',
      (n) => v.validateCreateNamespace({ ...ns, description: chars(n) }),
      TEXT,
      `invalid field description: must be at most ${TEXT} bytes`,
    ],
    [
      'flag key',
      (n) => v.validateCreateFlag({ ...flag, key: chars(n) }),
      KEY,
      `invalid field key: must be at most ${KEY} characters`,
    ],
    [
      'flag name',
      (n) => v.validateCreateFlag({ ...flag, name: chars(n) }),
      NAME,
      `invalid field name: must be at most ${NAME} characters`,
    ],
    [
      'flag description on update',
      (n) => v.validateUpdateFlag({ ...flag, defaultVariantId: '', description: chars(n) }),
      TEXT,
      `invalid field description: must be at most ${TEXT} bytes`,
    ],
    [
      'segment key',
      (n) => v.validateCreateSegment({ ...segment, key: chars(n) }),
      KEY,
      `invalid field key: must be at most ${KEY} characters`,
    ],
    [
      'segment name on update',
      (n) => v.validateUpdateSegment({ ...segment, name: chars(n) }),
      NAME,
      `invalid field name: must be at most ${NAME} characters`,
    ],
    [
      'segment description',
      (n) => v.validateCreateSegment({ ...segment, description: chars(n) }),
      TEXT,
      `invalid field description: must be at most ${TEXT} bytes`,
    ],
    [
      'variant key',
      (n) => v.validateCreateVariant({ ...variant, key: chars(n) }),
      KEY,
      `invalid field key: must be at most ${KEY} characters`,
    ],
    [
      'variant key on update',
      (n) => v.validateUpdateVariant({ ...variant, id: 'i', key: chars(n) }),
      KEY,
      `invalid field key: must be at most ${KEY} characters`,
    ],
    [
      'variant name',
      (n) => v.validateCreateVariant({ ...variant, name: chars(n) }),
      NAME,
      `invalid field name: must be at most ${NAME} characters`,
    ],
    [
      'variant description',
      (n) => v.validateCreateVariant({ ...variant, description: chars(n) }),
      TEXT,
      `invalid field description: must be at most ${TEXT} bytes`,
    ],
    [
      'constraint property',
      (n) => v.validateCreateConstraint({ ...constraint, property: chars(n) }),
      NAME,
      `invalid field property: must be at most ${NAME} characters`,
    ],
    [
      'constraint value',
      (n) => v.validateCreateConstraint({ ...constraint, value: chars(n) }),
      TEXT,
      `invalid field value: must be at most ${TEXT} bytes`,
    ],
    [
      'constraint value on update',
      (n) => v.validateUpdateConstraint({ ...constraint, id: 'i', value: chars(n) }),
      TEXT,
      `invalid field value: must be at most ${TEXT} bytes`,
    ],
    [
      'constraint description',
      (n) => v.validateCreateConstraint({ ...constraint, description: chars(n) }),
      TEXT,
      `invalid field description: must be at most ${TEXT} bytes`,
    ],
    [
      'rollout description',
      (n) =>
        v.validateCreateRollout({
          ...rollout,
          description: chars(n),
          threshold: { percentage: 1, value: true },
        }),
      TEXT,
      `invalid field description: must be at most ${TEXT} bytes`,
    ],
    [
      'rollout description on update',
      (n) =>
        v.validateUpdateRollout({
          ...rollout,
          id: 'i',
          description: chars(n),
          threshold: { percentage: 1, value: true },
        }),
      TEXT,
      `invalid field description: must be at most ${TEXT} bytes`,
    ],
    [
      'rule segments',
      (n) =>
        v.validateCreateRule({
          namespaceKey: '',
          flagKey: 'f',
          rank: 1,
          ...segs,
          segmentKeys: keys(n),
        }),
      v.LIMITS.segmentsPerRule,
      `invalid field segmentKeys: must contain at most ${v.LIMITS.segmentsPerRule} items`,
    ],
    [
      'rule segments on update',
      (n) =>
        v.validateUpdateRule({
          namespaceKey: '',
          flagKey: 'f',
          id: 'i',
          ...segs,
          segmentKeys: keys(n),
        }),
      v.LIMITS.segmentsPerRule,
      `invalid field segmentKeys: must contain at most ${v.LIMITS.segmentsPerRule} items`,
    ],
    [
      'rollout segments',
      (n) =>
        v.validateCreateRollout({
          ...rollout,
          segment: { ...segs, segmentKeys: keys(n), value: true },
        }),
      v.LIMITS.segmentsPerRule,
      `invalid field segmentKeys: must contain at most ${v.LIMITS.segmentsPerRule} items`,
    ],
    [
      'rule order',
      (n) => v.validateOrderRules({ namespaceKey: '', flagKey: 'f', ruleIds: keys(n) }),
      v.LIMITS.idsPerOrder,
      `invalid field ruleIds: must contain at most ${v.LIMITS.idsPerOrder} items`,
    ],
    [
      'rollout order',
      (n) => v.validateOrderRollouts({ namespaceKey: '', flagKey: 'f', rolloutIds: keys(n) }),
      v.LIMITS.idsPerOrder,
      `invalid field rolloutIds: must contain at most ${v.LIMITS.idsPerOrder} items`,
    ],
  ];

  it.each(cases)('%s', (_name, check, limit, message) => {
    expect(outcome(() => check(limit))).toBe('ok');
    expect(outcome(() => check(limit + 1))).toBe(message);
  });
});

describe('how sizes are counted', () => {
  it('characters are code points, as PostgreSQL and MySQL count VARCHAR(255)', () => {
    const emoji = '\u{1F600}'; // two UTF-16 units, four UTF-8 bytes
    expect(outcome(() => v.validateCreateFlag({ ...flag, name: emoji.repeat(NAME) }))).toBe('ok');
    expect(outcome(() => v.validateCreateFlag({ ...flag, name: emoji.repeat(NAME + 1) }))).toBe(
      `invalid field name: must be at most ${NAME} characters`,
    );
  });

  it('text is counted in UTF-8 bytes, as MySQL counts TEXT', () => {
    const e = 'é'; // two bytes
    expect(
      outcome(() =>
        v.validateCreateSegment({ ...segment, description: e.repeat(Math.floor(TEXT / 2)) }),
      ),
    ).toBe('ok');
    expect(
      outcome(() =>
        v.validateCreateSegment({ ...segment, description: e.repeat(Math.floor(TEXT / 2) + 1) }),
      ),
    ).toBe(`invalid field description: must be at most ${TEXT} bytes`);
  });

  it("Flipt's own checks come first: an empty key is reported as empty, not as long", () => {
    expect(outcome(() => v.validateCreateFlag({ ...flag, key: '', name: chars(NAME + 1) }))).toBe(
      'invalid field key: must not be empty',
    );
    expect(outcome(() => v.validateCreateFlag({ ...flag, key: `${chars(KEY)} ` }))).toBe(
      'invalid field key: contains invalid characters',
    );
  });

  it('no limit is below what Flipt stores in PostgreSQL and MySQL', () => {
    // VARCHAR(255) for keys, names and properties; TEXT (65535 bytes in MySQL) for the rest.
    expect(KEY).toBeGreaterThanOrEqual(255);
    expect(NAME).toBeGreaterThanOrEqual(255);
    expect(TEXT).toBeGreaterThanOrEqual(65535);
  });
});

describe('text a database cannot store', () => {
  it.each([
    ['flag name', () => v.validateCreateFlag({ ...flag, name: 'a\u0000b' }), 'name'],
    [
      'segment description',
      () => v.validateUpdateSegment({ ...segment, description: '\u0000' }),
      'description',
    ],
    ['variant key', () => v.validateCreateVariant({ ...variant, key: 'v\u0000' }), 'key'],
    [
      'constraint value',
      () => v.validateCreateConstraint({ ...constraint, value: 'x\u0000' }),
      'value',
    ],
    [
      'constraint property',
      () => v.validateCreateConstraint({ ...constraint, property: '\u0000' }),
      'property',
    ],
    [
      'rollout description',
      () =>
        v.validateCreateRollout({
          ...rollout,
          description: '\u0000',
          threshold: { percentage: 1, value: true },
        }),
      'description',
    ],
  ])('a NUL character in a %s is refused: PostgreSQL cannot store it', (_name, check, field) => {
    expect(outcome(check)).toBe(
      `invalid field ${field}: must not contain the NUL character (U+0000)`,
    );
  });
});
