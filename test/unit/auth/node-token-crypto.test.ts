import { base64UrlPadded, NodeTokenCrypto } from '../../../src/adapters/auth';

describe('NodeTokenCrypto', () => {
  const crypto = new NodeTokenCrypto();

  it.each([
    ['', '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU='],
    ['abc', 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0='],
    ['Bearer-not-a-token', '3QvkNK0YzdjFvY78n8KmsnXj6e3uaOXIwC8qZXHQH2M='],
  ])('hashes %j to base64url(SHA-256) with padding', (token, expected) => {
    expect(crypto.hashToken(token)).toBe(expected);
  });

  it('encodes with the URL-safe alphabet and keeps the padding', () => {
    const bytes = Buffer.concat([Buffer.from([250, 251, 252, 253, 254, 255]), Buffer.alloc(26)]);
    expect(base64UrlPadded(bytes)).toBe('-vv8_f7_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
  });

  it('generates 44-character URL-safe tokens from 32 random bytes, all different', () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const token = crypto.generateToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}=$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      tokens.add(token);
    }
    expect(tokens.size).toBe(200);
  });

  it('hashes are 44 characters and differ from the token', () => {
    const token = crypto.generateToken();
    const hash = crypto.hashToken(token);
    expect(hash).toHaveLength(44);
    expect(hash).not.toBe(token);
  });
});
