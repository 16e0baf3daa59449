import { NodeTokenCrypto } from '../../src/adapters/auth';
import { AuthApi, bootstrapToken, runTokenCleanup } from '../../src/domain/auth';
import { InvalidArgumentError } from '../../src/domain/errors';
import type { Authentication } from '../../src/domain/model';
import type { Clock, Logger, TokenRepository } from '../../src/ports';

/*
 * The TokenRepository contract kit: what every token repository must do. "Two instances" are
 * two repositories over the same data (two data sources of one database).
 */

/** What a token repository's test hands the kit. */
export interface TokenHarness {
  /** A repository as one instance would have it. */
  repository(): Promise<TokenRepository>;
  /** Every stored row of authentications and leases, as text. */
  dump(): Promise<string>;
  close(): Promise<void>;
}

export type MakeHarness = () => Promise<{ harness: TokenHarness; drop(): Promise<void> }>;

/** Hands out increasing microsecond timestamps from a fixed start. */
class StepClock implements Clock {
  private micros: number;
  constructor(start = Date.UTC(2030, 0, 1) * 1000) {
    this.micros = start;
  }
  now(): string {
    this.micros += 1;
    return iso(this.micros);
  }
}

function iso(micros: number): string {
  const d = new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19);
  return `${d}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
}

const crypto = new NodeTokenCrypto();
let seq = 0;
function newAuth(overrides: Partial<Authentication> = {}, hash?: string) {
  seq += 1;
  const id = `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`;
  return {
    authentication: {
      id,
      method: 'METHOD_TOKEN' as const,
      createdAt: `2030-01-01T00:00:${String(seq % 60).padStart(2, '0')}.123456Z`,
      updatedAt: '2030-01-01T00:00:00.000001Z',
      metadata: { 'io.flipt.auth.token.name': `t${seq}` },
      ...overrides,
    },
    hashedClientToken: hash ?? crypto.hashToken(`token-${seq}-${Math.random()}`),
  };
}

export function describeTokenRepositoryContract(name: string, make: MakeHarness): void {
  describe(`TokenRepository on ${name}`, () => {
    let harness: TokenHarness;
    let drop: () => Promise<void>;
    let repo: TokenRepository;

    beforeAll(async () => {
      ({ harness, drop } = await make());
      repo = await harness.repository();
    });
    afterAll(async () => {
      await harness?.close();
      await drop?.();
    });

    it('stores an authentication and finds it by hashed token and by id, microseconds intact', async () => {
      const input = newAuth({
        expiresAt: '2031-02-03T04:05:06.789012Z',
        metadata: { 'io.flipt.auth.token.name': 'ci', other: 'x' },
      });
      const created = await repo.createAuthentication(input);
      expect(created).toEqual(input.authentication);
      expect(await repo.getAuthenticationByHashedToken(input.hashedClientToken)).toEqual(
        input.authentication,
      );
      expect(await repo.getAuthentication(input.authentication.id)).toEqual(input.authentication);
      expect(await repo.getAuthentication('missing')).toBeUndefined();
      expect(await repo.getAuthenticationByHashedToken(crypto.hashToken('nope'))).toBeUndefined();
    });

    it('a token without expiry reads back without expiresAt', async () => {
      const input = newAuth();
      await repo.createAuthentication(input);
      const found = await repo.getAuthentication(input.authentication.id);
      expect(found).toBeDefined();
      expect(found && 'expiresAt' in found).toBe(false);
    });

    it('refuses a second authentication with the same hashed token', async () => {
      const first = newAuth();
      await repo.createAuthentication(first);
      await expect(
        repo.createAuthentication(newAuth({}, first.hashedClientToken)),
      ).rejects.toBeInstanceOf(InvalidArgumentError);
    });

    it('lists by created_at with method filter, offset and limit', async () => {
      const local = await harness.repository();
      const before = await local.listAuthentications({ offset: 0, limit: 1000 });
      const oidc = newAuth({ method: 'METHOD_OIDC', createdAt: '2029-12-31T23:59:59.999999Z' });
      await local.createAuthentication(oidc);
      const all = await local.listAuthentications({ offset: 0, limit: 1000 });
      expect(all).toHaveLength(before.length + 1);
      expect(all[0]?.id).toBe(oidc.authentication.id);
      const created = all.map((a) => a.createdAt);
      expect([...created].sort()).toEqual(created);
      const tokens = await local.listAuthentications({
        method: 'METHOD_TOKEN',
        offset: 0,
        limit: 1000,
      });
      expect(tokens.every((a) => a.method === 'METHOD_TOKEN')).toBe(true);
      expect(tokens).toHaveLength(all.length - 1);
      const page = await local.listAuthentications({ offset: 1, limit: 2 });
      expect(page.map((a) => a.id)).toEqual(all.slice(1, 3).map((a) => a.id));
    });

    it('deletes and expires by id', async () => {
      const input = newAuth();
      await repo.createAuthentication(input);
      const id = input.authentication.id;
      expect(
        await repo.expireAuthentication(
          id,
          '2030-05-05T05:05:05.555555Z',
          '2030-05-05T05:05:05.555555Z',
        ),
      ).toBe(true);
      expect((await repo.getAuthentication(id))?.expiresAt).toBe('2030-05-05T05:05:05.555555Z');
      expect(
        await repo.expireAuthentication(
          'missing',
          '2030-05-05T05:05:05.555555Z',
          '2030-05-05T05:05:05.555555Z',
        ),
      ).toBe(false);
      expect(await repo.deleteAuthentication(id)).toBe(true);
      expect(await repo.deleteAuthentication(id)).toBe(false);
      expect(await repo.getAuthenticationByHashedToken(input.hashedClientToken)).toBeUndefined();
    });

    it('tells whether an authentication of a method exists', async () => {
      expect(await repo.existsAuthentication('METHOD_TOKEN')).toBe(true);
      expect(await repo.existsAuthentication('METHOD_KUBERNETES')).toBe(false);
    });

    it('deletes only expired rows of the method older than the bound, never non-expiring ones', async () => {
      const old = newAuth({ expiresAt: '2020-01-01T00:00:00.000001Z' });
      const edge = newAuth({ expiresAt: '2020-06-01T00:00:00.000000Z' });
      const fresh = newAuth({ expiresAt: '2099-01-01T00:00:00.000000Z' });
      const never = newAuth();
      const otherMethod = newAuth({
        method: 'METHOD_OIDC',
        expiresAt: '2020-01-01T00:00:00.000000Z',
      });
      for (const a of [old, edge, fresh, never, otherMethod]) await repo.createAuthentication(a);
      const deleted = await repo.deleteExpiredAuthentications(
        'METHOD_TOKEN',
        '2020-06-01T00:00:00.000000Z',
      );
      expect(deleted).toBeGreaterThanOrEqual(1);
      expect(await repo.getAuthentication(old.authentication.id)).toBeUndefined();
      expect(await repo.getAuthentication(edge.authentication.id)).toBeDefined();
      expect(await repo.getAuthentication(fresh.authentication.id)).toBeDefined();
      expect(await repo.getAuthentication(never.authentication.id)).toBeDefined();
      expect(await repo.getAuthentication(otherMethod.authentication.id)).toBeDefined();
    });

    it('grants a lease only when it is free or lapsed', async () => {
      const op = `test_lock_${Math.random().toString(36).slice(2)}`;
      const first = await repo.tryAcquireLock(
        op,
        '2030-01-01T00:00:00.000000Z',
        '2030-01-01T01:00:00.000000Z',
      );
      expect(first).toEqual({ acquired: true, acquiredUntil: '2030-01-01T01:00:00.000000Z' });
      const held = await repo.tryAcquireLock(
        op,
        '2030-01-01T00:30:00.000000Z',
        '2030-01-01T01:30:00.000000Z',
      );
      expect(held).toEqual({ acquired: false, acquiredUntil: '2030-01-01T01:00:00.000000Z' });
      const lapsed = await repo.tryAcquireLock(
        op,
        '2030-01-01T01:00:00.000001Z',
        '2030-01-01T02:00:00.000000Z',
      );
      expect(lapsed.acquired).toBe(true);
    });

    it('lets exactly one of several instances take a lease at once', async () => {
      const op = `race_${Math.random().toString(36).slice(2)}`;
      const instances = await Promise.all([1, 2, 3, 4].map(() => harness.repository()));
      for (const round of [0, 1]) {
        const now = `2030-0${round + 2}-01T00:00:00.000000Z`;
        const until = `2030-0${round + 2}-01T01:00:00.000000Z`;
        const results = await Promise.all(instances.map((r) => r.tryAcquireLock(op, now, until)));
        expect(results.filter((r) => r.acquired)).toHaveLength(1);
      }
    });

    it('two cleanup runners at once: only one deletes', async () => {
      const a = await harness.repository();
      const b = await harness.repository();
      const expired = [1, 2, 3].map(() => newAuth({ expiresAt: '2000-01-01T00:00:00.000000Z' }));
      for (const e of expired) await a.createAuthentication(e);
      const clock: Clock = { now: () => '2031-01-01T00:00:00.000000Z' };
      const opts = { intervalMs: 3_600_000, gracePeriodMs: 1_800_000 };
      const [ra, rb] = await Promise.all([
        runTokenCleanup({ repository: a, clock }, opts),
        runTokenCleanup({ repository: b, clock }, opts),
      ]);
      expect([ra.acquired, rb.acquired].filter(Boolean)).toHaveLength(1);
      const winner = ra.acquired ? ra : rb;
      const loser = ra.acquired ? rb : ra;
      expect(winner.deleted).toBeGreaterThanOrEqual(3);
      expect(loser.deleted).toBe(0);
      expect(loser.nextAttemptAt).toBe('2031-01-01T01:00:00.000000Z');
      for (const e of expired)
        expect(await a.getAuthentication(e.authentication.id)).toBeUndefined();
    });

    it('bootstraps at most one token when instances start together', async () => {
      const kubernetes = 'METHOD_KUBERNETES' as const;
      const instances = await Promise.all([1, 2, 3].map(() => harness.repository()));
      const results = await Promise.all(
        instances.map((r) => r.createFirstAuthentication(newAuth({ method: kubernetes }))),
      );
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      const rows = await repo.listAuthentications({ method: kubernetes, offset: 0, limit: 100 });
      expect(rows).toHaveLength(1);
      expect(await repo.createFirstAuthentication(newAuth({ method: kubernetes }))).toBeUndefined();
    });

    it('bootstrapToken with a fixed token creates one row across instances, then nothing', async () => {
      const fresh = await make();
      try {
        const instances = await Promise.all([1, 2].map(() => fresh.harness.repository()));
        const clock = new StepClock();
        const ids = { uuid: () => `00000000-0000-4000-9000-${String(++seq).padStart(12, '0')}` };
        const run = (r: TokenRepository) =>
          bootstrapToken(
            { repository: r, crypto, clock, ids },
            { token: 's3cr3t-bootstrap', expirationMs: 60_000 },
          );
        const results = await Promise.all(instances.map(run));
        expect(results.filter((r) => r.created)).toHaveLength(1);
        const rows = await instances[0]!.listAuthentications({ offset: 0, limit: 100 });
        expect(rows).toHaveLength(1);
        expect(rows[0]?.metadata).toEqual({
          'io.flipt.auth.token.name': 'initial_bootstrap_token',
          'io.flipt.auth.token.description':
            'Initial token created when bootstrapping authentication',
        });
        expect(rows[0]?.expiresAt).toBeDefined();
        expect(
          await instances[1]!.getAuthenticationByHashedToken(crypto.hashToken('s3cr3t-bootstrap')),
        ).toBeDefined();
        expect((await run(instances[1]!)).created).toBe(false);
      } finally {
        await fresh.harness.close();
        await fresh.drop();
      }
    });

    it('never stores or logs the plaintext token', async () => {
      const lines: string[] = [];
      const capture = (level: string) => (message: string, fields?: Record<string, unknown>) =>
        void lines.push(JSON.stringify({ level, message, fields }));
      const logger: Logger = {
        debug: capture('debug'),
        info: capture('info'),
        warn: capture('warn'),
        error: capture('error'),
      };
      const api = new AuthApi({
        repository: repo,
        crypto,
        clock: new StepClock(),
        ids: { uuid: () => `00000000-0000-4000-a000-${String(++seq).padStart(12, '0')}` },
        logger,
        tokenMethodEnabled: true,
      });
      const { clientToken, authentication } = await api.createToken({
        name: 'leak-check',
        description: 'search for me',
        namespaceKey: 'default',
        metadata: {},
      });
      await api.listAuthentications({ method: 'METHOD_NONE', limit: 100, pageToken: '' });
      await api.getAuthentication(authentication.id);
      await api.deleteAuthentication('missing');
      const dump = await harness.dump();
      expect(dump).toContain(authentication.id);
      expect(dump).toContain(crypto.hashToken(clientToken));
      expect(lines.length).toBeGreaterThan(0);
      expect(dump.includes(clientToken)).toBe(false);
      expect(lines.join('\n').includes(clientToken)).toBe(false);
    });
  });
}
