import { Authenticator, NodeTokenCrypto } from '../../../src/adapters/auth';
import { MemoryTokenRepository } from '../../../src/adapters/storage/memory/memory-token-repository';
import { AuthApi } from '../../../src/domain/auth';
import { UnauthenticatedError } from '../../../src/domain/errors';
import type { TokenRepository } from '../../../src/ports';
import { FakeClock, sequentialIds } from './support';

/** Counts the lookups that reach storage. */
function counting(inner: TokenRepository) {
  const counter = { lookups: 0, fail: false };
  const repo: TokenRepository = Object.create(inner) as TokenRepository;
  repo.getAuthenticationByHashedToken = async (hash) => {
    counter.lookups += 1;
    if (counter.fail) throw new Error('connection refused to db.internal:5432');
    return inner.getAuthenticationByHashedToken(hash);
  };
  return { repo, counter };
}

function setup(cache?: ConstructorParameters<typeof Authenticator>[0]['cache']) {
  const clock = new FakeClock();
  const memory = new MemoryTokenRepository();
  const { repo, counter } = counting(memory);
  const crypto = new NodeTokenCrypto();
  const warnings: string[] = [];
  const authenticator = new Authenticator({
    repository: repo,
    crypto,
    clock,
    stopwatch: clock,
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: (m, f) => void warnings.push(JSON.stringify({ m, f })),
      error: () => undefined,
    },
    ...(cache ? { cache } : {}),
  });
  const api = new AuthApi({
    repository: repo,
    crypto,
    clock,
    ids: sequentialIds(),
    tokenMethodEnabled: true,
    onAuthenticationChanged: (id) => authenticator.invalidate(id),
  });
  const create = (expiresAt?: string) =>
    api.createToken({
      name: 'n',
      description: '',
      namespaceKey: '',
      metadata: {},
      ...(expiresAt ? { expiresAt } : {}),
    });
  return { clock, memory, counter, authenticator, api, create, warnings };
}

const refused = 'request was not authenticated';

describe('Authenticator', () => {
  it('accepts a Bearer token and the cookie', async () => {
    const { authenticator, create } = setup();
    const { clientToken, authentication } = await create();
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).resolves.toEqual(
      authentication,
    );
    await expect(
      authenticator.authenticate(undefined, `flipt_client_token=${clientToken}`),
    ).resolves.toEqual(authentication);
  });

  it.each([
    ['no header', undefined],
    ['lower-case scheme', 'bearer x'],
    ['two spaces', 'Bearer  TOKEN'],
    ['unknown token', 'Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
    ['malformed', 'Basic dXNlcjpwYXNz'],
    ['empty Bearer', 'Bearer '],
    ['absurdly long', `Bearer ${'x'.repeat(5000)}`],
  ])('refuses %s with the generic message', async (_name, header) => {
    const { authenticator, create } = setup();
    const { clientToken } = await create();
    const value = header?.replace('TOKEN', clientToken);
    await expect(authenticator.authenticate(value)).rejects.toThrow(UnauthenticatedError);
    await expect(authenticator.authenticate(value)).rejects.toThrow(refused);
  });

  it('does not query storage per request once a token is cached', async () => {
    const { authenticator, create, counter } = setup();
    const { clientToken } = await create();
    for (let i = 0; i < 100; i += 1) await authenticator.authenticate(`Bearer ${clientToken}`);
    expect(counter.lookups).toBe(1);
  });

  it('shares one storage lookup between concurrent requests with the same token', async () => {
    const { authenticator, create, counter } = setup();
    const { clientToken } = await create();
    await Promise.all(
      Array.from({ length: 20 }, () => authenticator.authenticate(`Bearer ${clientToken}`)),
    );
    expect(counter.lookups).toBe(1);
  });

  it('caches unknown tokens too, briefly', async () => {
    const { authenticator, counter, clock } = setup();
    const bad = 'Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
    for (let i = 0; i < 10; i += 1) await expect(authenticator.authenticate(bad)).rejects.toThrow();
    expect(counter.lookups).toBe(1);
    clock.advance(500);
    await expect(authenticator.authenticate(bad)).rejects.toThrow();
    expect(counter.lookups).toBe(2);
  });

  it('refuses an expired token at once, even while it is cached', async () => {
    const { authenticator, create, clock } = setup();
    const expiresAt = new Date(clock.ms + 100).toISOString();
    const { clientToken } = await create(expiresAt);
    await authenticator.authenticate(`Bearer ${clientToken}`);
    clock.advance(100);
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).resolves.toBeDefined();
    clock.advance(1);
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).rejects.toThrow(refused);
  });

  it('compares an expiry in the clock form on the cached path, to the microsecond', async () => {
    const { authenticator, create, clock } = setup();
    const canonical = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000Z');
    const { clientToken } = await create(canonical(clock.ms + 100));
    await authenticator.authenticate(`Bearer ${clientToken}`);
    clock.advance(100);
    expect(authenticator.authenticateCached(`Bearer ${clientToken}`)).toBeDefined();
    clock.advance(1);
    expect(() => authenticator.authenticateCached(`Bearer ${clientToken}`)).toThrow(refused);
  });

  it('a local delete takes effect at once', async () => {
    const { authenticator, create, api } = setup();
    const { clientToken, authentication } = await create();
    await authenticator.authenticate(`Bearer ${clientToken}`);
    await api.deleteAuthentication(authentication.id);
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).rejects.toThrow(refused);
  });

  it('expiring itself takes effect at once', async () => {
    const { authenticator, create, api, clock } = setup();
    const { clientToken } = await create();
    const self = await authenticator.authenticate(`Bearer ${clientToken}`);
    await api.expireAuthenticationSelf(self, {});
    clock.advance(1);
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).rejects.toThrow(refused);
  });

  it('a delete on another instance takes effect within the cache TTL (< 1 s)', async () => {
    const { authenticator, create, memory, clock } = setup();
    const { clientToken, authentication } = await create();
    await authenticator.authenticate(`Bearer ${clientToken}`);
    await memory.deleteAuthentication(authentication.id);
    clock.advance(499);
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).resolves.toBeDefined();
    clock.advance(1);
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).rejects.toThrow(refused);
  });

  it('a lookup in flight during a local delete is not cached afterwards', async () => {
    const { authenticator, create, api } = setup();
    const { clientToken, authentication } = await create();
    const pending = authenticator.authenticate(`Bearer ${clientToken}`);
    await api.deleteAuthentication(authentication.id);
    await pending.catch(() => undefined);
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).rejects.toThrow(refused);
  });

  it('keeps its caches bounded', async () => {
    const { authenticator, create } = setup({ maxEntries: 3, negativeMaxEntries: 5 });
    const tokens = await Promise.all([1, 2, 3, 4, 5].map(() => create()));
    for (const t of tokens) await authenticator.authenticate(`Bearer ${t.clientToken}`);
    for (let i = 0; i < 50; i += 1) {
      await expect(authenticator.authenticate(`Bearer unknown-${i}`)).rejects.toThrow();
    }
    expect(authenticator.cacheSize).toEqual({ known: 3, unknown: 5 });
  });

  it('refuses a cache lifetime above one second', () => {
    expect(() => setup({ ttlMs: 1001 })).toThrow(RangeError);
    expect(() => setup({ negativeTtlMs: 5000 })).toThrow(RangeError);
  });

  it('answers 401 without detail and without caching when storage fails', async () => {
    const { authenticator, create, counter, warnings } = setup();
    const { clientToken } = await create();
    counter.fail = true;
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).rejects.toThrow(refused);
    counter.fail = false;
    await expect(authenticator.authenticate(`Bearer ${clientToken}`)).resolves.toBeDefined();
    expect(warnings).toHaveLength(1);
    expect(warnings.join()).not.toContain(clientToken);
  });

  it('reads gRPC metadata', async () => {
    const { authenticator, create } = setup();
    const { clientToken, authentication } = await create();
    const md = { get: (k: string) => (k === 'authorization' ? [`Bearer ${clientToken}`] : []) };
    await expect(authenticator.authenticateMetadata(md)).resolves.toEqual(authentication);
  });
});
