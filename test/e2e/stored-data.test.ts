import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import { clientFor, unary } from '../unit/grpc/grpc-test-support';

/*
 * Nothing stored makes an evaluation fail: values that could not be evaluated are refused on
 * the way in (REST and gRPC alike), and data that got into the database anyway (written by an
 * older release, or by hand) answers an error for that flag only, never a 500.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The slice of better-sqlite3 used here (the package ships no types). */
interface SqliteFile {
  prepare(sql: string): { run(...params: unknown[]): unknown };
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require('better-sqlite3') as new (path: string) => SqliteFile;

let dir: string;
let vexil: VexilProcess;
let flipt: ReturnType<typeof clientFor>;
let evaluation: ReturnType<typeof clientFor>;

async function call(method: string, path: string, body?: unknown): Promise<[number, Json]> {
  const res = await fetch(vexil.baseUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return [res.status, text === '' ? {} : (JSON.parse(text) as Json)];
}

const grpcError = (p: Promise<unknown>): Promise<{ code: number; details: string }> =>
  p.then(
    () => ({ code: 0, details: 'resolved' }),
    (err: grpc.ServiceError) => ({ code: err.code, details: err.details }),
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vexil-stored-'));
  vexil = await startVexil({ VEXIL_DB_URL: join(dir, 'vexil.db') });
  flipt = clientFor('flipt.Flipt', vexil.grpcPort);
  evaluation = clientFor('flipt.evaluation.EvaluationService', vexil.grpcPort);
  for (const flag of [
    { key: 'b', name: 'b', type: 'BOOLEAN_FLAG_TYPE', enabled: true },
    { key: 'ok', name: 'ok', type: 'BOOLEAN_FLAG_TYPE', enabled: true },
    { key: 'v', name: 'v', type: 'VARIANT_FLAG_TYPE', enabled: true },
  ]) {
    expect((await call('POST', '/api/v1/namespaces/default/flags', flag))[0]).toBe(200);
  }
});

afterAll(async () => {
  flipt?.close();
  evaluation?.close();
  await vexil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('values that cannot be evaluated are refused on the way in', () => {
  it.each([0, -1])('a rollout of rank %i is refused over REST, as a rule is', async (rank) => {
    const [status, body] = await call('POST', '/api/v1/namespaces/default/flags/b/rollouts', {
      rank,
      threshold: { percentage: 50, value: true },
    });
    expect([status, body]).toEqual([
      400,
      { code: 3, message: 'invalid field rank: must be greater than 0', details: [] },
    ]);
  });

  it('a rollout of rank -1 is refused over gRPC', async () => {
    const err = await grpcError(
      unary(flipt, 'CreateRollout', {
        namespaceKey: 'default',
        flagKey: 'b',
        rank: -1,
        threshold: { percentage: 50, value: true },
      }),
    );
    expect(err).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'invalid field rank: must be greater than 0',
    });
  });

  it('a quoted "NaN" percentage or rollout is refused with the range message', async () => {
    const [status, body] = await call(
      'POST',
      '/api/v1/namespaces/default/flags/b/rollouts',
      '{"rank":1,"threshold":{"percentage":"NaN","value":true}}',
    );
    expect([status, body.message]).toEqual([
      400,
      'invalid field threshold.percentage: must be within range [0, 100]',
    ]);

    const [, variant] = await call('POST', '/api/v1/namespaces/default/flags/v/variants', {
      key: 'a',
    });
    await call('POST', '/api/v1/namespaces/default/segments', { key: 'all', name: 'all' });
    const [, rule] = await call('POST', '/api/v1/namespaces/default/flags/v/rules', {
      segmentKey: 'all',
      rank: 1,
    });
    const path = `/api/v1/namespaces/default/flags/v/rules/${rule.id}/distributions`;
    const [dStatus, dBody] = await call(
      'POST',
      path,
      `{"variantId":"${variant.id}","rollout":"NaN"}`,
    );
    expect([dStatus, dBody.message]).toEqual([
      400,
      "invalid field rollout: must be greater than or equal to '0'",
    ]);
    // Over gRPC a float field carries NaN as such.
    const err = await grpcError(
      unary(flipt, 'CreateDistribution', {
        namespaceKey: 'default',
        flagKey: 'v',
        ruleId: rule.id,
        variantId: variant.id,
        rollout: NaN,
      }),
    );
    expect(err).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: "invalid field rollout: must be greater than or equal to '0'",
    });
    const [, rules] = await call('GET', '/api/v1/namespaces/default/flags/v/rules');
    expect(rules.rules[0].distributions).toEqual([]);
  });
});

describe('stored data the evaluator cannot follow', () => {
  beforeAll(async () => {
    const [status, rollout] = await call('POST', '/api/v1/namespaces/default/flags/b/rollouts', {
      rank: 1,
      threshold: { percentage: 50, value: true },
    });
    expect(status).toBe(200);
    await call('POST', '/api/v1/namespaces/default/segments/all/constraints', {
      type: 'STRING_COMPARISON_TYPE',
      property: 'p',
      operator: 'eq',
      value: 'x',
    });
    // As an older release, or an operator with a SQL console, could have left it.
    const db = new Database(join(dir, 'vexil.db'));
    db.prepare('UPDATE rollouts SET rank = -1 WHERE id = ?').run(rollout.id);
    db.prepare('UPDATE constraints SET type = 0').run();
    db.close();
    // Any write in the namespace makes the instance read the namespace again.
    await call('POST', '/api/v1/namespaces/default/flags', { key: 'touch', name: 'touch' });
  });

  it('a single evaluation answers 400 with what is wrong, never a 500', async () => {
    const [status, body] = await call('POST', '/evaluate/v1/boolean', {
      flagKey: 'b',
      entityId: 'e',
    });
    expect([status, body]).toEqual([
      400,
      { code: 3, message: 'rollout rank: -1 detected out of order', details: [] },
    ]);
    const err = await grpcError(
      unary(evaluation, 'Boolean', { namespaceKey: 'default', flagKey: 'b', entityId: 'e' }),
    );
    expect(err).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'rollout rank: -1 detected out of order',
    });
    const [vStatus, vBody] = await call('POST', '/evaluate/v1/variant', {
      flagKey: 'v',
      entityId: 'e',
    });
    expect([vStatus, vBody.message]).toEqual([400, 'unknown constraint type']);
  });

  it('a batch answers an error item for those flags and evaluates the others', async () => {
    const requests = ['b', 'ok', 'v'].map((flagKey) => ({ flagKey, entityId: 'e' }));
    const [status, body] = await call('POST', '/evaluate/v1/batch', { requests });
    expect(status).toBe(200);
    expect(body.responses.map((r: Json) => r.type)).toEqual([
      'ERROR_EVALUATION_RESPONSE_TYPE',
      'BOOLEAN_EVALUATION_RESPONSE_TYPE',
      'ERROR_EVALUATION_RESPONSE_TYPE',
    ]);
    expect(body.responses[0].errorResponse).toEqual({
      flagKey: 'b',
      namespaceKey: '',
      reason: 'UNKNOWN_ERROR_EVALUATION_REASON',
    });
    expect(body.responses[1].booleanResponse.enabled).toBe(true);

    const over = await unary<Json>(evaluation, 'Batch', { requests });
    expect(over.responses.map((r: Json) => r.type)).toEqual([
      'ERROR_EVALUATION_RESPONSE_TYPE',
      'BOOLEAN_EVALUATION_RESPONSE_TYPE',
      'ERROR_EVALUATION_RESPONSE_TYPE',
    ]);

    const [lStatus, legacy] = await call('POST', '/api/v1/batch-evaluate', {
      requests: [
        { flagKey: 'v', entityId: 'e' },
        { flagKey: 'missing', entityId: 'e' },
      ],
      excludeNotFound: true,
    });
    expect(lStatus).toBe(200);
    expect(legacy.responses.map((r: Json) => [r.flagKey, r.reason])).toEqual([
      ['v', 'ERROR_EVALUATION_REASON'],
    ]);
  });

  it('the log names each flag once, not once per request', () => {
    const warnings = vexil.lines.filter((l) =>
      l.includes('flag configuration cannot be evaluated'),
    );
    expect(warnings.map((l) => (JSON.parse(l) as Json).flagKey).sort()).toEqual(['b', 'v']);
    expect(vexil.lines.some((l) => l.includes('"status":500'))).toBe(false);
  });
});
