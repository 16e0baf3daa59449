import {
  createIsolatedDatabase,
  enabledRedisBackend,
  enabledSqlBackends,
  requireUrl,
  type IsolatedDatabase,
} from '../support/databases';
import { api, ApiError, type Json } from '../support/seed-config';
import { startVexil, type VexilProcess } from '../support/vexil-process';

/*
 * Read-your-writes, route by route: every mutating management route is followed at once (no
 * wait, no retry) by an evaluation that must reflect it, and by a snapshot ETag that must have
 * moved. On the embedded SQLite default one process writes and evaluates ('notified'
 * freshness); on PostgreSQL with caching off, one process writes and ANOTHER evaluates, which
 * only works if every evaluation checks the namespace version.
 */

const NS = 'ryw';
const P = `/api/v1/namespaces/${NS}`;

interface Ends {
  /** Where writes go. */
  readonly writer: string;
  /** Where evaluations are asked. */
  readonly reader: string;
}

type Outcome = Record<string, unknown>;

async function evaluate(
  base: string,
  kind: 'variant' | 'boolean',
  flagKey: string,
  context: Record<string, string> = {},
): Promise<Outcome> {
  const res = await fetch(`${base}/evaluate/v1/namespaces/${NS}/${kind}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ flagKey, entityId: 'entity-1', context }),
  });
  const body = (await res.json()) as Json;
  if (res.status !== 200) return { status: res.status, message: body.message };
  return kind === 'variant'
    ? {
        match: body.match,
        reason: body.reason,
        variantKey: body.variantKey,
        variantAttachment: body.variantAttachment,
        segmentKeys: body.segmentKeys,
      }
    : { enabled: body.enabled, reason: body.reason, segmentKeys: body.segmentKeys };
}

async function etag(base: string): Promise<string | null> {
  const res = await fetch(`${base}/internal/v1/evaluation/snapshot/namespace/${NS}`);
  await res.arrayBuffer();
  return res.headers.get('etag');
}

const V = (variantKey: string, extra: Outcome = {}): Outcome => ({ variantKey, ...extra });
const PLATINUM = { tier: 'platinum' };

/**
 * Runs every mutating route once, in an order where each write changes what the next
 * evaluation observes, checking the reader right after each write.
 */
async function runRouteByRoute({ writer, reader }: Ends): Promise<string[]> {
  const call = (method: string, path: string, body?: unknown) => api(writer, method, path, body);
  const ids: Record<string, string> = {};
  const checked: string[] = [];
  let lastEtag = await etag(reader);

  const step = async (
    route: string,
    write: () => Promise<unknown>,
    checks: Array<
      [kind: 'variant' | 'boolean', flag: string, ctx: Record<string, string>, want: Outcome]
    >,
  ): Promise<void> => {
    await write();
    for (const [kind, flag, ctx, want] of checks) {
      const got = await evaluate(reader, kind, flag, ctx);
      expect({ route, flag, ctx, got }).toEqual({
        route,
        flag,
        ctx,
        got: expect.objectContaining(want),
      });
    }
    const now = await etag(reader);
    expect({ route, etagMoved: now !== lastEtag }).toEqual({ route, etagMoved: true });
    lastEtag = now;
    checked.push(route);
  };

  expect(await evaluate(reader, 'variant', 'v')).toEqual({
    status: 404,
    message: `flag "${NS}/v" not found`,
  });

  await step(
    'POST flags (variant)',
    () => call('POST', `${P}/flags`, { key: 'v', name: 'v', enabled: true }),
    [['variant', 'v', {}, { match: false, reason: 'UNKNOWN_EVALUATION_REASON' }]],
  );
  await step(
    'POST variants',
    async () => {
      ids.a = (await call('POST', `${P}/flags/v/variants`, { key: 'a', attachment: '{"n":1}' })).id;
      ids.b = (await call('POST', `${P}/flags/v/variants`, { key: 'b' })).id;
    },
    [['variant', 'v', {}, { reason: 'UNKNOWN_EVALUATION_REASON' }]],
  );
  await step(
    'PUT flag (default variant)',
    () => call('PUT', `${P}/flags/v`, { name: 'v', enabled: true, defaultVariantId: ids.a }),
    [['variant', 'v', {}, V('a', { reason: 'DEFAULT_EVALUATION_REASON' })]],
  );
  await step(
    'PUT variant',
    () => call('PUT', `${P}/flags/v/variants/${ids.a}`, { key: 'a2', attachment: '{"n":2}' }),
    [['variant', 'v', {}, V('a2', { variantAttachment: '{"n":2}' })]],
  );
  await step(
    'PUT flag (enabled toggle off)',
    () => call('PUT', `${P}/flags/v`, { name: 'v', enabled: false, defaultVariantId: ids.a }),
    [['variant', 'v', {}, { reason: 'FLAG_DISABLED_EVALUATION_REASON', variantKey: 'a2' }]],
  );
  await step(
    'PUT flag (enabled on, default variant cleared)',
    () => call('PUT', `${P}/flags/v`, { name: 'v', enabled: true }),
    [['variant', 'v', {}, { reason: 'UNKNOWN_EVALUATION_REASON', variantKey: '' }]],
  );
  await step('POST segments', () => call('POST', `${P}/segments`, { key: 's', name: 's' }), [
    ['variant', 'v', PLATINUM, { match: false }],
  ]);
  await step(
    'POST constraints',
    async () => {
      ids.tier = (
        await call('POST', `${P}/segments/s/constraints`, {
          type: 'STRING_COMPARISON_TYPE',
          property: 'tier',
          operator: 'eq',
          value: 'gold',
        })
      ).id;
    },
    [['variant', 'v', { tier: 'gold' }, { match: false }]],
  );
  await step(
    'POST rules',
    async () => {
      ids.r1 = (await call('POST', `${P}/flags/v/rules`, { segmentKey: 's', rank: 1 })).id;
    },
    [
      ['variant', 'v', { tier: 'gold' }, { match: true, variantKey: '', segmentKeys: ['s'] }],
      ['variant', 'v', {}, { match: false }],
    ],
  );
  await step(
    'POST distributions',
    async () => {
      ids.d1 = (
        await call('POST', `${P}/flags/v/rules/${ids.r1}/distributions`, {
          variantId: ids.b,
          rollout: 100,
        })
      ).id;
    },
    [['variant', 'v', { tier: 'gold' }, V('b', { match: true })]],
  );
  await step(
    'PUT distribution',
    () =>
      call('PUT', `${P}/flags/v/rules/${ids.r1}/distributions/${ids.d1}`, {
        variantId: ids.a,
        rollout: 100,
      }),
    [['variant', 'v', { tier: 'gold' }, V('a2')]],
  );
  await step(
    'PUT constraint',
    () =>
      call('PUT', `${P}/segments/s/constraints/${ids.tier}`, {
        type: 'STRING_COMPARISON_TYPE',
        property: 'tier',
        operator: 'eq',
        value: 'platinum',
      }),
    [
      ['variant', 'v', { tier: 'gold' }, { match: false }],
      ['variant', 'v', PLATINUM, V('a2', { match: true })],
    ],
  );
  await step(
    'POST constraints (second, ALL)',
    async () => {
      ids.region = (
        await call('POST', `${P}/segments/s/constraints`, {
          type: 'STRING_COMPARISON_TYPE',
          property: 'region',
          operator: 'eq',
          value: 'eu',
        })
      ).id;
    },
    [
      ['variant', 'v', PLATINUM, { match: false }],
      ['variant', 'v', { tier: 'platinum', region: 'eu' }, V('a2')],
    ],
  );
  await step(
    'PUT segment (match type ANY)',
    () => call('PUT', `${P}/segments/s`, { name: 's', matchType: 'ANY_MATCH_TYPE' }),
    [
      ['variant', 'v', PLATINUM, V('a2')],
      ['variant', 'v', { region: 'eu' }, V('a2')],
    ],
  );
  await step(
    'DELETE constraint',
    () => call('DELETE', `${P}/segments/s/constraints/${ids.region}`),
    [['variant', 'v', { region: 'eu' }, { match: false }]],
  );
  await step(
    'POST segments + rules (second rule)',
    async () => {
      await call('POST', `${P}/segments`, { key: 'all', name: 'all' });
      ids.r2 = (await call('POST', `${P}/flags/v/rules`, { segmentKey: 'all', rank: 2 })).id;
      ids.d2 = (
        await call('POST', `${P}/flags/v/rules/${ids.r2}/distributions`, {
          variantId: ids.b,
          rollout: 100,
        })
      ).id;
    },
    [
      ['variant', 'v', {}, V('b', { segmentKeys: ['all'] })],
      ['variant', 'v', PLATINUM, V('a2')],
    ],
  );
  await step(
    'PUT rules/order',
    () => call('PUT', `${P}/flags/v/rules/order`, { ruleIds: [ids.r2, ids.r1] }),
    [['variant', 'v', PLATINUM, V('b', { segmentKeys: ['all'] })]],
  );
  await step('PUT rule', () => call('PUT', `${P}/flags/v/rules/${ids.r2}`, { segmentKey: 's' }), [
    ['variant', 'v', {}, { match: false }],
    ['variant', 'v', PLATINUM, V('b', { segmentKeys: ['s'] })],
  ]);
  await step(
    'DELETE distribution',
    () => call('DELETE', `${P}/flags/v/rules/${ids.r2}/distributions/${ids.d2}?variantId=${ids.b}`),
    [['variant', 'v', PLATINUM, { match: true, variantKey: '' }]],
  );
  await step('DELETE rule', () => call('DELETE', `${P}/flags/v/rules/${ids.r2}`), [
    ['variant', 'v', PLATINUM, V('a2')],
  ]);
  await step('DELETE variant (in use)', () => call('DELETE', `${P}/flags/v/variants/${ids.a}`), [
    ['variant', 'v', PLATINUM, { match: true, variantKey: '' }],
  ]);
  await step('DELETE segment', () => call('DELETE', `${P}/segments/all`), [
    ['variant', 'v', PLATINUM, { match: true }],
  ]);

  await step(
    'POST flags (boolean)',
    () => call('POST', `${P}/flags`, { key: 'bf', name: 'bf', type: 'BOOLEAN_FLAG_TYPE' }),
    [['boolean', 'bf', {}, { enabled: false, reason: 'DEFAULT_EVALUATION_REASON' }]],
  );
  await step(
    'POST rollouts (threshold)',
    async () => {
      ids.t = (
        await call('POST', `${P}/flags/bf/rollouts`, {
          rank: 1,
          threshold: { percentage: 100, value: true },
        })
      ).id;
    },
    [['boolean', 'bf', {}, { enabled: true, reason: 'MATCH_EVALUATION_REASON' }]],
  );
  await step(
    'PUT rollout',
    () =>
      call('PUT', `${P}/flags/bf/rollouts/${ids.t}`, {
        threshold: { percentage: 100, value: false },
      }),
    [['boolean', 'bf', {}, { enabled: false, reason: 'MATCH_EVALUATION_REASON' }]],
  );
  await step(
    'POST rollouts (segment)',
    async () => {
      ids.sr = (
        await call('POST', `${P}/flags/bf/rollouts`, {
          rank: 2,
          segment: { segmentKey: 's', value: true },
        })
      ).id;
    },
    [['boolean', 'bf', PLATINUM, { enabled: false, segmentKeys: [] }]],
  );
  await step(
    'PUT rollouts/order',
    () => call('PUT', `${P}/flags/bf/rollouts/order`, { rolloutIds: [ids.sr, ids.t] }),
    [['boolean', 'bf', PLATINUM, { enabled: true, segmentKeys: ['s'] }]],
  );
  await step(
    'PUT rollout (segment value)',
    () =>
      call('PUT', `${P}/flags/bf/rollouts/${ids.sr}`, {
        segment: { segmentKey: 's', value: false },
      }),
    [['boolean', 'bf', PLATINUM, { enabled: false, segmentKeys: ['s'] }]],
  );
  await step('DELETE rollout', () => call('DELETE', `${P}/flags/bf/rollouts/${ids.t}`), [
    ['boolean', 'bf', {}, { enabled: false, reason: 'DEFAULT_EVALUATION_REASON' }],
  ]);
  await step(
    'PUT flag (boolean enabled)',
    () => call('PUT', `${P}/flags/bf`, { name: 'bf', enabled: true }),
    [
      ['boolean', 'bf', {}, { enabled: true, reason: 'DEFAULT_EVALUATION_REASON' }],
      ['boolean', 'bf', PLATINUM, { enabled: false, reason: 'MATCH_EVALUATION_REASON' }],
    ],
  );
  await step('DELETE flag', () => call('DELETE', `${P}/flags/v`), [
    ['variant', 'v', {}, { status: 404, message: `flag "${NS}/v" not found` }],
  ]);

  // Deleting the namespace: the snapshot is gone (no ETag, no flags), evaluations 404.
  await call('DELETE', `/api/v1/namespaces/${NS}?force=true`);
  expect(await evaluate(reader, 'boolean', 'bf')).toEqual({
    status: 404,
    message: `flag "${NS}/bf" not found`,
  });
  expect(await etag(reader)).toBeNull();
  checked.push('DELETE namespace');
  return checked;
}

const ROUTES = 32;

describe('read-your-writes on the embedded SQLite (one process)', () => {
  let vexil: VexilProcess;
  beforeAll(async () => {
    vexil = await startVexil();
  });
  afterAll(async () => {
    await vexil?.stop();
  });

  it('every mutating route is visible to the very next evaluation', async () => {
    await api(vexil.baseUrl, 'POST', '/api/v1/namespaces', { key: NS, name: NS });
    const checked = await runRouteByRoute({ writer: vexil.baseUrl, reader: vexil.baseUrl });
    expect(checked).toHaveLength(ROUTES);
  });

  it('the namespace can be created again after a forced delete and is evaluated afresh', async () => {
    await api(vexil.baseUrl, 'POST', '/api/v1/namespaces', { key: NS, name: NS });
    expect(await evaluate(vexil.baseUrl, 'boolean', 'bf')).toMatchObject({ status: 404 });
    await api(vexil.baseUrl, 'POST', `${P}/flags`, {
      key: 'bf',
      name: 'bf',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    expect(await evaluate(vexil.baseUrl, 'boolean', 'bf')).toMatchObject({ enabled: true });
    await expect(api(vexil.baseUrl, 'DELETE', `/api/v1/namespaces/${NS}`)).rejects.toBeInstanceOf(
      ApiError,
    );
    await api(vexil.baseUrl, 'DELETE', `/api/v1/namespaces/${NS}?force=true`);
  });
});

const postgres = enabledSqlBackends().find((b) => b.name === 'postgres');
const onPostgres = postgres === undefined ? describe.skip : describe;

onPostgres('read-your-writes across two processes on PostgreSQL (caching off)', () => {
  let db: IsolatedDatabase;
  let a: VexilProcess;
  let b: VexilProcess;

  beforeAll(async () => {
    if (postgres === undefined) return;
    db = await createIsolatedDatabase(postgres, 'ryw');
    const env = { VEXIL_DB_URL: db.url, VEXIL_CACHING_ENABLED: 'false' };
    // One after the other: the first runs the migrations.
    a = await startVexil(env);
    b = await startVexil(env);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it('a write through one process is seen by the next evaluation on the other', async () => {
    await api(a.baseUrl, 'POST', '/api/v1/namespaces', { key: NS, name: NS });
    // Both processes hold the (empty) namespace before the writes start.
    expect(await etag(b.baseUrl)).toBe(await etag(a.baseUrl));
    const checked = await runRouteByRoute({ writer: a.baseUrl, reader: b.baseUrl });
    expect(checked).toHaveLength(ROUTES);
  });

  it('and the other way round', async () => {
    await api(b.baseUrl, 'POST', '/api/v1/namespaces', { key: NS, name: NS });
    expect(await evaluate(a.baseUrl, 'boolean', 'bf')).toMatchObject({ status: 404 });
    for (const enabled of [true, false, true]) {
      await api(b.baseUrl, 'POST', `${P}/flags`, {
        key: 'bf',
        name: 'bf',
        type: 'BOOLEAN_FLAG_TYPE',
        enabled,
      });
      expect(await evaluate(a.baseUrl, 'boolean', 'bf')).toMatchObject({ enabled });
      await api(b.baseUrl, 'DELETE', `${P}/flags/bf`);
      expect(await evaluate(a.baseUrl, 'boolean', 'bf')).toMatchObject({ status: 404 });
    }
  });
});

const redis = enabledRedisBackend();
const onPostgresAndRedis = postgres === undefined || redis === undefined ? describe.skip : describe;

/*
 * With the cache on, the writing process serves the write from its snapshot once it has read
 * back what changed: the write answers before that, and evaluations of what it changed wait.
 */
onPostgresAndRedis('read-your-writes on PostgreSQL with the Redis cache (one process)', () => {
  let db: IsolatedDatabase;
  let vexil: VexilProcess;

  beforeAll(async () => {
    if (postgres === undefined || redis === undefined) return;
    db = await createIsolatedDatabase(postgres, 'rywc');
    vexil = await startVexil({
      VEXIL_DB_URL: db.url,
      VEXIL_CACHING_ENABLED: 'true',
      VEXIL_CACHING_BACKEND: 'redis',
      VEXIL_CACHING_REDIS_URL: requireUrl(redis),
      VEXIL_CACHING_REDIS_PREFIX: `ryw-${process.pid}:`,
    });
  }, 60_000);

  afterAll(async () => {
    await vexil?.stop();
    await db?.drop();
  });

  it('every mutating route is visible to the very next evaluation', async () => {
    await api(vexil.baseUrl, 'POST', '/api/v1/namespaces', { key: NS, name: NS });
    const checked = await runRouteByRoute({ writer: vexil.baseUrl, reader: vexil.baseUrl });
    expect(checked).toHaveLength(ROUTES);
  });
});
