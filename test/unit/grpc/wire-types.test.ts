import {
  enumValue,
  fromStructMessage,
  fromTimestampMessage,
  toStructMessage,
  toTimestampMessage,
} from '../../../src/adapters/grpc/wire-types';
import { InvalidArgumentError } from '../../../src/domain/errors';

describe('wire timestamps', () => {
  it('splits a microsecond domain timestamp into seconds and nanos without rounding', () => {
    expect(toTimestampMessage('2024-05-01T10:00:00.123456Z')).toEqual({
      seconds: 1714557600,
      nanos: 123456000,
    });
    expect(toTimestampMessage('1970-01-01T00:00:00.000001Z')).toEqual({ seconds: 0, nanos: 1000 });
    expect(toTimestampMessage('2024-05-01T10:00:00Z')).toEqual({ seconds: 1714557600, nanos: 0 });
  });

  it('refuses text that is not a UTC RFC 3339 timestamp', () => {
    expect(() => toTimestampMessage('2024-05-01 10:00:00')).toThrow('malformed timestamp');
  });

  it('reads a wire timestamp into the six-digit domain form', () => {
    expect(fromTimestampMessage({ seconds: 1714557600, nanos: 123456789 })).toBe(
      '2024-05-01T10:00:00.123456Z',
    );
    expect(() => fromTimestampMessage({ seconds: 0, nanos: 2e9 })).toThrow(InvalidArgumentError);
  });
});

describe('google.protobuf.Struct', () => {
  it('round-trips JSON objects', () => {
    const json = { s: 'x', n: 1.5, b: false, z: null, l: [1, 'a', { k: [] }], o: { p: {} } };
    expect(fromStructMessage(toStructMessage(json))).toEqual(json);
  });

  it('drops undefined members as JSON does', () => {
    expect(toStructMessage({ a: undefined, b: 1 })).toEqual({ fields: { b: { numberValue: 1 } } });
  });

  it('reads values without the oneof marker', () => {
    expect(fromStructMessage({ fields: { a: { stringValue: 'x' }, b: {} } })).toEqual({
      a: 'x',
      b: null,
    });
  });
});

describe('enum values', () => {
  it('accepts known names and rejects numbers the server has no name for', () => {
    expect(enumValue('A', ['A', 'B'] as const, 'E')).toBe('A');
    expect(() => enumValue(9, ['A', 'B'] as const, 'E')).toThrow('invalid E value: 9');
  });
});
