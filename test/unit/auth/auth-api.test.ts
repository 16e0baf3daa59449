import { NodeTokenCrypto } from '../../../src/adapters/auth';
import { MemoryTokenRepository } from '../../../src/adapters/storage/memory/memory-token-repository';
import { AuthApi, pageLimit, pageOffset } from '../../../src/domain/auth';
import { NotFoundError, UnauthenticatedError } from '../../../src/domain/errors';
import { FakeClock, sequentialIds } from './support';

function setup(tokenMethodEnabled = true) {
  const clock = new FakeClock();
  const repository = new MemoryTokenRepository();
  const changed: string[] = [];
  const api = new AuthApi({
    repository,
    crypto: new NodeTokenCrypto(),
    clock,
    ids: sequentialIds(),
    tokenMethodEnabled,
    onAuthenticationChanged: (id) => void changed.push(id),
  });
  const create = (name = 'n', extra: Record<string, unknown> = {}) => {
    clock.advance(1);
    return api.createToken({ name, description: '', namespaceKey: '', metadata: {}, ...extra });
  };
  return { api, clock, repository, changed, create };
}

describe('AuthApi.createToken', () => {
  it('returns a 44-character token once and stores only its hash', async () => {
    const { create, repository } = setup();
    const { clientToken, authentication } = await create('ci');
    expect(clientToken).toMatch(/^[A-Za-z0-9_-]{43}=$/);
    expect(authentication.method).toBe('METHOD_TOKEN');
    expect(authentication.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(authentication.expiresAt).toBeUndefined();
    expect(authentication.createdAt).toBe(authentication.updatedAt);
    expect(JSON.stringify(repository.dump())).not.toContain(clientToken);
  });

  it('writes Flipt metadata: name always, description and namespace when non-empty, plus request metadata', async () => {
    const { api } = setup();
    const full = await api.createToken({
      name: 'ci',
      description: 'for CI',
      namespaceKey: 'prod',
      expiresAt: '2031-01-01T00:00:00Z',
      metadata: { team: 'a' },
    });
    expect(full.authentication.metadata).toEqual({
      team: 'a',
      'io.flipt.auth.token.name': 'ci',
      'io.flipt.auth.token.description': 'for CI',
      'io.flipt.auth.token.namespace': 'prod',
    });
    expect(full.authentication.expiresAt).toBe('2031-01-01T00:00:00.000000Z');
    const bare = await api.createToken({
      name: '',
      description: '',
      namespaceKey: '',
      metadata: {},
    });
    expect(bare.authentication.metadata).toEqual({ 'io.flipt.auth.token.name': '' });
  });
});

describe('AuthApi.listAuthentications', () => {
  it('pages with decimal offsets: 25 by default, 100 at most, "" on the last page', async () => {
    const { api, create } = setup();
    const created = [];
    for (let i = 0; i < 130; i += 1) created.push((await create(`t${i}`)).authentication.id);
    const first = await api.listAuthentications({ method: 'METHOD_NONE', limit: 0, pageToken: '' });
    expect(first.authentications.map((a) => a.id)).toEqual(created.slice(0, 25));
    expect(first.nextPageToken).toBe('25');
    const second = await api.listAuthentications({
      method: 'METHOD_TOKEN',
      limit: 0,
      pageToken: '25',
    });
    expect(second.authentications[0]?.id).toBe(created[25]);
    const big = await api.listAuthentications({ method: 'METHOD_NONE', limit: 500, pageToken: '' });
    expect(big.authentications).toHaveLength(100);
    expect(big.nextPageToken).toBe('100');
    const last = await api.listAuthentications({
      method: 'METHOD_NONE',
      limit: 100,
      pageToken: '100',
    });
    expect(last.authentications).toHaveLength(30);
    expect(last.nextPageToken).toBe('');
    const garbage = await api.listAuthentications({
      method: 'METHOD_NONE',
      limit: 2,
      pageToken: 'abc',
    });
    expect(garbage.authentications.map((a) => a.id)).toEqual(created.slice(0, 2));
    const oidc = await api.listAuthentications({ method: 'METHOD_OIDC', limit: 0, pageToken: '' });
    expect(oidc).toEqual({ authentications: [], nextPageToken: '' });
  });

  it.each([
    [0, 25],
    [1, 1],
    [100, 100],
    [101, 100],
    [-1, 100],
  ])('limit %p becomes %p', (given, expected) => expect(pageLimit(given)).toBe(expected));

  it.each([
    ['', 0],
    ['25', 25],
    ['-1', 0],
    ['1.5', 0],
    ['eyJvZmZzZXQiOjF9', 0],
  ])('page token %p is offset %p', (token, expected) => expect(pageOffset(token)).toBe(expected));
});

describe('AuthApi get / delete / self', () => {
  it('gets by id, 404 with Flipt text when unknown', async () => {
    const { api, create } = setup();
    const { authentication } = await create();
    await expect(api.getAuthentication(authentication.id)).resolves.toEqual(authentication);
    await expect(api.getAuthentication('nope')).rejects.toThrow(NotFoundError);
    await expect(api.getAuthentication('nope')).rejects.toThrow(
      'getting authentication by token: reading authentication: resource not found',
    );
  });

  it('deletes, an unknown id being no error, and tells the listener', async () => {
    const { api, create, changed } = setup();
    const { authentication } = await create();
    await api.deleteAuthentication(authentication.id);
    await api.deleteAuthentication('unknown');
    await expect(api.getAuthentication(authentication.id)).rejects.toThrow(NotFoundError);
    expect(changed).toEqual([authentication.id, 'unknown']);
  });

  it('self needs a caller', async () => {
    const { api, create } = setup();
    const { authentication } = await create();
    expect(api.getAuthenticationSelf(authentication)).toBe(authentication);
    expect(() => api.getAuthenticationSelf(undefined)).toThrow(UnauthenticatedError);
    await expect(api.expireAuthenticationSelf(undefined, {})).rejects.toThrow(
      'request was not authenticated',
    );
  });

  it('expire self sets expires_at to now by default, or to the given time', async () => {
    const { api, create, clock, changed } = setup();
    const { authentication } = await create();
    await api.expireAuthenticationSelf(authentication, {});
    expect((await api.getAuthentication(authentication.id)).expiresAt).toBe(clock.now());
    await api.expireAuthenticationSelf(authentication, { expiresAt: '2040-01-01T00:00:00.5Z' });
    expect((await api.getAuthentication(authentication.id)).expiresAt).toBe(
      '2040-01-01T00:00:00.500000Z',
    );
    expect(changed).toEqual([authentication.id, authentication.id]);
  });
});

describe('AuthApi.listAuthenticationMethods', () => {
  it('lists the five methods in Flipt order with token enabled per config', () => {
    expect(setup(true).api.listAuthenticationMethods()).toEqual({
      methods: [
        { method: 'METHOD_TOKEN', enabled: true, sessionCompatible: false },
        { method: 'METHOD_GITHUB', enabled: false, sessionCompatible: true },
        { method: 'METHOD_OIDC', enabled: false, sessionCompatible: true },
        { method: 'METHOD_KUBERNETES', enabled: false, sessionCompatible: false },
        { method: 'METHOD_JWT', enabled: false, sessionCompatible: false },
      ],
    });
    expect(setup(false).api.listAuthenticationMethods().methods[0]?.enabled).toBe(false);
  });
});
