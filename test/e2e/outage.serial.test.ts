import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { enabledRedisBackend, enabledSqlBackends } from '../support/databases';
import {
  startPrivatePostgres,
  startPrivateRedis,
  startVexil,
  type RestartableServer,
  type VexilProcess,
} from '../support/processes';
import { RegisterHistory, type TimedRead } from '../support/register-history';

/*
 * Last known good, with real servers stopped under a running Vexil. The servers are private to
 * this file (not the shared test servers), so stopping them disturbs no other suite.
 *
 *   VEXIL_TEST_OUTAGE_SECONDS   length of each outage window (default 30)
 */

const OUTAGE_MS = Number(process.env['VEXIL_TEST_OUTAGE_SECONDS'] ?? 30) * 1000;
const RATE_PER_SECOND = 50;
const enabled =
  enabledSqlBackends().some((b) => b.name === 'postgres') && enabledRedisBackend() !== undefined;
const run = enabled ? describe : describe.skip;
if (!enabled) console.log('outage e2e not run: PostgreSQL and Redis test servers not configured');

jest.setTimeout(OUTAGE_MS * 2 + 120_000);

interface Reply {
  status: number;
  body: Record<string, unknown>;
  ms: number;
  sentAt: number;
  respondedAt: number;
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<Reply> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  const respondedAt = performance.now();
  return {
    status: res.status,
    body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    ms: respondedAt - started,
    sentAt: started,
    respondedAt,
  };
}

/**
 * Evaluates at a steady rate until stopped; counts failures, and records each answer with
 * when it was sent and answered, to be checked against the writes' history.
 */
function steadyEvaluations(base: string, ns: string) {
  let failed = 0;
  let done = 0;
  const errors: string[] = [];
  const reads: Array<TimedRead<boolean>> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const tick = performance.now();
      try {
        const r = await call(base, 'POST', '/evaluate/v1/boolean', {
          namespaceKey: ns,
          flagKey: 'f',
          entityId: 'e',
          context: {},
        });
        if (r.status !== 200) {
          failed += 1;
          if (errors.length < 5) errors.push(`${r.status} ${JSON.stringify(r.body)}`);
        } else {
          reads.push({
            value: r.body['enabled'] === true,
            sentAt: r.sentAt,
            respondedAt: r.respondedAt,
          });
        }
      } catch (err) {
        failed += 1;
        if (errors.length < 5) errors.push(String(err));
      }
      done += 1;
      const wait = 1000 / RATE_PER_SECOND - (performance.now() - tick);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { done, failed, errors, reads };
    },
  };
}

/** Sets the flag's `enabled` and records the write in the history. */
async function toggle(
  base: string,
  ns: string,
  enabled: boolean,
  history: RegisterHistory<boolean>,
): Promise<Reply> {
  const r = await call(base, 'PUT', `/api/v1/namespaces/${ns}/flags/f`, { name: 'f', enabled });
  history.wrote({
    value: enabled,
    sentAt: r.sentAt,
    respondedAt: r.respondedAt,
    acknowledged: r.status === 200,
  });
  return r;
}

/** Reads no ordering of the writes explains, described for the failure message. */
function wrongAnswers(history: RegisterHistory<boolean>, reads: Array<TimedRead<boolean>>) {
  return history.violations(reads).map((r) => ({
    enabled: r.value,
    sentAt: Math.round(r.sentAt),
    respondedAt: Math.round(r.respondedAt),
  }));
}

run('outages under a running instance (caching on, Redis backend)', () => {
  let pg: RestartableServer;
  let redis: RestartableServer;
  let vexil: VexilProcess;

  beforeAll(async () => {
    [pg, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    vexil = await startVexil({
      VEXIL_DB_URL: pg.url,
      VEXIL_CACHING_ENABLED: 'true',
      VEXIL_CACHING_BACKEND: 'redis',
      VEXIL_CACHING_REDIS_URL: redis.url,
      VEXIL_CACHING_TTL: '2s',
    });
  });

  afterAll(async () => {
    await vexil?.stop();
    await Promise.all([pg?.destroy(), redis?.destroy()]);
  });

  it(`PostgreSQL down for ${OUTAGE_MS / 1000}s: evaluations all served, writes fail fast, nothing acknowledged lost`, async () => {
    const ns = 'pgout';
    expect(
      (await call(vexil.url, 'POST', '/api/v1/namespaces', { key: ns, name: ns })).status,
    ).toBe(200);
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const r = await call(vexil.url, 'POST', `/api/v1/namespaces/${ns}/flags`, {
        key: `k${i}`,
        name: `k${i}`,
        type: 'BOOLEAN_FLAG_TYPE',
      });
      if (r.status === 200) acknowledged.push(`k${i}`);
    }
    await call(vexil.url, 'POST', `/api/v1/namespaces/${ns}/flags`, {
      key: 'f',
      name: 'f',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    const history = new RegisterHistory(true);
    const load = steadyEvaluations(vexil.url, ns);
    await new Promise((r) => setTimeout(r, 500));

    const outageStart = performance.now();
    await pg.stop();
    const writeMs: number[] = [];
    let writeMessage = '';
    let healthDuring: Reply | undefined;
    const outageAges: number[] = [];
    while (performance.now() - outageStart < OUTAGE_MS) {
      const w = await toggle(vexil.url, ns, false, history);
      writeMs.push(w.ms);
      expect(w.status).toBe(503);
      expect(w.body['code']).toBe(14);
      writeMessage = String(w.body['message']);
      healthDuring = await call(vexil.url, 'GET', '/health');
      const age = /for (\d+)s/.exec(String(healthDuring.body['detail'] ?? ''));
      if (age !== null) outageAges.push(Number(age[1]));
      await new Promise((r) => setTimeout(r, 2000));
    }
    await pg.start();
    const backAt = performance.now();
    let recovered: Reply | undefined;
    for (;;) {
      recovered = await toggle(vexil.url, ns, false, history);
      if (recovered.status === 200 || performance.now() - backAt > 30_000) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const recoveryMs = performance.now() - backAt;
    await new Promise((r) => setTimeout(r, 500));
    const evaluations = await load.stop();
    const wrong = wrongAnswers(history, evaluations.reads);
    const flags = await call(vexil.url, 'GET', `/api/v1/namespaces/${ns}/flags?limit=100`);
    const present = new Set(
      ((flags.body['flags'] ?? []) as Array<{ key: string }>).map((f) => f.key),
    );
    const staleLogged = vexil.logs.some((l) => l.includes('last known good'));
    console.log(
      `PostgreSQL outage ${OUTAGE_MS / 1000}s at ${RATE_PER_SECOND}/s: ` +
        JSON.stringify({
          evaluations: evaluations.done,
          failed: evaluations.failed,
          wrong: wrong.length,
          writeFailMsMax: Math.round(Math.max(...writeMs)),
          writeMessage,
          healthDuring: healthDuring?.body,
          outageAgesSeen: outageAges,
          staleLogged,
          writesWorkAgainAfterMs: Math.round(recoveryMs),
        }),
    );
    expect(evaluations.errors).toEqual([]);
    expect(evaluations.failed).toBe(0);
    expect(wrong).toEqual([]);
    // Writes fail fast with 503 rather than waiting on the database.
    expect(Math.max(...writeMs)).toBeLessThanOrEqual(100);
    expect(writeMessage).toMatch(/postgres|storage|database/i);
    expect(healthDuring?.status).toBe(200);
    // The detail's age grows with the outage (it is read at every look, not when it began).
    expect(outageAges.length).toBeGreaterThan(1);
    expect(Math.max(...outageAges) - Math.min(...outageAges)).toBeGreaterThanOrEqual(
      OUTAGE_MS / 1000 - 6,
    );
    expect(staleLogged).toBe(true);
    expect(recovered?.status).toBe(200);
    for (const key of acknowledged) expect(present.has(key)).toBe(true);
  });

  it(`Redis down for ${OUTAGE_MS / 1000}s then back empty: evaluations all served, no stale value after`, async () => {
    const ns = 'redisout';
    await call(vexil.url, 'POST', '/api/v1/namespaces', { key: ns, name: ns });
    await call(vexil.url, 'POST', `/api/v1/namespaces/${ns}/flags`, {
      key: 'f',
      name: 'f',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    let expected = true;
    const history = new RegisterHistory(true);
    const load = steadyEvaluations(vexil.url, ns);
    await new Promise((r) => setTimeout(r, 500));
    await redis.stop();
    const started = performance.now();
    let flips = 0;
    while (performance.now() - started < OUTAGE_MS) {
      // Writes keep working without Redis and are read back by the writer.
      const w = await toggle(vexil.url, ns, !expected, history);
      expect(w.status).toBe(200);
      expected = !expected;
      flips += 1;
      await new Promise((r) => setTimeout(r, 2000));
    }
    await redis.start();
    await new Promise((r) => setTimeout(r, 1500));
    const w = await toggle(vexil.url, ns, !expected, history);
    expect(w.status).toBe(200);
    expected = !expected;
    await new Promise((r) => setTimeout(r, 500));
    const evaluations = await load.stop();
    const wrong = wrongAnswers(history, evaluations.reads);
    const final = await call(vexil.url, 'POST', '/evaluate/v1/boolean', {
      namespaceKey: ns,
      flagKey: 'f',
      entityId: 'e',
      context: {},
    });
    console.log(
      `Redis outage ${OUTAGE_MS / 1000}s at ${RATE_PER_SECOND}/s: ` +
        JSON.stringify({
          evaluations: evaluations.done,
          failed: evaluations.failed,
          wrong: wrong.length,
          flips,
        }),
    );
    expect(evaluations.errors).toEqual([]);
    expect(evaluations.failed).toBe(0);
    expect(wrong).toEqual([]);
    expect(final.body['enabled']).toBe(expected);
  });
});

run('outage under a running instance (caching off: a version check per evaluation)', () => {
  const outageMs = Math.min(OUTAGE_MS, 8000);
  let pg: RestartableServer;
  let vexil: VexilProcess;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    vexil = await startVexil({ VEXIL_DB_URL: pg.url });
  });

  afterAll(async () => {
    await vexil?.stop();
    await pg?.destroy();
  });

  it(`PostgreSQL down for ${outageMs / 1000}s: the health detail's outage age counts up`, async () => {
    const ns = 'agecount';
    await call(vexil.url, 'POST', '/api/v1/namespaces', { key: ns, name: ns });
    await call(vexil.url, 'POST', `/api/v1/namespaces/${ns}/flags`, {
      key: 'f',
      name: 'f',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    const evaluate = () =>
      call(vexil.url, 'POST', '/evaluate/v1/boolean', {
        namespaceKey: ns,
        flagKey: 'f',
        entityId: 'e',
        context: {},
      });
    expect((await evaluate()).status).toBe(200);
    // The private server commits asynchronously and is stopped as by a crash: without a
    // checkpoint the schema may not be on disk yet (nothing to recover to).
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    await admin.query('CHECKPOINT');
    await admin.end();
    await pg.stop();
    const started = performance.now();
    const seen: Array<{ atS: number; ageS: number }> = [];
    const failed: string[] = [];
    while (performance.now() - started < outageMs) {
      const e = await evaluate();
      if (e.status !== 200) failed.push(`${e.status} ${JSON.stringify(e.body)}`);
      const health = await call(vexil.url, 'GET', '/health');
      const age = /for (\d+)s/.exec(String(health.body['detail'] ?? ''));
      if (age !== null) {
        seen.push({ atS: Math.round((performance.now() - started) / 1000), ageS: Number(age[1]) });
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    await pg.start();
    let back = false;
    for (const deadline = performance.now() + 30_000; !back && performance.now() < deadline;) {
      await evaluate();
      back = (await call(vexil.url, 'GET', '/health')).body['detail'] === undefined;
      if (!back) await new Promise((r) => setTimeout(r, 250));
    }
    console.log(
      `PostgreSQL outage ${outageMs / 1000}s, caching off: ` +
        JSON.stringify({ outageAgesSeen: seen, failed: failed.length, detailClearedAfter: back }),
    );
    expect(failed).toEqual([]);
    expect(seen.length).toBeGreaterThan(2);
    const ages = seen.map((s) => s.ageS);
    // The age follows the clock: it grows by about as much as the outage has lasted.
    expect(Math.max(...ages) - Math.min(...ages)).toBeGreaterThanOrEqual(outageMs / 1000 - 4);
    expect(back).toBe(true);
  });
});
