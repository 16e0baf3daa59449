import { HttpError, parseJsonBody } from '../../../src/adapters/http';

const message = (text: string): string => {
  try {
    parseJsonBody(text);
  } catch (e) {
    if (e instanceof HttpError) return e.message;
    throw e;
  }
  throw new Error('expected an error');
};

describe('parseJsonBody', () => {
  it('treats a blank body as absent', () => {
    expect(parseJsonBody('')).toBeUndefined();
    expect(parseJsonBody(' \n\t')).toBeUndefined();
  });

  it('parses the first JSON value and ignores what follows, like json.Decoder', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1,{"b":"\\u00e9"}]} trailing'))).toEqual({
      a: [1, { b: 'é' }],
    });
    expect(parseJsonBody('  [] ')).toEqual([]);
  });

  it.each([
    ['{', 'unexpected EOF'],
    ['{"a":', 'unexpected EOF'],
    ['{"a":"x', 'unexpected EOF'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a":-x}', "invalid character 'x' in numeric literal"],
    ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
    ['{"a":"\n"}', "invalid character '\\n' in string literal"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
  ])('rejects %p with Go’s message', (text, expected) => {
    expect(message(text)).toBe(expected);
  });

  it('survives deep nesting without recursion', () => {
    const deep = '['.repeat(100000);
    expect(message(deep)).toBe('unexpected EOF');
  });
});
