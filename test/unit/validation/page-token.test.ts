import {
  decodePageToken,
  encodePageToken,
  pageOf,
  pageWindow,
} from '../../../src/adapters/storage/page-token';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe('page tokens', () => {
  it("encodes Flipt's example token byte for byte", () => {
    expect(encodePageToken({ key: 'flag26', offset: 25 })).toBe(
      'eyJrZXkiOiJmbGFnMjYiLCJvZmZzZXQiOjI1fQ==',
    );
  });

  it('omits empty fields and escapes like Go', () => {
    expect(encodePageToken({ key: '', offset: 3 })).toBe(b64('{"offset":3}'));
    expect(encodePageToken({ key: 'k', offset: 0 })).toBe(b64('{"key":"k"}'));
    expect(encodePageToken({ key: '<&>', offset: 1 })).toBe(
      b64('{"key":"\\u003c\\u0026\\u003e","offset":1}'),
    );
  });

  it.each([
    [b64('{"key":"x","offset":7}'), { key: 'x', offset: 7 }],
    [b64('{}'), { key: '', offset: 0 }],
    [b64('null'), { key: '', offset: 0 }],
    [b64('{"Offset":4,"other":[1]}'), { key: '', offset: 4 }],
    [b64('{"offset":null}'), { key: '', offset: 0 }],
    [`${b64('{"offset":2}').slice(0, 4)}\n${b64('{"offset":2}').slice(4)}`, { key: '', offset: 2 }],
  ])('decodes %j', (token, expected) => {
    expect(decodePageToken(token)).toEqual(expected);
  });

  it.each([
    'not base64!',
    'e30',
    b64('{"offset":12}').replace(/=+$/, ''),
    b64('not json'),
    b64('[]'),
    b64('"str"'),
    b64('{"offset":-1}'),
    b64('{"offset":1.5}'),
    b64('{"offset":1e2}'),
    b64('{"offset":"2"}'),
    b64('{"key":5}'),
  ])("refuses %j with Flipt's message", (token) => {
    expect(() => decodePageToken(token)).toThrow(`pageToken is not valid: "${token}"`);
  });

  it('works out the window: token over offset, offset ignored where the RPC has none', () => {
    const token = b64('{"offset":5}');
    expect(pageWindow({ limit: 2, offset: 1, pageToken: token })).toEqual({ offset: 5, limit: 2 });
    expect(pageWindow({ limit: 2, offset: 1, pageToken: '' })).toEqual({ offset: 1, limit: 2 });
    expect(pageWindow({ limit: 0, offset: 1, pageToken: '' }, { ignoreOffset: true })).toEqual({
      offset: 0,
      limit: 0,
    });
    expect(pageWindow({ limit: -3, offset: -1, pageToken: '' })).toEqual({ offset: 0, limit: 0 });
  });

  it('builds pages from limit + 1 rows or from every remaining row', () => {
    const key = (s: string) => s;
    expect(pageOf(['a', 'b', 'c'], { offset: 4, limit: 2 }, key, 9)).toEqual({
      items: ['a', 'b'],
      nextPageToken: encodePageToken({ key: 'c', offset: 6 }),
      totalCount: 9,
    });
    expect(pageOf(['a', 'b', 'c', 'd'], { offset: 0, limit: 2 }, key, 4).items).toEqual(['a', 'b']);
    expect(pageOf(['a', 'b'], { offset: 0, limit: 2 }, key, 2).nextPageToken).toBe('');
    expect(pageOf(['a', 'b'], { offset: 0, limit: 0 }, key, 2)).toEqual({
      items: ['a', 'b'],
      nextPageToken: '',
      totalCount: 2,
    });
  });
});
