import {
  describeConstraint,
  formatListValue,
  isDateTime,
  operatorForType,
  OPERATORS,
  parseListValue,
  validateConstraint,
  valueInput,
} from '../src/lib/constraints';

describe('constraint operators', () => {
  it('offers for each type exactly the operators the API accepts (datetime lists aside)', () => {
    const ops = (t: keyof typeof OPERATORS) => OPERATORS[t].map((o) => o.value).sort();
    expect(ops('STRING_COMPARISON_TYPE')).toEqual(
      [
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
      ].sort(),
    );
    expect(ops('NUMBER_COMPARISON_TYPE')).toEqual(
      [
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
      ].sort(),
    );
    expect(ops('BOOLEAN_COMPARISON_TYPE')).toEqual(['false', 'notpresent', 'present', 'true']);
    expect(ops('DATETIME_COMPARISON_TYPE')).toEqual(
      ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent'].sort(),
    );
    expect(ops('ENTITY_ID_COMPARISON_TYPE')).toEqual(
      ['eq', 'neq', 'isoneof', 'isnotoneof', 'contains', 'notcontains'].sort(),
    );
  });

  it('keeps the operator across a type change when still valid, else takes the first', () => {
    expect(operatorForType('NUMBER_COMPARISON_TYPE', 'neq')).toBe('neq');
    expect(operatorForType('BOOLEAN_COMPARISON_TYPE', 'neq')).toBe('true');
    expect(operatorForType('STRING_COMPARISON_TYPE', 'gt')).toBe('eq');
  });

  it('picks an input suited to the type and operator', () => {
    expect(valueInput('DATETIME_COMPARISON_TYPE', 'gt')).toBe('datetime');
    expect(valueInput('STRING_COMPARISON_TYPE', 'isoneof')).toBe('list');
    expect(valueInput('NUMBER_COMPARISON_TYPE', 'lt')).toBe('number');
    expect(valueInput('BOOLEAN_COMPARISON_TYPE', 'true')).toBe('none');
    expect(valueInput('STRING_COMPARISON_TYPE', 'empty')).toBe('none');
  });
});

describe('list values', () => {
  it('reads a JSON array and formats numbers as numbers', () => {
    expect(parseListValue('["a","b"]')).toEqual(['a', 'b']);
    expect(parseListValue('[1, 2.5]')).toEqual(['1', '2.5']);
    expect(parseListValue('a, b ,c')).toEqual(['a', 'b', 'c']);
    expect(parseListValue('')).toEqual([]);
    expect(formatListValue('NUMBER_COMPARISON_TYPE', ['1', '2.5'])).toBe('[1,2.5]');
    expect(formatListValue('STRING_COMPARISON_TYPE', ['1', 'x'])).toBe('["1","x"]');
  });
});

describe('validateConstraint', () => {
  const base = {
    type: 'STRING_COMPARISON_TYPE' as const,
    property: 'plan',
    operator: 'eq',
    value: 'pro',
  };

  it('accepts a complete constraint', () => {
    expect(validateConstraint(base)).toEqual({});
  });

  it('asks for a value unless the operator takes none', () => {
    expect(validateConstraint({ ...base, value: ' ' }).value).toBe('Enter a value.');
    expect(validateConstraint({ ...base, operator: 'empty', value: '' })).toEqual({});
  });

  it('requires the property entityId for entity id constraints', () => {
    expect(
      validateConstraint({ ...base, type: 'ENTITY_ID_COMPARISON_TYPE', property: 'user' }).property,
    ).toMatch(/entityId/);
  });

  it('refuses an operator of another type', () => {
    expect(
      validateConstraint({ ...base, type: 'BOOLEAN_COMPARISON_TYPE', operator: 'eq' }).operator,
    ).toBeDefined();
  });

  it('checks numbers, number lists and the 100-item limit', () => {
    const n = { ...base, type: 'NUMBER_COMPARISON_TYPE' as const };
    expect(validateConstraint({ ...n, value: 'ten' }).value).toBe('Enter a number.');
    expect(validateConstraint({ ...n, operator: 'isoneof', value: '[1,"x"]' }).value).toMatch(
      /number/,
    );
    const many = JSON.stringify(Array.from({ length: 101 }, (_, i) => String(i)));
    expect(validateConstraint({ ...base, operator: 'isoneof', value: many }).value).toMatch(/100/);
  });

  it('accepts RFC 3339 and plain dates for datetimes, and nothing else', () => {
    const d = { ...base, type: 'DATETIME_COMPARISON_TYPE' as const, operator: 'gt' };
    expect(validateConstraint({ ...d, value: '2024-05-01T10:00:00Z' })).toEqual({});
    expect(validateConstraint({ ...d, value: '2024-05-01' })).toEqual({});
    expect(validateConstraint({ ...d, value: 'tomorrow' }).value).toBeDefined();
    expect(isDateTime('2024-05-01T10:00:00+02:00')).toBe(true);
    expect(isDateTime('2024-05-01 10:00')).toBe(false);
  });
});

describe('describeConstraint', () => {
  it('reads as a short sentence', () => {
    expect(
      describeConstraint({
        type: 'NUMBER_COMPARISON_TYPE',
        property: 'age',
        operator: 'gte',
        value: '18',
      }),
    ).toBe('age >= 18');
    expect(
      describeConstraint({
        type: 'STRING_COMPARISON_TYPE',
        property: 'country',
        operator: 'isoneof',
        value: '["fr","de"]',
      }),
    ).toBe('country is one of fr, de');
    expect(
      describeConstraint({
        type: 'BOOLEAN_COMPARISON_TYPE',
        property: 'beta',
        operator: 'true',
        value: '',
      }),
    ).toBe('beta is true');
  });
});
