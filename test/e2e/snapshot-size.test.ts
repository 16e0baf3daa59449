import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { startVexil, type VexilProcess } from '../support/vexil-process';

/*
 * The client snapshot route costs what the namespace holds, not what its document spells
 * out: a segment of about 1 MB named by 35 rules makes a 35 MB document, built once and
 * shared by concurrent requests (gzipped for those that accept it), and a namespace whose
 * document would pass evaluation.snapshot_max_bytes gets a clear error at once.
 */

jest.setTimeout(120_000);

const VALUE_BYTES = 50_000;
const CONSTRAINTS = 20; // ~1 MB in one segment
const LIMIT = 64 * 1024 * 1024;

let vexil: VexilProcess;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function api(method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(vexil.baseUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Json;
  if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
  return json;
}

/** Text that compresses about as real ids do. */
function value(seed: number): string {
  let x = seed;
  let out = '';
  while (out.length < VALUE_BYTES) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += x.toString(36);
  }
  return out.slice(0, VALUE_BYTES);
}

async function seedNamespace(key: string, rules: number): Promise<void> {
  const ns = `/api/v1/namespaces/${key}`;
  await api('POST', '/api/v1/namespaces', { key, name: key });
  await api('POST', `${ns}/segments`, { key: 'seg', name: 'seg' });
  for (let i = 0; i < CONSTRAINTS; i += 1) {
    await api('POST', `${ns}/segments/seg/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: `p${i}`,
      operator: 'eq',
      value: value(i + 1),
    });
  }
  await api('POST', `${ns}/flags`, { key: 'f', name: 'f', enabled: true });
  const variant = await api('POST', `${ns}/flags/f/variants`, { key: 'a' });
  for (let r = 0; r < rules; r += 1) {
    const rule = await api('POST', `${ns}/flags/f/rules`, { segmentKey: 'seg', rank: r + 1 });
    await api('POST', `${ns}/flags/f/rules/${rule.id}/distributions`, {
      variantId: variant.id,
      rollout: 100,
    });
  }
}

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(path: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(`${vexil.baseUrl}${path}`, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const memoryKb = (field: 'VmRSS' | 'VmHWM'): number => {
  const status = readFileSync(`/proc/${vexil.child.pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
};

beforeAll(async () => {
  vexil = await startVexil({
    VEXIL_DB_URL: ':memory:',
    VEXIL_EVALUATION_SNAPSHOT_MAX_BYTES: String(LIMIT),
  });
  await seedNamespace('big', 35);
  await seedNamespace('bigger', 70);
});

afterAll(async () => {
  await vexil?.stop();
});

const SNAPSHOT = '/internal/v1/evaluation/snapshot/namespace/';

describe('the client snapshot of a namespace whose segment 35 rules name', () => {
  it('is built once and shared by 8 concurrent requests, gzipped for those that ask', async () => {
    const rssBefore = memoryKb('VmRSS');
    const started = performance.now();
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        get(SNAPSHOT + 'big', i % 2 === 0 ? {} : { 'accept-encoding': 'gzip' }),
      ),
    );
    const ms = performance.now() - started;
    const peakGrowthMb = (memoryKb('VmHWM') - rssBefore) / 1024;
    const plain = replies[0] as Got;
    const zipped = replies[1] as Got;
    console.log(
      `snapshot of 35 rules x 1 MB segment, 8 concurrent requests: ${Math.round(ms)} ms, ` +
        `document ${(plain.body.length / 1e6).toFixed(1)} MB (gzip ${(zipped.body.length / 1e6).toFixed(1)} MB), ` +
        `server peak memory growth ${Math.round(peakGrowthMb)} MB`,
    );
    for (const r of replies) expect(r.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['vary']).toBe('Accept-Encoding');
    expect(zipped.body.length).toBeLessThan(plain.body.length / 1.5);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    for (const r of replies) {
      const body = r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body;
      expect(body.equals(plain.body)).toBe(true);
      expect(r.headers['etag']).toBe(plain.headers['etag']);
    }
    const doc = JSON.parse(plain.body.toString('utf8')) as Json;
    expect(doc.flags[0].rules).toHaveLength(35);
    expect(plain.body.length).toBeGreaterThan(35 * CONSTRAINTS * VALUE_BYTES);
    // Eight copies of a 35 MB document would be hundreds of MB; the distinct content is 1 MB.
    expect(peakGrowthMb).toBeLessThan(150);
  });

  it('answers a namespace whose document is over the limit with a clear error, at once', async () => {
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 4 }, () => get(SNAPSHOT + 'bigger')));
    const ms = performance.now() - started;
    for (const r of replies) {
      expect(r.status).toBe(429);
      const body = JSON.parse(r.body.toString('utf8')) as Json;
      expect(body.code).toBe(8);
      expect(body.message).toMatch(
        new RegExp(
          `^the snapshot of namespace "bigger" would be \\d+ bytes, more than the limit of ${LIMIT} \\(evaluation.snapshot_max_bytes\\)$`,
        ),
      );
    }
    console.log(`over-limit snapshot (70 rules x 1 MB segment) refused in ${Math.round(ms)} ms`);
    expect(ms).toBeLessThan(5000);
  });

  it('keeps its ETag and 304 behaviour', async () => {
    const first = await get(SNAPSHOT + 'big', { 'accept-encoding': 'gzip' });
    const etag = String(first.headers['etag']);
    const again = await get(SNAPSHOT + 'big', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });
});
