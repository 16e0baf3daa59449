import {
  compactJson,
  goQuote,
  isValidJson,
  normalizeDatetime,
  parseJsonText,
  utf8Length,
} from '../../../src/domain/validation';

describe('goQuote (Go %q)', () => {
  it.each([
    ['plain', '"plain"'],
    ['', '""'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['tab\tnl\ncr\r', '"tab\\tnl\\ncr\\r"'],
    ['\x00\x07\x08\x0b\x0c\x1f\x7f', '"\\x00\\a\\b\\v\\f\\x1f\\x7f"'],
    ['café ünï', '"café ünï"'],
    ['nb\u00a0sp', '"nb\\u00a0sp"'],
    ['zero\u200bwidth', '"zero\\u200bwidth"'],
    ['emoji 😀', '"emoji 😀"'],
    ['lone \ud800', '"lone \ufffd"'],
  ])('quotes %j as %s', (input, expected) => {
    expect(goQuote(input)).toBe(expected);
  });
});

describe('JSON text (Go json.Valid / json.Compact)', () => {
  it.each([
    ['{ "a" : 1 }', '{"a":1}'],
    ['{\n  "b": [1, 2 ,3],\r\n\t"a": {"x": null}\n}', '{"b":[1,2,3],"a":{"x":null}}'],
    ['[1.0, 1e2, -0.5E-3, 0]', '[1.0,1e2,-0.5E-3,0]'],
    ['"caf\\u00e9 \\/ \\n"', '"caf\\u00e9 \\/ \\n"'],
    ['  "keeps inner  spaces"  ', '"keeps inner  spaces"'],
    ['true', 'true'],
    ['{"dup":1,"dup":2}', '{"dup":1,"dup":2}'],
    ['[]', '[]'],
    ['{}', '{}'],
  ])('compacts %j keeping every token', (input, expected) => {
    expect(compactJson(input)).toBe(expected);
    expect(isValidJson(input)).toBe(true);
  });

  it.each([
    '',
    '   ',
    '{a:1}',
    "{'a':1}",
    '[1,]',
    '{"a":1,}',
    '01',
    '1.',
    '.5',
    '+1',
    'NaN',
    'Infinity',
    '{"a":1} x',
    '1 2',
    '"raw\ttab"',
    '"bad \\x escape"',
    '"\\u12"',
    '[',
    ']',
    '{"a"}',
    '{"a":}',
    'tru',
    'nul',
    '\ufeff{}',
  ])('rejects %j', (input) => {
    expect(isValidJson(input)).toBe(false);
    expect(compactJson(input)).toBeUndefined();
  });

  it('accepts nesting up to 10000 levels and refuses deeper, without recursion', () => {
    expect(isValidJson('['.repeat(10000) + ']'.repeat(10000))).toBe(true);
    expect(isValidJson('['.repeat(10001) + ']'.repeat(10001))).toBe(false);
    expect(isValidJson('['.repeat(200000))).toBe(false);
  });

  it('parses a tree with numbers kept as written', () => {
    expect(parseJsonText('{"a":[1.50,"x",null,true]}')).toEqual({
      kind: 'object',
      entries: [
        [
          'a',
          {
            kind: 'array',
            items: [
              { kind: 'number', raw: '1.50' },
              { kind: 'string', value: 'x' },
              { kind: 'null' },
              { kind: 'boolean', value: true },
            ],
          },
        ],
      ],
    });
  });

  it('measures strings in UTF-8 bytes', () => {
    expect(utf8Length('abc')).toBe(3);
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('€')).toBe(3);
    expect(utf8Length('😀')).toBe(4);
    expect(utf8Length('\ud800')).toBe(3);
  });
});

describe('normalizeDatetime (Go time.Parse, RFC 3339 then date)', () => {
  it.each([
    ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00Z'],
    ['2024-05-01T10:00:00.999999Z', '2024-05-01T10:00:00Z'],
    ['2024-05-01T10:00:00,5Z', '2024-05-01T10:00:00Z'],
    ['2024-05-01T10:00:00+02:00', '2024-05-01T08:00:00Z'],
    ['2024-05-01T22:30:00-03:30', '2024-05-02T02:00:00Z'],
    ['2024-01-01T00:30:00+01:00', '2023-12-31T23:30:00Z'],
    ['2024-03-01T00:00:00+24:00', '2024-02-29T00:00:00Z'],
    ['2024-05-01T9:05:07Z', '2024-05-01T09:05:07Z'],
    ['0050-06-15T12:00:00Z', '0050-06-15T12:00:00Z'],
    ['2024-02-29', '2024-02-29'],
    ['0001-01-01', '0001-01-01'],
  ])('normalises %s to %s', (input, expected) => {
    expect(normalizeDatetime(input)).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    '2024-05-01 10:00:00Z',
    '2024-05-01t10:00:00Z',
    '2024-05-01T10:00:00z',
    '2024-05-01T10:00:00',
    '2024-05-01T10:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T10:60:00Z',
    '2024-05-01T10:00:60Z',
    '2024-05-01T10:00:00.Z',
    '2024-05-01T10:00:00+0200',
    '2024-05-01T10:00:00+25:00',
    '2023-02-29',
    '2024-13-01',
    '2024-04-31',
    '2024-5-1',
    '24-05-01',
    '1714557600',
  ])('rejects %j', (input) => {
    expect(normalizeDatetime(input)).toBeUndefined();
  });
});
