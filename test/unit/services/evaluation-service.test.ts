import { InvalidArgumentError } from '../../../src/domain/errors';
import { compileNamespace } from '../../../src/domain/evaluation';
import { EvaluationService } from '../../../src/domain/services/evaluation/evaluation-service';
import type {
  NamespaceSnapshot,
  NamespaceSnapshots,
} from '../../../src/domain/services/evaluation/namespace-snapshots';
import { buildNamespace } from '../evaluation/fixtures';
import { SequentialIds, TickingClock } from '../../support/fixtures';

/** A stopwatch that advances by the given steps, one per reading. */
function steppingStopwatch(steps: readonly number[]) {
  let now = 1000;
  let i = 0;
  return {
    nowMs: () => {
      const at = now;
      now += steps[i++ % steps.length] ?? 0;
      return at;
    },
  };
}

function serviceWith(
  steps: readonly number[],
  observer?: ConstructorParameters<typeof EvaluationService>[0]['observer'],
): EvaluationService {
  const data = buildNamespace({
    flags: [
      { key: 'on', type: 'boolean', enabled: true },
      { key: 'v', variants: ['a'], rules: [{ segments: ['all'], distributions: [['a', 100]] }] },
      // Stored before ranks were validated: evaluating it meets the inconsistency.
      { key: 'broken', type: 'boolean', rollouts: [{ threshold: 50, value: true, rank: -1 }] },
      { key: 'vbroken', variants: ['a'], rules: [{ segments: ['all'], rank: -2 }] },
    ],
    segments: [{ key: 'all' }],
  });
  const snapshot: NamespaceSnapshot = {
    key: 'default',
    version: 1,
    data,
    compiled: compileNamespace(data),
    builtAtMs: 0,
  };
  const snapshots = {
    peek: () => snapshot,
    get: () => Promise.resolve(snapshot),
  } as unknown as NamespaceSnapshots;
  return new EvaluationService({
    snapshots,
    clock: new TickingClock(),
    ids: new SequentialIds(),
    stopwatch: steppingStopwatch(steps),
    maxBatchSize: 10,
    ...(observer === undefined ? {} : { observer }),
  });
}

const request = (flagKey: string) => ({
  requestId: '',
  namespaceKey: '',
  flagKey,
  entityId: 'e',
  context: {},
  reference: '',
});

describe('EvaluationService request envelope', () => {
  it('reports requestDurationMillis rounded to the microsecond', async () => {
    const service = serviceWith([0.0123456789]);
    expect((await service.boolean(request('on'))).requestDurationMillis).toBe(0.012);
    expect((await service.variant(request('v'))).requestDurationMillis).toBe(0.012);
    const batch = await service.batch({ requestId: '', reference: '', requests: [request('on')] });
    expect(batch.requestDurationMillis).toBe(0.012);
  });

  it('keeps whole microseconds exactly', async () => {
    const service = serviceWith([1.5]);
    expect((await service.boolean(request('on'))).requestDurationMillis).toBe(1.5);
  });

  it('generates a request id only when the request has none', async () => {
    const service = serviceWith([0.001]);
    expect((await service.boolean(request('on'))).requestId).toMatch(/^0{8}-/);
    expect((await service.boolean({ ...request('on'), requestId: 'given' })).requestId).toBe(
      'given',
    );
  });
});

describe('EvaluationService and stored data it cannot evaluate', () => {
  it('a single evaluation answers an invalid-argument error, not an internal one', async () => {
    const service = serviceWith([0.001]);
    await expect(service.boolean(request('broken'))).rejects.toThrow(
      new InvalidArgumentError('rollout rank: -1 detected out of order'),
    );
    await expect(service.boolean(request('broken'))).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await expect(service.variant(request('vbroken'))).rejects.toThrow(
      new InvalidArgumentError('rule rank: -2 detected out of order'),
    );
  });

  it('a batch answers an error item for that flag only and counts it as an error', async () => {
    const errors: Array<[string, string]> = [];
    const service = serviceWith([0.001], {
      evaluated: (e) => {
        if (e.error !== undefined) errors.push([e.flagKey, (e.error as Error).message]);
      },
    });
    const batch = await service.batch({
      requestId: '',
      reference: '',
      requests: [request('on'), request('broken'), request('v')],
    });
    expect(batch.responses.map((r) => r.type)).toEqual([
      'BOOLEAN_EVALUATION_RESPONSE_TYPE',
      'ERROR_EVALUATION_RESPONSE_TYPE',
      'VARIANT_EVALUATION_RESPONSE_TYPE',
    ]);
    expect(batch.responses[1]).toEqual({
      type: 'ERROR_EVALUATION_RESPONSE_TYPE',
      error: { flagKey: 'broken', namespaceKey: '', reason: 'UNKNOWN_ERROR_EVALUATION_REASON' },
    });
    expect(errors).toEqual([['broken', 'rollout rank: -1 detected out of order']]);
  });

  it('a legacy batch answers ERROR_EVALUATION_REASON for that flag only', async () => {
    const service = serviceWith([0.001]);
    const batch = await service.legacyBatchEvaluate({
      requestId: '',
      namespaceKey: '',
      excludeNotFound: false,
      requests: [
        { ...request('vbroken'), requestId: '' },
        { ...request('v'), requestId: '' },
      ],
    });
    expect(batch.responses.map((r) => [r.flagKey, r.reason, r.match, r.value])).toEqual([
      ['vbroken', 'ERROR_EVALUATION_REASON', false, ''],
      ['v', 'MATCH_EVALUATION_REASON', true, 'a'],
    ]);
  });
});
