import {
  decodeJsonMessage,
  decodeQueryMessage,
  HttpError,
  type MessageSchema,
} from '../../../src/adapters/http';

const schema: MessageSchema = {
  key: 'string',
  enabled: 'bool',
  rank: 'int32',
  rollout: 'float',
  namespaceKey: 'string',
  type: { enum: 'flipt.FlagType', values: ['VARIANT_FLAG_TYPE', 'BOOLEAN_FLAG_TYPE'] },
  segmentKeys: 'strings',
  metadata: 'struct',
  context: 'stringMap',
  threshold: { message: { percentage: 'float', value: 'bool' } },
};

const error = (fn: () => unknown): { code: number; message: string; status: number } => {
  try {
    fn();
  } catch (e) {
    if (e instanceof HttpError) return { code: e.code, message: e.message, status: e.httpStatus };
    throw e;
  }
  throw new Error('expected an error');
};

describe('decodeJsonMessage', () => {
  it('fills zero values for absent fields and leaves unset messages out', () => {
    expect(decodeJsonMessage(undefined, schema)).toEqual({
      key: '',
      enabled: false,
      rank: 0,
      rollout: 0,
      namespaceKey: '',
      type: 'VARIANT_FLAG_TYPE',
      segmentKeys: [],
      context: {},
    });
  });

  it('accepts camelCase and snake_case names and ignores unknown fields', () => {
    const out = decodeJsonMessage(
      { namespace_key: 'ns', segmentKeys: ['a'], unknown: { deep: 1 } },
      schema,
    );
    expect(out.namespaceKey).toBe('ns');
    expect(out.segmentKeys).toEqual(['a']);
    expect(out).not.toHaveProperty('unknown');
  });

  it('accepts enums by name or number', () => {
    expect(decodeJsonMessage({ type: 'BOOLEAN_FLAG_TYPE' }, schema).type).toBe('BOOLEAN_FLAG_TYPE');
    expect(decodeJsonMessage({ type: 1 }, schema).type).toBe('BOOLEAN_FLAG_TYPE');
  });

  it('rejects an unknown enum name with the jsonpb message', () => {
    expect(error(() => decodeJsonMessage({ type: 'X' }, schema))).toEqual({
      code: 3,
      status: 400,
      message: 'unknown value "\\"X\\"" for enum flipt.FlagType',
    });
  });

  it('accepts int32 as quoted strings and float32-rounds floats', () => {
    const out = decodeJsonMessage({ rank: '10', rollout: 33.33 }, schema);
    expect(out.rank).toBe(10);
    expect(out.rollout).toBe(Math.fround(33.33));
    expect(decodeJsonMessage({ rollout: '50' }, schema).rollout).toBe(50);
  });

  it.each([
    [{ key: 1 }],
    [{ enabled: 'true' }],
    [{ rank: 1.5 }],
    [{ rank: '1.5' }],
    [{ rank: 2 ** 31 }],
    [{ segmentKeys: 'a' }],
    [{ segmentKeys: [1] }],
    [{ metadata: [] }],
    [{ metadata: 'x' }],
    [{ context: { a: 1 } }],
    [{ threshold: 5 }],
    [{ type: true }],
  ])('rejects wrong JSON types: %p', (body) => {
    expect(error(() => decodeJsonMessage(body, schema))).toEqual({
      code: 3,
      status: 400,
      message: 'invalid values for key(s) in json body',
    });
  });

  it('rejects a body that is not an object', () => {
    expect(error(() => decodeJsonMessage([1], schema)).message).toBe(
      'invalid values for key(s) in json body',
    );
  });

  it('treats null as absent and null map values as ""', () => {
    const out = decodeJsonMessage(
      { key: null, metadata: null, threshold: null, context: { a: null, b: 'x' } },
      schema,
    );
    expect(out.key).toBe('');
    expect(out).not.toHaveProperty('metadata');
    expect(out).not.toHaveProperty('threshold');
    expect(out.context).toEqual({ a: '', b: 'x' });
  });

  it('decodes nested messages with zero values', () => {
    expect(decodeJsonMessage({ threshold: { percentage: 50 } }, schema).threshold).toEqual({
      percentage: 50,
      value: false,
    });
  });
});

describe('decodeQueryMessage', () => {
  const q = (s: string): Record<string, unknown> =>
    decodeQueryMessage(new URLSearchParams(s), schema);

  it('accepts proto and JSON names, repeated params and enum names or numbers', () => {
    const out = q('namespace_key=a&rank=3&enabled=true&segmentKeys=x&segment_keys=y&type=1');
    expect(out).toMatchObject({
      namespaceKey: 'a',
      rank: 3,
      enabled: true,
      segmentKeys: ['x', 'y'],
      type: 'BOOLEAN_FLAG_TYPE',
    });
  });

  it('reports bad values with the query parser texts', () => {
    expect(error(() => q('rank=abc')).message).toBe(
      'strconv.ParseInt: parsing "abc": invalid syntax',
    );
    expect(error(() => q('enabled=yes')).message).toBe(
      'strconv.ParseBool: parsing "yes": invalid syntax',
    );
    expect(error(() => q('type=NOPE')).message).toBe('NOPE is not a valid flipt.FlagType');
    expect(error(() => q('key=a&key=b')).message).toBe('too many values for field "key": a, b');
  });

  it('ignores unknown parameters', () => {
    expect(q('pretty&x=1')).toEqual(q(''));
  });
});
