import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import {
  distributionBounds,
  distributionWidth,
  findDistribution,
  flagKeyPrefixState,
  thresholdBucket,
  variantBucket,
} from '../../../src/domain/evaluation/bucketing';
import { crc32, utf8Encode } from '../../../src/domain/evaluation/crc32';
import { parseGoFloat } from '../../../src/domain/evaluation/go-parse-float';
import { parseGoBool } from '../../../src/domain/evaluation/boolean-constraint';
import { parseDateTime } from '../../../src/domain/evaluation/go-time';
import { goTrimSpace, isBlank } from '../../../src/domain/evaluation/go-strings';
import { parseJsonNumberArray, parseJsonStringArray } from '../../../src/domain/evaluation/go-json';

describe('crc32', () => {
  it.each([
    ['123456789', 3421780262],
    ['test-entitytest-flag', 4255329765],
    ['foo1', 3476655244],
    ['flagéü', 1197177675],
    ['', 0],
  ])('crc32(%j) = %d', (input, expected) => {
    expect(crc32(input)).toBe(expected);
  });

  it('agrees with zlib over the UTF-8 bytes of any string, astral and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        expect(crc32(s)).toBe(zlibCrc32(Buffer.from(s, 'utf8')));
        expect(Buffer.from(utf8Encode(s))).toEqual(Buffer.from(s, 'utf8'));
      }),
      { numRuns: 500 },
    );
  });
});

describe('bucketing', () => {
  it('hashes entity then flag key for thresholds (reference vector: bucket 65)', () => {
    expect(thresholdBucket('test-entity', utf8Encode('test-flag'))).toBe(65);
  });

  it('hashes flag key then entity for distributions (reference vectors 244 and 675)', () => {
    expect(variantBucket(flagKeyPrefixState('foo'), '1')).toBe(244);
    expect(variantBucket(flagKeyPrefixState('flagé'), 'ü')).toBe(675);
  });

  it.each([
    [0.7, 7],
    [2.9999999, 30],
    [33.33, 333],
    [33.34, 333],
    [50, 500],
    [100, 1000],
    [0.05, 0],
    [12.5, 125],
  ])('a %d%% distribution is %d buckets wide (float32 product)', (rollout, width) => {
    expect(distributionWidth(rollout)).toBe(width);
  });

  it('maps a bucket to the first cumulative bound above it', () => {
    const bounds = distributionBounds([50, 50]);
    expect(Array.from(bounds)).toEqual([500, 1000]);
    expect(findDistribution(bounds, 0)).toBe(0);
    expect(findDistribution(bounds, 499)).toBe(0);
    expect(findDistribution(bounds, 500)).toBe(1);
    expect(findDistribution(bounds, 999)).toBe(1);
    const thirds = distributionBounds([33.33, 33.33, 33.34]);
    expect(Array.from(thirds)).toEqual([333, 666, 999]);
    expect(findDistribution(thirds, 999)).toBe(3);
  });
});

describe('Go strconv.ParseFloat', () => {
  it.each<[string, number | undefined]>([
    ['0', 0],
    ['42', 42],
    ['-3.5', -3.5],
    ['+3.5', 3.5],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['1E-2', 0.01],
    ['1e+2', 100],
    ['1_000', 1000],
    ['1_000.000_1', 1000.0001],
    ['1e1_0', 1e10],
    ['0x1p-2', 0.25],
    ['0X1P-2', 0.25],
    ['0x1.8p1', 3],
    ['-0x10p0', -16],
    ['0x_1p0', 1],
    ['0x.8p1', 1],
    ['0x1fffffffffffffp0', 9007199254740991],
    ['0x1p-1074', 5e-324],
    ['0x1p-1075', 0],
    ['0x1.8p-1074', 1e-323],
    ['0x1p1023', 2 ** 1023],
    ['inf', Infinity],
    ['+Inf', Infinity],
    ['-infinity', -Infinity],
    ['INFINITY', Infinity],
    ['1e-400', 0],
    ['00012', 12],
    ['1.7976931348623157e308', 1.7976931348623157e308],
    ['', undefined],
    [' 1', undefined],
    ['1 ', undefined],
    ['1e400', undefined],
    ['-1e400', undefined],
    ['0x1p1024', undefined],
    ['0x10', undefined],
    ['0x', undefined],
    ['0x1p', undefined],
    ['_1', undefined],
    ['1_', undefined],
    ['1__0', undefined],
    ['1_.5', undefined],
    ['1._5', undefined],
    ['1e_5', undefined],
    ['1_e5', undefined],
    ['abc', undefined],
    ['1.2.3', undefined],
    ['.', undefined],
    ['-', undefined],
    ['e5', undefined],
    ['1e', undefined],
    ['Infinity1', undefined],
    ['infin', undefined],
    ['+nan', undefined],
    ['0b101', undefined],
    ['1,5', undefined],
    ['١', undefined],
  ])('ParseFloat(%j) = %p', (input, expected) => {
    expect(parseGoFloat(input)).toBe(expected);
  });

  it.each(['nan', 'NaN', 'NAN'])('%j parses to NaN', (s) => {
    expect(parseGoFloat(s)).toBeNaN();
  });

  it('agrees with Number() on plain decimal literals', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(parseGoFloat(String(x))).toBe(x === 0 ? 0 : x);
      }),
    );
  });
});

describe('Go strconv.ParseBool', () => {
  it.each([
    ['1', 1],
    ['t', 1],
    ['T', 1],
    ['TRUE', 1],
    ['true', 1],
    ['True', 1],
    ['0', 0],
    ['f', 0],
    ['F', 0],
    ['FALSE', 0],
    ['false', 0],
    ['False', 0],
    ['yes', -1],
    ['tRuE', -1],
    [' true', -1],
    ['', -1],
    ['2', -1],
  ])('ParseBool(%j) = %d', (input, expected) => {
    expect(parseGoBool(input)).toBe(expected);
  });
});

describe('Go RFC 3339 / date-only parsing', () => {
  const epoch = (iso: string) => Date.parse(iso) / 1000;
  it.each<[string, number, number]>([
    ['2024-01-02T03:04:05Z', epoch('2024-01-02T03:04:05Z'), 0],
    ['2024-01-02T03:04:05.123456789Z', epoch('2024-01-02T03:04:05Z'), 123456789],
    ['2024-01-02T03:04:05.1234567891234Z', epoch('2024-01-02T03:04:05Z'), 123456789],
    ['2024-01-02T03:04:05.5Z', epoch('2024-01-02T03:04:05Z'), 500000000],
    ['2024-01-02T03:04:05,5Z', epoch('2024-01-02T03:04:05Z'), 500000000],
    ['2024-01-02T03:04:05+02:00', epoch('2024-01-02T01:04:05Z'), 0],
    ['2024-01-02T03:04:05-00:30', epoch('2024-01-02T03:34:05Z'), 0],
    ['2024-01-02T03:04:05+24:00', epoch('2024-01-01T03:04:05Z'), 0],
    ['2024-01-02T5:04:05Z', epoch('2024-01-02T05:04:05Z'), 0],
    ['2024-02-29T00:00:00Z', epoch('2024-02-29T00:00:00Z'), 0],
    ['2024-01-02', epoch('2024-01-02T00:00:00Z'), 0],
    ['0000-01-01T00:00:00Z', -62167219200, 0],
    ['9999-12-31T23:59:59Z', 253402300799, 0],
  ])('%j is %d s + %d ns', (input, seconds, nanos) => {
    expect(parseDateTime(input)).toEqual({ seconds, nanos });
  });

  it.each([
    '',
    '2024-01-02t03:04:05Z',
    '2024-01-02T03:04:05z',
    '2024-01-02 03:04:05Z',
    '2024-01-02T03:04:05',
    '2024-01-02T24:00:00Z',
    '2024-01-02T03:60:00Z',
    '2024-01-02T03:04:60Z',
    '2023-02-29T00:00:00Z',
    '2023-02-29',
    '2024-13-01',
    '2024-1-02',
    '24-01-02',
    '2024-01-02T03:04:05+25:00',
    '2024-01-02T03:04:05+0200',
    '2024-01-02T03:04:05.Z',
    '2024-01-02T03:04Z',
    '2024-01-02Z',
    '2024-01-02T03:04:05Z ',
    'yesterday',
  ])('%j does not parse', (input) => {
    expect(parseDateTime(input)).toBeUndefined();
  });
});

describe('Go strings.TrimSpace', () => {
  it('strips Unicode White_Space but not U+FEFF or U+180E', () => {
    expect(
      goTrimSpace('\t\n\v\f\r \u0085\u00a0x\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000'),
    ).toBe('x');
    expect(goTrimSpace('\ufeffx\ufeff')).toBe('\ufeffx\ufeff');
    expect(goTrimSpace('\u180ex')).toBe('\u180ex');
    expect(isBlank('\u0085 \u3000')).toBe(true);
    expect(isBlank('\ufeff')).toBe(false);
  });
});

describe('Go encoding/json list decoding', () => {
  it.each<[string, string[] | undefined]>([
    ['["a","b"]', ['a', 'b']],
    [' [ "a" ] ', ['a']],
    ['[]', []],
    ['null', []],
    ['["a",null]', ['a', '']],
    ['["\\ud800"]', ['\ufffd']],
    ['["bar",5]', undefined],
    ['"a"', undefined],
    ['{"a":1}', undefined],
    ['[["a"]]', undefined],
    ["['a']", undefined],
    ['["a",]', undefined],
    ['', undefined],
  ])('[]string from %j', (input, expected) => {
    expect(parseJsonStringArray(input)).toEqual(expected);
  });

  it.each<[string, number[] | undefined]>([
    ['[1, 2.5, -3e2]', [1, 2.5, -300]],
    ['[1, null]', [1, 0]],
    ['null', []],
    ['[1e400]', undefined],
    ['["1"]', undefined],
    ['[true]', undefined],
    ['[01]', undefined],
    ['[.5]', undefined],
    ['[NaN]', undefined],
    ['5', undefined],
  ])('[]float64 from %j', (input, expected) => {
    expect(parseJsonNumberArray(input)).toEqual(expected);
  });
});
