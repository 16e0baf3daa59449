import type { ComparisonType, CreateConstraintRequest } from '../../../src/domain/model';
import * as v from '../../../src/domain/validation';
import { outcome, variant } from './fixtures';

describe('key format', () => {
  it.each(['a', 'A-b_c,9', '---', ',', '0'])('accepts %j', (key) => {
    expect(v.KEY_PATTERN.test(key)).toBe(true);
  });
  it.each(['', 'a b', 'a.b', 'a/b', 'é', 'a\n', 'a:b', 'a\tb'])('refuses %j', (key) => {
    expect(v.KEY_PATTERN.test(key)).toBe(false);
  });
});

describe('attachments', () => {
  it('returns "" for none and the compacted text otherwise', () => {
    expect(v.validateAttachment('')).toBe('');
    expect(v.validateAttachment('{ "b" : 1.0, "a" : [ 1e2 ] }')).toBe('{"b":1.0,"a":[1e2]}');
    expect(v.validateCreateVariant({ ...variant, attachment: ' "x" ' }).attachment).toBe('"x"');
  });

  it('allows exactly 1000 KiB and refuses one byte more, checking validity first', () => {
    const exact = `"${'a'.repeat(1000 * 1024 - 2)}"`;
    expect(outcome(() => v.validateAttachment(exact))).toBe('ok');
    expect(outcome(() => v.validateAttachment(`"${'a'.repeat(1000 * 1024 - 1)}"`))).toBe(
      'invalid field attachment: must be less than 1000 KB',
    );
    expect(outcome(() => v.validateAttachment(`"${'é'.repeat(512 * 1000)}"`))).toBe(
      'invalid field attachment: must be less than 1000 KB',
    );
    expect(outcome(() => v.validateAttachment(`{${'a'.repeat(2000 * 1024)}`))).toBe(
      'invalid field attachment: must be a json string',
    );
  });
});

describe('constraints', () => {
  const base: CreateConstraintRequest = {
    namespaceKey: '',
    segmentKey: 's',
    type: 'STRING_COMPARISON_TYPE',
    property: 'p',
    operator: 'eq',
    value: 'x',
    description: '',
  };
  const c = (extra: Partial<CreateConstraintRequest>) => ({ ...base, ...extra });

  it.each<[string, Partial<CreateConstraintRequest>, string]>([
    ['segmentKey', { segmentKey: '', property: '' }, 'invalid field segmentKey: must not be empty'],
    ['property', { property: '', operator: '' }, 'invalid field property: must not be empty'],
    ['operator', { operator: '' }, 'invalid field operator: must not be empty'],
    [
      'unknown type',
      { type: 'UNKNOWN_COMPARISON_TYPE' },
      'invalid constraint type: "UNKNOWN_COMPARISON_TYPE"',
    ],
    ['string op', { operator: 'LT' }, 'constraint operator "LT" is not valid for type string'],
    [
      'number op',
      { type: 'NUMBER_COMPARISON_TYPE', operator: 'prefix' },
      'constraint operator "prefix" is not valid for type number',
    ],
    [
      'boolean op',
      { type: 'BOOLEAN_COMPARISON_TYPE', operator: 'eq' },
      'constraint operator "eq" is not valid for type boolean',
    ],
    [
      'datetime op',
      { type: 'DATETIME_COMPARISON_TYPE', operator: 'empty' },
      'constraint operator "empty" is not valid for type datetime',
    ],
    [
      'entityId op',
      { type: 'ENTITY_ID_COMPARISON_TYPE', operator: 'prefix' },
      'constraint operator "prefix" is not valid for type entityId',
    ],
    [
      'entityId property',
      { type: 'ENTITY_ID_COMPARISON_TYPE', property: 'user' },
      'property is user instead of "entityId"',
    ],
    [
      'quoted operator',
      { operator: 'a"b' },
      'constraint operator "a\\"b" is not valid for type string',
    ],
    ['empty value', { value: '' }, 'invalid field value: must not be empty'],
    [
      'bad datetime',
      { type: 'DATETIME_COMPARISON_TYPE', value: 'soon' },
      'parsing datetime from "soon"',
    ],
    [
      'datetime list',
      { type: 'DATETIME_COMPARISON_TYPE', operator: 'isoneof', value: '["2024-01-01"]' },
      'parsing datetime from "[\\"2024-01-01\\"]"',
    ],
    [
      'datetime present with bad value',
      { type: 'DATETIME_COMPARISON_TYPE', operator: 'present', value: 'x' },
      'parsing datetime from "x"',
    ],
    [
      'string list of numbers',
      { operator: 'isoneof', value: '[1,2]' },
      'invalid value provided for property "p" of type string',
    ],
    [
      'string list not json',
      { operator: 'isnotoneof', value: 'a,b' },
      'invalid value provided for property "p" of type string',
    ],
    [
      'string list object',
      { operator: 'isoneof', value: '{"a":"b"}' },
      'invalid value provided for property "p" of type string',
    ],
    [
      'number list of strings',
      { type: 'NUMBER_COMPARISON_TYPE', operator: 'isoneof', value: '["1"]' },
      'invalid value provided for property "p" of type number',
    ],
    [
      'number list overflow',
      { type: 'NUMBER_COMPARISON_TYPE', operator: 'isoneof', value: '[1e400]' },
      'invalid value provided for property "p" of type number',
    ],
    [
      'entityId list',
      {
        type: 'ENTITY_ID_COMPARISON_TYPE',
        property: 'entityId',
        operator: 'isoneof',
        value: '[true]',
      },
      'invalid value provided for property "entityId" of type entityId',
    ],
    [
      'too many strings',
      {
        operator: 'isoneof',
        value: JSON.stringify(Array.from({ length: 101 }, (_, i) => `v${i}`)),
      },
      'too many values provided for property "p" of type string (maximum 100)',
    ],
    [
      'too many numbers',
      {
        type: 'NUMBER_COMPARISON_TYPE',
        operator: 'isnotoneof',
        value: JSON.stringify(Array.from({ length: 101 }, (_, i) => i)),
      },
      'too many values provided for property "p" of type number (maximum 100)',
    ],
    [
      'too many ids',
      {
        type: 'ENTITY_ID_COMPARISON_TYPE',
        property: 'entityId',
        operator: 'isoneof',
        value: JSON.stringify(Array.from({ length: 101 }, (_, i) => `u${i}`)),
      },
      'too many values provided for property "entityId" of type entityId (maximum 100)',
    ],
  ])('%s', (_name, extra, expected) => {
    expect(outcome(() => v.validateCreateConstraint(c(extra)))).toBe(expected);
  });

  const allowed: Record<string, string[]> = {
    STRING_COMPARISON_TYPE: [
      'eq',
      'neq',
      'empty',
      'notempty',
      'prefix',
      'suffix',
      'isoneof',
      'isnotoneof',
      'contains',
      'notcontains',
    ],
    NUMBER_COMPARISON_TYPE: [
      'eq',
      'neq',
      'lt',
      'lte',
      'gt',
      'gte',
      'present',
      'notpresent',
      'isoneof',
      'isnotoneof',
    ],
    BOOLEAN_COMPARISON_TYPE: ['true', 'false', 'present', 'notpresent'],
    DATETIME_COMPARISON_TYPE: [
      'eq',
      'neq',
      'lt',
      'lte',
      'gt',
      'gte',
      'present',
      'notpresent',
      'isoneof',
      'isnotoneof',
    ],
    ENTITY_ID_COMPARISON_TYPE: ['eq', 'neq', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
  };
  const every = [...new Set(Object.values(allowed).flat())];

  it.each(Object.keys(allowed))('allows exactly its operators for %s, in any case', (type) => {
    for (const op of every) {
      const req = c({
        type: type as ComparisonType,
        property: 'entityId',
        operator: op.toUpperCase(),
        value: '',
      });
      const result = outcome(() => v.validateCreateConstraint(req));
      if (allowed[type]!.includes(op)) expect(result).not.toMatch(/is not valid for type/);
      else expect(result).toMatch(/is not valid for type/);
    }
  });

  it('lower-cases the operator and clears the value of no-value operators', () => {
    expect(v.validateCreateConstraint(c({ operator: 'EQ' }))).toMatchObject({
      operator: 'eq',
      value: 'x',
    });
    expect(v.validateCreateConstraint(c({ operator: 'NotEmpty', value: 'ignored' }))).toMatchObject(
      { operator: 'notempty', value: '' },
    );
    for (const op of ['true', 'false', 'present', 'notpresent']) {
      expect(
        v.validateCreateConstraint(
          c({ type: 'BOOLEAN_COMPARISON_TYPE', operator: op, value: 'yes' }),
        ).value,
      ).toBe('');
    }
    expect(
      v.validateCreateConstraint(
        c({ type: 'NUMBER_COMPARISON_TYPE', operator: 'present', value: '' }),
      ).value,
    ).toBe('');
  });

  it('normalises datetime values to UTC and keeps dates', () => {
    const dt = (value: string) =>
      v.validateCreateConstraint(c({ type: 'DATETIME_COMPARISON_TYPE', operator: 'gt', value }))
        .value;
    expect(dt('2024-05-01T12:00:00.123+02:00')).toBe('2024-05-01T10:00:00Z');
    expect(dt('2024-05-01')).toBe('2024-05-01');
  });

  it('accepts valid one-of lists, including null items and a null list', () => {
    for (const [type, value] of [
      ['STRING_COMPARISON_TYPE', '["a", "b"]'],
      ['STRING_COMPARISON_TYPE', '[null]'],
      ['STRING_COMPARISON_TYPE', 'null'],
      ['STRING_COMPARISON_TYPE', JSON.stringify(Array.from({ length: 100 }, (_, i) => `v${i}`))],
      ['NUMBER_COMPARISON_TYPE', '[1, 2.5, -3e2]'],
    ] as const) {
      expect(
        outcome(() => v.validateCreateConstraint(c({ type, operator: 'isoneof', value }))),
      ).toBe('ok');
    }
  });

  it('checks the id first on update', () => {
    expect(outcome(() => v.validateUpdateConstraint({ ...c({ segmentKey: '' }), id: '' }))).toBe(
      'invalid field id: must not be empty',
    );
    expect(v.validateUpdateConstraint({ ...c({ operator: 'NEQ' }), id: 'i' })).toMatchObject({
      id: 'i',
      operator: 'neq',
    });
  });

  it('checks id then segmentKey on delete', () => {
    expect(
      outcome(() => v.validateDeleteConstraint({ namespaceKey: '', segmentKey: '', id: '' })),
    ).toBe('invalid field id: must not be empty');
    expect(
      outcome(() => v.validateDeleteConstraint({ namespaceKey: '', segmentKey: '', id: 'i' })),
    ).toBe('invalid field segmentKey: must not be empty');
  });
});

describe('resolveSegments', () => {
  it.each<[string, v.ResolvedSegments['segmentOperator'], string[], v.ResolvedSegments]>([
    [
      's',
      'AND_SEGMENT_OPERATOR',
      [],
      { segmentKeys: ['s'], segmentOperator: 'OR_SEGMENT_OPERATOR' },
    ],
    [
      '',
      'AND_SEGMENT_OPERATOR',
      ['a', 'b', 'a'],
      { segmentKeys: ['a', 'b'], segmentOperator: 'AND_SEGMENT_OPERATOR' },
    ],
    [
      '',
      'AND_SEGMENT_OPERATOR',
      ['a', 'a'],
      { segmentKeys: ['a'], segmentOperator: 'OR_SEGMENT_OPERATOR' },
    ],
    [
      '',
      'OR_SEGMENT_OPERATOR',
      ['b', 'a'],
      { segmentKeys: ['b', 'a'], segmentOperator: 'OR_SEGMENT_OPERATOR' },
    ],
  ])('segmentKey %j with %s and %j', (segmentKey, segmentOperator, segmentKeys, expected) => {
    expect(v.resolveSegments({ segmentKey, segmentKeys, segmentOperator })).toEqual(expected);
  });
});
