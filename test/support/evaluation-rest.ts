import { startVexil, type VexilProcess } from './vexil-process';
import { seedConfiguration, type Json } from './seed-config';

/*
 * A running Vexil (embedded SQLite) with the seeded configuration in `default` and `staging`,
 * and a client for its evaluation routes, for the evaluation-rest*.test.ts files.
 */

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;

export interface EvaluationRest {
  /** The process's base URL, once it has started. */
  baseUrl(): string;
  post(path: string, body: unknown): Promise<{ status: number; body: Json }>;
  /** POSTs and expects 200, answering the body. */
  ok(path: string, body: unknown): Promise<Json>;
}

/** Starts the process before the file's tests (stops it after) and returns its client. */
export function useSeededVexil(): EvaluationRest {
  let vexil: VexilProcess | undefined;
  beforeAll(async () => {
    vexil = await startVexil({ VEXIL_EVALUATION_MAX_BATCH_SIZE: '5' });
    await seedConfiguration(vexil.baseUrl);
    await seedConfiguration(vexil.baseUrl, 'staging');
  });
  afterAll(async () => {
    await vexil?.stop();
  });

  async function post(path: string, body: unknown): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${vexil!.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  }
  return {
    baseUrl: () => vexil!.baseUrl,
    post,
    async ok(path, body) {
      const res = await post(path, body);
      expect({ path, status: res.status, body: res.body }).toMatchObject({ status: 200 });
      return res.body;
    },
  };
}

/** The envelope every evaluation answer carries: request id, timestamp, duration. */
export function expectEnvelope(r: Json, requestId?: string): void {
  if (requestId === undefined) expect(r.requestId).toMatch(UUID_V4);
  else expect(r.requestId).toBe(requestId);
  expect(r.timestamp).toMatch(RFC3339_UTC);
  expect(Math.abs(Date.parse(r.timestamp) - Date.now())).toBeLessThan(60_000);
  expect(typeof r.requestDurationMillis).toBe('number');
  expect(r.requestDurationMillis).toBeGreaterThanOrEqual(0);
}
