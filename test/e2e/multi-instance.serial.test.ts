import { performance } from 'node:perf_hooks';
import {
  createIsolatedDatabase,
  enabledSqlBackends,
  enabledRedisBackend,
  requireUrl,
  type IsolatedDatabase,
} from '../support/databases';
import {
  distribution,
  startNginx,
  startVexil,
  type NginxProcess,
  type VexilProcess,
} from '../support/processes';

/*
 * Several real Vexil processes on one PostgreSQL database. With the Redis backend a write
 * through nginx must be evaluated by every instance within 100 ms (p99 over the trials), and
 * an instance that served the new value never serves the old one again. Needs PostgreSQL and
 * Redis: run when their URLs are set, fail when VEXIL_TEST_REQUIRE lists them without them.
 *
 *   VEXIL_TEST_PROPAGATION_TRIALS   trials per topology (default 200, over five change kinds)
 */

const postgres = enabledSqlBackends().find((b) => b.name === 'postgres');
const redis = enabledRedisBackend();
const TRIALS = Number(process.env['VEXIL_TEST_PROPAGATION_TRIALS'] ?? 200);
const run = postgres !== undefined && redis !== undefined ? describe : describe.skip;
if (postgres === undefined || redis === undefined) {
  console.log('multi-instance e2e not run: VEXIL_TEST_POSTGRES_URL / VEXIL_TEST_REDIS_URL unset');
}

jest.setTimeout(240_000);

// Responses are Flipt JSON read field by field; typing each shape adds nothing here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? {} : JSON.parse(text);
}

/** One kind of change: a write that flips what an evaluation observes. */
interface ChangeKind {
  readonly name: string;
  /** Performs the n-th write; returns the value evaluations must show afterwards. */
  flip(n: number): Promise<string>;
  observe(base: string): Promise<string>;
}

async function setupKinds(api: string, ns: string): Promise<ChangeKind[]> {
  const p = `/api/v1/namespaces/${ns}`;
  await call(api, 'POST', '/api/v1/namespaces', { key: ns, name: ns });
  await call(api, 'POST', `${p}/segments`, {
    key: 'all',
    name: 'all',
    matchType: 'ALL_MATCH_TYPE',
  });
  await call(api, 'POST', `${p}/segments`, {
    key: 'none',
    name: 'none',
    matchType: 'ALL_MATCH_TYPE',
  });
  await call(api, 'POST', `${p}/segments/none/constraints`, {
    type: 'STRING_COMPARISON_TYPE',
    property: 'p',
    operator: 'eq',
    value: 'never',
  });
  await call(api, 'POST', `${p}/segments`, {
    key: 'plan',
    name: 'plan',
    matchType: 'ALL_MATCH_TYPE',
  });
  const constraint = await call(api, 'POST', `${p}/segments/plan/constraints`, {
    type: 'STRING_COMPARISON_TYPE',
    property: 'plan',
    operator: 'eq',
    value: 'pro',
  });
  const boolEval = (flagKey: string) => async (base: string) =>
    String(
      (
        await call(base, 'POST', '/evaluate/v1/boolean', {
          namespaceKey: ns,
          flagKey,
          entityId: 'e1',
          context: {},
        })
      ).enabled,
    );
  const variantEval =
    (flagKey: string, context: Record<string, string> = {}) =>
    async (base: string) => {
      const r = await call(base, 'POST', '/evaluate/v1/variant', {
        namespaceKey: ns,
        flagKey,
        entityId: 'e1',
        context,
      });
      return `${r.match}:${r.variantKey}`;
    };
  const variantFlag = async (key: string, segmentKey: string, variants: string[]) => {
    await call(api, 'POST', `${p}/flags`, {
      key,
      name: key,
      type: 'VARIANT_FLAG_TYPE',
      enabled: true,
    });
    const ids: string[] = [];
    for (const v of variants)
      ids.push((await call(api, 'POST', `${p}/flags/${key}/variants`, { key: v })).id);
    const rule = await call(api, 'POST', `${p}/flags/${key}/rules`, { segmentKey, rank: 1 });
    const dist = await call(api, 'POST', `${p}/flags/${key}/rules/${rule.id}/distributions`, {
      variantId: ids[0],
      rollout: 100,
    });
    return { ids, ruleId: rule.id as string, distId: dist.id as string };
  };

  await call(api, 'POST', `${p}/flags`, {
    key: 'tog',
    name: 'tog',
    type: 'BOOLEAN_FLAG_TYPE',
    enabled: true,
  });
  await call(api, 'POST', `${p}/flags`, {
    key: 'rol',
    name: 'rol',
    type: 'BOOLEAN_FLAG_TYPE',
    enabled: true,
  });
  const rollout = await call(api, 'POST', `${p}/flags/rol/rollouts`, {
    rank: 1,
    threshold: { percentage: 100, value: true },
  });
  const rul = await variantFlag('rul', 'all', ['a']);
  const dis = await variantFlag('dis', 'all', ['a', 'b']);
  await variantFlag('con', 'plan', ['a']);

  return [
    {
      name: 'toggle',
      flip: async (n) => {
        const enabled = n % 2 === 1;
        await call(api, 'PUT', `${p}/flags/tog`, { name: 'tog', enabled });
        return String(enabled);
      },
      observe: boolEval('tog'),
    },
    {
      name: 'rule',
      flip: async (n) => {
        const segmentKey = n % 2 === 1 ? 'all' : 'none';
        await call(api, 'PUT', `${p}/flags/rul/rules/${rul.ruleId}`, { segmentKey });
        return segmentKey === 'all' ? 'true:a' : 'false:';
      },
      observe: variantEval('rul'),
    },
    {
      name: 'rollout',
      flip: async (n) => {
        const value = n % 2 === 1;
        await call(api, 'PUT', `${p}/flags/rol/rollouts/${rollout.id}`, {
          threshold: { percentage: 100, value },
        });
        return String(value);
      },
      observe: boolEval('rol'),
    },
    {
      name: 'distribution',
      flip: async (n) => {
        const index = n % 2 === 1 ? 0 : 1;
        await call(api, 'PUT', `${p}/flags/dis/rules/${dis.ruleId}/distributions/${dis.distId}`, {
          variantId: dis.ids[index],
          rollout: 100,
        });
        return `true:${index === 0 ? 'a' : 'b'}`;
      },
      observe: variantEval('dis'),
    },
    {
      name: 'constraint',
      flip: async (n) => {
        const value = n % 2 === 1 ? 'pro' : 'free';
        await call(api, 'PUT', `${p}/segments/plan/constraints/${constraint.id}`, {
          type: 'STRING_COMPARISON_TYPE',
          property: 'plan',
          operator: 'eq',
          value,
        });
        return value === 'pro' ? 'true:a' : 'false:';
      },
      observe: variantEval('con', { plan: 'pro' }),
    },
  ];
}

interface PropagationResult {
  readonly perTrialMs: number[];
  readonly perKind: Map<string, number[]>;
  readonly regressions: string[];
}

/**
 * Writes through `writer` and polls every reader until it shows the new value; records, per
 * trial, the time from the write's acknowledgement until the last reader showed it. After a
 * reader shows the new value it is polled a few more times: any old value is a regression.
 */
async function measure(
  writer: string,
  readers: readonly string[],
  kinds: readonly ChangeKind[],
  trials: number,
  limitMs = 5000,
): Promise<PropagationResult> {
  const perTrialMs: number[] = [];
  const perKind = new Map<string, number[]>();
  const regressions: string[] = [];
  const rounds = new Map<string, number>();
  // Warm every instance so each holds every namespace before timing starts.
  for (const kind of kinds) for (const r of readers) await kind.observe(r);
  for (let t = 0; t < trials; t += 1) {
    const kind = kinds[t % kinds.length]!;
    const n = (rounds.get(kind.name) ?? 0) + 1;
    rounds.set(kind.name, n);
    const expected = await kind.flip(n);
    const acked = performance.now();
    const times = await Promise.all(
      readers.map(async (reader) => {
        for (;;) {
          const value = await kind.observe(reader);
          const elapsed = performance.now() - acked;
          if (value === expected) {
            for (let i = 0; i < 3; i += 1) {
              const again = await kind.observe(reader);
              if (again !== expected)
                regressions.push(`${kind.name} trial ${t} on ${reader}: ${again}`);
            }
            return elapsed;
          }
          if (elapsed > limitMs)
            throw new Error(`${kind.name} trial ${t}: ${reader} still shows ${value}`);
          await new Promise((r) => setTimeout(r, 1));
        }
      }),
    );
    const worst = Math.max(...times);
    perTrialMs.push(worst);
    const list = perKind.get(kind.name) ?? [];
    list.push(worst);
    perKind.set(kind.name, list);
  }
  return { perTrialMs, perKind, regressions };
}

function report(label: string, result: PropagationResult): ReturnType<typeof distribution> {
  const overall = distribution(result.perTrialMs);
  const lines = [
    `${label}: propagation ms (write ack -> every instance) ${JSON.stringify(overall)}`,
  ];
  for (const [kind, values] of result.perKind)
    lines.push(`  ${kind}: ${JSON.stringify(distribution(values))}`);
  console.log(lines.join('\n'));
  return overall;
}

run('several instances on PostgreSQL and Redis behind nginx', () => {
  let db: IsolatedDatabase;
  const instances: VexilProcess[] = [];
  let redisUrl: string;
  const prefix = `vexil-mi-${process.pid}-${Date.now().toString(36)}:`;

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    VEXIL_DB_URL: db.url,
    VEXIL_CACHING_ENABLED: 'true',
    VEXIL_CACHING_BACKEND: 'redis',
    VEXIL_CACHING_REDIS_URL: redisUrl,
    VEXIL_CACHING_REDIS_PREFIX: prefix,
    // Long enough that only change notices can explain propagation under 100 ms.
    VEXIL_CACHING_TTL: '60s',
    ...extra,
  });

  beforeAll(async () => {
    redisUrl = requireUrl(redis!);
    db = await createIsolatedDatabase(postgres!, 'multi');
    // The first instance migrates; the others start on the migrated database.
    instances.push(await startVexil(env()));
    instances.push(...(await Promise.all([startVexil(env()), startVexil(env())])));
  });

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await db?.drop();
  });

  for (const count of [2, 3]) {
    it(`${count} instances: a write is evaluated on every instance within 100 ms at p99`, async () => {
      const members = instances.slice(0, count);
      let nginx: NginxProcess | undefined;
      try {
        nginx = await startNginx(
          members.map((m) => m.httpPort),
          members.map((m) => m.grpcPort),
        );
        const kinds = await setupKinds(nginx.url, `mi${count}`);
        const result = await measure(
          nginx.url,
          members.map((m) => m.url),
          kinds,
          TRIALS,
        );
        const overall = report(`${count} instances, redis, ${TRIALS} trials`, result);
        expect(result.regressions).toEqual([]);
        expect(overall.p99).toBeLessThanOrEqual(100);
      } finally {
        await nginx?.stop();
      }
    });
  }

  it('memory backend: another instance follows a write within the ttl', async () => {
    const ttlMs = 1000;
    const memEnv = env({ VEXIL_CACHING_BACKEND: 'memory', VEXIL_CACHING_TTL: `${ttlMs}ms` });
    const pair = await Promise.all([startVexil(memEnv), startVexil(memEnv)]);
    try {
      const [writer, reader] = pair;
      const kinds = await setupKinds(writer!.url, 'mem');
      const trials = 10;
      const result = await measure(writer!.url, [reader!.url], kinds, trials, ttlMs * 3);
      const overall = report(`memory backend (ttl ${ttlMs} ms), ${trials} trials`, result);
      expect(result.regressions).toEqual([]);
      // The version check runs every ttl/2; add room for the reload itself.
      expect(overall.max).toBeLessThanOrEqual(ttlMs + 250);
    } finally {
      await Promise.all(pair.map((p) => p.stop()));
    }
  });

  it('caching off: every instance reads its own write and the others at once', async () => {
    const offEnv = { VEXIL_DB_URL: db.url, VEXIL_CACHING_ENABLED: 'false' };
    const pair = await Promise.all([startVexil(offEnv), startVexil(offEnv)]);
    try {
      const [writer, reader] = pair;
      const kinds = await setupKinds(writer!.url, 'off');
      const trials = 20;
      const result = await measure(writer!.url, [reader!.url], kinds, trials, 1000);
      const overall = report(`caching off, ${trials} trials`, result);
      expect(result.regressions).toEqual([]);
      // The first evaluation after the acknowledgement already shows the write.
      expect(overall.max).toBeLessThanOrEqual(50);
    } finally {
      await Promise.all(pair.map((p) => p.stop()));
    }
  });
});
