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

function serviceWith(steps: readonly number[]): EvaluationService {
  const data = buildNamespace({
    flags: [
      { key: 'on', type: 'boolean', enabled: true },
      { key: 'v', variants: ['a'], rules: [{ segments: ['all'], distributions: [['a', 100]] }] },
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
