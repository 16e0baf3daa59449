import fc from 'fast-check';
import { managementRpcs } from '../../src/adapters/rpc/management-rpcs';
import type { FieldSpec, MessageSchema } from '../../src/adapters/rpc/message-schema';
import { createIsolatedDatabase, type IsolatedDatabase } from '../support/databases';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import {
  anyFloat,
  anyInt,
  anyJson,
  anyString,
  dumpNamespace,
  FUZZED,
  fuzzBackends,
  scaled,
  seedNamespace,
  SENTINEL,
  type Pool,
} from './fault-support';

/*
 * Property-based fuzzing of every REST route of a real process (SQLite): requests built from
 * each route's request message, mixing existing keys and ids with hostile values, wrong
 * types, malformed bodies and odd path segments. Whatever comes in: no 5xx (the one exception
 * is Flipt's 501 for a known path with a method it does not serve), an answer within the
 * timeout, a JSON error body of Flipt's shape for every error, no unexpected error in the
 * log, and a namespace no request named unchanged at the end.
 */

const RUNS = scaled(10, 200);
const TIMEOUT_MS = 10_000;

jest.setTimeout(scaled(240_000, 3_600_000));

interface Route {
  readonly method: string;
  readonly path: string;
  /** Body (POST/PUT) or query fields (GET/DELETE), from the route's request message. */
  readonly request: fc.Arbitrary<Record<string, unknown>>;
}

let vexil: VexilProcess;
let db: IsolatedDatabase | undefined;
let pool: Pool;
let sentinelBefore: string;
const statuses = new Map<number, number>();
const latencies: number[] = [];

function valueFor(spec: FieldSpec): fc.Arbitrary<unknown> {
  const right = ((): fc.Arbitrary<unknown> => {
    if (spec === 'string') return anyString(pool);
    if (spec === 'bool') return fc.oneof(fc.boolean(), fc.constantFrom('true', 'no', 1));
    if (spec === 'int32') return fc.oneof(anyInt, fc.constantFrom('10', '-1', 'NaN', '1e3', ''));
    if (spec === 'float')
      return anyFloat.map((n) =>
        Number.isFinite(n) ? n : fc.sample(fc.constant(String(n)), 1)[0],
      );
    if (spec === 'strings')
      return fc.oneof(
        fc.array(anyString(pool), { maxLength: 4 }),
        fc.constant(Array.from({ length: 150 }, (_, i) => `k${i}`)),
      );
    if (spec === 'struct')
      return fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 4 });
    if (spec === 'stringMap')
      return fc.dictionary(
        anyString(pool),
        fc.oneof(anyString(pool), fc.constant(null), fc.integer()),
        { maxKeys: 4 },
      );
    if ('enum' in spec)
      return fc.oneof(
        fc.constantFrom(...spec.values),
        fc.integer({ min: -1, max: 9 }),
        anyString(pool),
      );
    return message(spec.message);
  })();
  return fc.oneof({ weight: 7, arbitrary: right }, { weight: 1, arbitrary: anyJson });
}

const message = (schema: MessageSchema): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(
    Object.fromEntries(Object.entries(schema).map(([name, spec]) => [name, valueFor(spec)])),
    { requiredKeys: [] },
  );

const evaluationRequest: MessageSchema = {
  requestId: 'string',
  namespaceKey: 'string',
  flagKey: 'string',
  entityId: 'string',
  context: 'stringMap',
  reference: 'string',
};
const batchOf = (extra: MessageSchema): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .tuple(
      message(extra),
      fc.oneof(
        fc.array(message(evaluationRequest), { maxLength: 5 }),
        fc.constant(Array.from({ length: 1001 }, () => ({ flagKey: 'b', entityId: 'e' }))),
        anyJson,
      ),
    )
    .map(([m, requests]) => ({ ...m, requests }));

function routes(): Route[] {
  const out: Route[] = [];
  for (const rpc of managementRpcs()) {
    for (const path of rpc.paths) {
      out.push({ method: rpc.method, path, request: message(rpc.request) });
    }
  }
  for (const path of ['/evaluate/v1', '/evaluate/v1/namespaces/:namespaceKey']) {
    out.push({ method: 'POST', path: `${path}/boolean`, request: message(evaluationRequest) });
    out.push({ method: 'POST', path: `${path}/variant`, request: message(evaluationRequest) });
    out.push({ method: 'POST', path: `${path}/batch`, request: batchOf({ reference: 'string' }) });
  }
  for (const path of ['/api/v1', '/api/v1/namespaces/:namespaceKey']) {
    out.push({ method: 'POST', path: `${path}/evaluate`, request: message(evaluationRequest) });
    out.push({
      method: 'POST',
      path: `${path}/batch-evaluate`,
      request: batchOf({ namespaceKey: 'string', excludeNotFound: 'bool' }),
    });
  }
  const none = message({});
  out.push(
    {
      method: 'GET',
      path: '/internal/v1/evaluation/snapshot/namespace/:key',
      request: message({ reference: 'string' }),
    },
    { method: 'GET', path: '/health', request: message({ service: 'string' }) },
    { method: 'GET', path: '/metrics', request: none },
    { method: 'GET', path: '/auth/v1/method', request: none },
    { method: 'GET', path: '/auth/v1/self', request: none },
    { method: 'PUT', path: '/auth/v1/self/expire', request: message({ expiresAt: 'string' }) },
    {
      method: 'GET',
      path: '/auth/v1/tokens',
      request: message({ method: 'string', limit: 'int32', pageToken: 'string' }),
    },
    { method: 'GET', path: '/auth/v1/tokens/:id', request: none },
    { method: 'DELETE', path: '/auth/v1/tokens/:id', request: none },
    {
      method: 'POST',
      path: '/auth/v1/method/token',
      request: message({
        name: 'string',
        description: 'string',
        expiresAt: 'string',
        namespaceKey: 'string',
        metadata: 'stringMap',
      }),
    },
  );
  // Writes that may remove the fuzzed namespace run last.
  return out.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

/** Percent-encoded; a lone surrogate (which has no UTF-8 form) goes as U+FFFD. */
const encodeSegment = (s: string): string =>
  encodeURIComponent(
    s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );

/** A path segment: existing, hostile, or invented; usually encoded, sometimes raw. */
const segment = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: anyString(pool).map(encodeSegment) },
    { weight: 1, arbitrary: fc.constantFrom('%zz', '%', '..', '%00', '%2F', 'a%2fb') },
  );

const fillPath = (path: string): fc.Arbitrary<string> => {
  const parts = path.split('/').map((p) => (p.startsWith(':') ? segment() : fc.constant(p)));
  return fc.tuple(...parts).map((ps) => ps.join('/'));
};

type Body =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'raw'; readonly text: string };

const bodyFor = (request: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Body> =>
  fc.oneof(
    { weight: 8, arbitrary: request.map((value) => ({ kind: 'json' as const, value })) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom('', '{', '{"key":', '[1,2', 'null', '"x"', '{"a":1}garbage', '\u0000'),
          fc.string({ maxLength: 30 }),
        )
        .map((text) => ({ kind: 'raw' as const, text })),
    },
    { weight: 1, arbitrary: anyJson.map((value) => ({ kind: 'json' as const, value })) },
  );

function queryString(fields: Record<string, unknown>): string {
  const q = new URLSearchParams();
  // Generated objects may have a key named toString, which String() cannot use.
  const text = (v: unknown): string =>
    typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
  for (const [k, v] of Object.entries(fields)) {
    if (Array.isArray(v)) for (const item of v) q.append(k, text(item));
    else q.append(k, text(v));
  }
  const query = q.toString();
  return query === '' ? '' : `?${query}`;
}

async function send(method: string, path: string, body: Body | undefined): Promise<void> {
  const started = performance.now();
  const res = await fetch(vexil.baseUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body:
      body === undefined ? undefined : body.kind === 'raw' ? body.text : JSON.stringify(body.value),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  latencies.push(performance.now() - started);
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const where = `${method} ${path.slice(0, 200)} -> ${res.status} ${text.slice(0, 300)}`;
  const flippsWrongMethod = res.status === 501 && text.includes('"code":12');
  if (res.status >= 500 && !flippsWrongMethod) throw new Error(`server error: ${where}`);
  if (res.status >= 400) {
    expect(res.headers.get('content-type') ?? '').toContain('application/json');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`error body is not JSON: ${where}`);
    }
    const e = parsed as { code?: unknown; message?: unknown; details?: unknown };
    if (
      !Number.isInteger(e.code) ||
      typeof e.message !== 'string' ||
      !Array.isArray(e.details) ||
      Object.keys(e).length !== 3
    ) {
      throw new Error(`error body not in Flipt's shape: ${where}`);
    }
  } else if (res.status === 200 && !path.startsWith('/metrics')) {
    JSON.parse(text);
  }
}

describe.each(fuzzBackends('sqlite'))('fuzzing every REST route on $name', (backend) => {
  beforeAll(async () => {
    statuses.clear();
    latencies.length = 0;
    db = await createIsolatedDatabase(backend, 'fuzz');
    vexil = await startVexil({
      VEXIL_DB_URL: db.url,
      VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
    });
    await seedNamespace(vexil.baseUrl, SENTINEL);
    sentinelBefore = await dumpNamespace(vexil.baseUrl, SENTINEL);
    pool = await seedNamespace(vexil.baseUrl, FUZZED);
  });

  afterAll(async () => {
    await vexil?.stop();
    await db?.drop();
  });

  /** Puts the fuzzed namespace back when a request deleted it, so later routes reach deep. */
  async function reseed(): Promise<void> {
    const res = await fetch(`${vexil.baseUrl}/api/v1/namespaces/${FUZZED}`);
    await res.text();
    if (res.status === 404) {
      const fresh = await seedNamespace(vexil.baseUrl, FUZZED);
      pool.ids.splice(0, pool.ids.length, ...fresh.ids);
    }
  }

  it(`answers ${RUNS} generated requests per route without a 5xx, a hang or a malformed error`, async () => {
    const all = routes();
    for (const route of all) {
      await reseed();
      const withBody = route.method === 'POST' || route.method === 'PUT';
      await fc.assert(
        fc.asyncProperty(
          fillPath(route.path),
          withBody ? bodyFor(route.request) : route.request,
          async (path, input) =>
            withBody
              ? send(route.method, path, input as Body)
              : send(route.method, path + queryString(input as Record<string, unknown>), undefined),
        ),
        { numRuns: RUNS },
      );
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const pct = (q: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    console.log(
      `REST fuzz on ${backend.name}: ${all.length} routes x ${RUNS} = ${latencies.length} requests; statuses ` +
        JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0]))) +
        `; latency p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms, max ${pct(1).toFixed(1)} ms`,
    );
    const unexpected = vexil.lines.filter((l) => /unexpected error/i.test(l));
    expect(unexpected).toEqual([]);
  });

  it('left the namespace no request named exactly as it was', async () => {
    expect(await dumpNamespace(vexil.baseUrl, SENTINEL)).toBe(sentinelBefore);
  });
});
