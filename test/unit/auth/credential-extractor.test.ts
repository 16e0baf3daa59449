import {
  extractCredential,
  extractCredentialFromMetadata,
  readCookie,
} from '../../../src/adapters/auth';

const TOKEN = 'abcDEF123_-abcDEF123_-abcDEF123_-abcDEF123_=';

describe('extractCredential', () => {
  it.each<[string, string | string[] | undefined, string | undefined, unknown]>([
    ['no header, no cookie', undefined, undefined, { kind: 'missing' }],
    ['a Bearer token', `Bearer ${TOKEN}`, undefined, { kind: 'token', token: TOKEN }],
    [
      'the first of repeated headers',
      [`Bearer ${TOKEN}`, 'Bearer other'],
      undefined,
      { kind: 'token', token: TOKEN },
    ],
    ['lower-case scheme', `bearer ${TOKEN}`, undefined, { kind: 'malformed' }],
    ['upper-case scheme', `BEARER ${TOKEN}`, undefined, { kind: 'malformed' }],
    [
      'Bearer with two spaces keeps the extra space in the token',
      `Bearer  ${TOKEN}`,
      undefined,
      { kind: 'token', token: ` ${TOKEN}` },
    ],
    ['Bearer without a token', 'Bearer ', undefined, { kind: 'malformed' }],
    ['Bearer without a space', 'Bearer', undefined, { kind: 'malformed' }],
    ['another scheme', `Basic ${TOKEN}`, undefined, { kind: 'malformed' }],
    ['a JWT scheme (method not supported)', 'JWT a.b.c', undefined, { kind: 'malformed' }],
    ['a bare token', TOKEN, undefined, { kind: 'malformed' }],
    ['an empty header', '', undefined, { kind: 'malformed' }],
    ['the cookie', undefined, `flipt_client_token=${TOKEN}`, { kind: 'token', token: TOKEN }],
    [
      'the cookie among others',
      undefined,
      `a=1; flipt_client_token=${TOKEN}; b=2`,
      { kind: 'token', token: TOKEN },
    ],
    [
      'a quoted cookie',
      undefined,
      `flipt_client_token="${TOKEN}"`,
      { kind: 'token', token: TOKEN },
    ],
    ['an empty cookie', undefined, 'flipt_client_token=', { kind: 'malformed' }],
    ['other cookies only', undefined, 'flipt_client_state=x; session=y', { kind: 'missing' }],
    [
      'a header wins over the cookie',
      `Bearer ${TOKEN}`,
      'flipt_client_token=other',
      { kind: 'token', token: TOKEN },
    ],
    [
      'a malformed header does not fall back to the cookie',
      `Token ${TOKEN}`,
      `flipt_client_token=${TOKEN}`,
      { kind: 'malformed' },
    ],
  ])('%s', (_name, authorization, cookie, expected) => {
    expect(extractCredential(authorization, cookie)).toEqual(expected);
  });
});

describe('readCookie', () => {
  it('reads a value containing "=" (base64 padding) unchanged', () => {
    expect(readCookie('flipt_client_token=a=b==', 'flipt_client_token')).toBe('a=b==');
  });
  it('does not match a cookie whose name merely ends with the name', () => {
    expect(readCookie('xflipt_client_token=a', 'flipt_client_token')).toBeUndefined();
  });
  it('searches several Cookie headers', () => {
    expect(readCookie(['a=1', 'flipt_client_token=z'], 'flipt_client_token')).toBe('z');
  });
});

describe('extractCredentialFromMetadata', () => {
  const metadata = (entries: Record<string, Array<string | Buffer>>) => ({
    get: (key: string) => entries[key] ?? [],
  });

  it('reads authorization metadata', () => {
    expect(extractCredentialFromMetadata(metadata({ authorization: [`Bearer ${TOKEN}`] }))).toEqual(
      {
        kind: 'token',
        token: TOKEN,
      },
    );
  });
  it('reads a Buffer value', () => {
    expect(
      extractCredentialFromMetadata(metadata({ authorization: [Buffer.from(`Bearer ${TOKEN}`)] })),
    ).toEqual({ kind: 'token', token: TOKEN });
  });
  it('falls back to a cookie in metadata', () => {
    expect(
      extractCredentialFromMetadata(
        metadata({ 'grpcgateway-cookie': [`flipt_client_token=${TOKEN}`] }),
      ),
    ).toEqual({ kind: 'token', token: TOKEN });
  });
  it('reports nothing sent', () => {
    expect(extractCredentialFromMetadata(metadata({}))).toEqual({ kind: 'missing' });
  });
});
