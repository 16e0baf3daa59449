import { NodeTokenCrypto } from '../../../src/adapters/auth';
import { MemoryTokenRepository } from '../../../src/adapters/storage/memory/memory-token-repository';
import { AuthApi, bootstrapToken } from '../../../src/domain/auth';
import type { Logger } from '../../../src/ports';
import { FakeClock, sequentialIds } from './support';

function setup() {
  const lines: string[] = [];
  const log = (m: string, f?: Record<string, unknown>) => void lines.push(JSON.stringify([m, f]));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };
  const deps = {
    repository: new MemoryTokenRepository(),
    crypto: new NodeTokenCrypto(),
    clock: new FakeClock(),
    ids: sequentialIds('b'),
    logger,
  };
  return { deps, lines };
}

describe('bootstrapToken', () => {
  it('creates a random token with Flipt metadata when none exists, and never logs it', async () => {
    const { deps, lines } = setup();
    const result = await bootstrapToken(deps, { metadata: { Owner: 'ops' } });
    if (!result.created) throw new Error('expected a token');
    expect(result.clientToken).toMatch(/^[A-Za-z0-9_-]{43}=$/);
    expect(result.authentication.metadata).toEqual({
      owner: 'ops',
      'io.flipt.auth.token.name': 'initial_bootstrap_token',
      'io.flipt.auth.token.description': 'Initial token created when bootstrapping authentication',
    });
    expect(result.authentication.expiresAt).toBeUndefined();
    expect(lines.join('\n')).toContain('access token created');
    expect(lines.join('\n')).not.toContain(result.clientToken);
  });

  it('uses the configured token and expiration', async () => {
    const { deps } = setup();
    const result = await bootstrapToken(deps, { token: 'my-fixed-token', expirationMs: 3_600_000 });
    if (!result.created) throw new Error('expected a token');
    expect(result.clientToken).toBe('my-fixed-token');
    expect(result.authentication.expiresAt).toBe('2030-01-01T01:00:00.000000Z');
    const stored = await deps.repository.getAuthenticationByHashedToken(
      deps.crypto.hashToken('my-fixed-token'),
    );
    expect(stored?.id).toBe(result.authentication.id);
  });

  it('does nothing when any TOKEN authentication exists, even with another configured token', async () => {
    const { deps } = setup();
    const api = new AuthApi({ ...deps, tokenMethodEnabled: true });
    await api.createToken({ name: 'x', description: '', namespaceKey: '', metadata: {} });
    expect(await bootstrapToken(deps, { token: 'changed' })).toEqual({ created: false });
    expect(await deps.repository.listAuthentications({ offset: 0, limit: 10 })).toHaveLength(1);
  });

  it('creates once when called concurrently', async () => {
    const { deps } = setup();
    const results = await Promise.all([1, 2, 3].map(() => bootstrapToken(deps, {})));
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });
});
