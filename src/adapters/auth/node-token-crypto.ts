import { createHash, randomBytes } from 'node:crypto';
import type { TokenCrypto } from '../../ports';

/** Go's base64.URLEncoding: URL-safe alphabet, with '=' padding. */
export function base64UrlPadded(bytes: Buffer): string {
  return bytes.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Client tokens as Flipt makes them: 32 random bytes, hashed with SHA-256 for storage. */
export class NodeTokenCrypto implements TokenCrypto {
  generateToken(): string {
    return base64UrlPadded(randomBytes(32));
  }

  hashToken(token: string): string {
    // A 32-byte digest is 43 base64 characters plus one '=' of padding.
    return createHash('sha256').update(token, 'utf8').digest('base64url') + '=';
  }
}
