import { performance } from 'node:perf_hooks';
import { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import type { ManagementApi } from '../../src/domain/services/api';
import { ConfigStore } from '../../src/domain/services/config';
import {
  EvaluationService,
  NamespaceSnapshots,
  VersionReportingUnitOfWork,
  type FreshnessMode,
} from '../../src/domain/services/evaluation';
import { createManagementService } from '../../src/domain/services/management-service';
import type { EvaluationSource } from '../../src/ports';
import { SequentialIds, TickingClock } from '../support/fixtures';
import { openMigratedStorage } from '../support/migrated-storage';
import { enabledSqlBackends, type IsolatedDatabase } from '../support/databases';

/*
 * While a namespace not held yet loads whole, evaluations are answered from reads of just the
 * flags they ask for. Those answers (errors included) must be the ones the whole snapshot
 * gives, and a write committed meanwhile must show in the next evaluation.
 */

/** The source with whole-namespace loads held back until `open`, and reads counted. */
class GatedSource implements EvaluationSource {
  private release: () => void = () => undefined;
  private gate = new Promise<void>((resolve) => (this.release = resolve));
  wholeLoads = 0;
  flagReads: string[][] = [];

  constructor(private readonly inner: EvaluationSource) {}

  open(): void {
    this.release();
  }

  getNamespaceVersion(ns: string) {
    return this.inner.getNamespaceVersion(ns);
  }

  async loadNamespace(ns: string) {
    this.wholeLoads += 1;
    await this.gate;
    return this.inner.loadNamespace(ns);
  }

  loadRows(ns: string, keys: { flags: readonly string[]; segments: readonly string[] }) {
    return this.inner.loadRows!(ns, keys);
  }

  loadFlags(ns: string, flagKeys: readonly string[]) {
    this.flagReads.push([...flagKeys]);
    return this.inner.loadFlags!(ns, flagKeys);
  }
}

const NS = 'warm';
const FLAGS = ['v-on', 'v-off', 'v-plain', 'b-on', 'b-off', 'missing'];
const ENTITIES = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8'];
const CONTEXTS = [{}, { plan: 'pro' }, { plan: 'pro', age: '40' }, { plan: 'free', age: '12' }];

async function seed(api: ManagementApi): Promise<void> {
  await api.createNamespace({ key: NS, name: NS, description: '' });
  for (const [key, matchType, constraints] of [
    ['pro', 'ALL_MATCH_TYPE', [['plan', 'eq', 'pro']]],
    ['adult', 'ANY_MATCH_TYPE', [['age', 'gte', '18']]],
    ['unused', 'ALL_MATCH_TYPE', [['plan', 'eq', 'x']]],
  ] as const) {
    await api.createSegment({ namespaceKey: NS, key, name: key, description: '', matchType });
    for (const [property, operator, value] of constraints) {
      await api.createConstraint({
        namespaceKey: NS,
        segmentKey: key,
        type: property === 'age' ? 'NUMBER_COMPARISON_TYPE' : 'STRING_COMPARISON_TYPE',
        property,
        operator,
        value,
        description: '',
      });
    }
  }
  for (const [key, enabled] of [
    ['v-on', true],
    ['v-off', false],
    ['v-plain', true],
  ] as const) {
    await api.createFlag({
      namespaceKey: NS,
      key,
      name: key,
      description: '',
      enabled,
      type: 'VARIANT_FLAG_TYPE',
    });
    const a = await api.createVariant({
      namespaceKey: NS,
      flagKey: key,
      key: 'a',
      name: '',
      description: '',
      attachment: '{"n":1}',
    });
    const b = await api.createVariant({
      namespaceKey: NS,
      flagKey: key,
      key: 'b',
      name: '',
      description: '',
      attachment: '',
    });
    if (key === 'v-plain') continue;
    await api.updateFlag({
      namespaceKey: NS,
      key,
      name: key,
      description: '',
      enabled,
      defaultVariantId: b.id,
    });
    const both = await api.createRule({
      namespaceKey: NS,
      flagKey: key,
      rank: 1,
      segmentKey: '',
      segmentKeys: ['pro', 'adult'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
    });
    await api.createDistribution({
      namespaceKey: NS,
      flagKey: key,
      ruleId: both.id,
      variantId: a.id,
      rollout: 50,
    });
    await api.createDistribution({
      namespaceKey: NS,
      flagKey: key,
      ruleId: both.id,
      variantId: b.id,
      rollout: 30,
    });
    await api.createRule({
      namespaceKey: NS,
      flagKey: key,
      rank: 2,
      segmentKey: '',
      segmentKeys: ['pro', 'adult'],
      segmentOperator: 'OR_SEGMENT_OPERATOR',
    });
  }
  for (const [key, enabled] of [
    ['b-on', true],
    ['b-off', false],
  ] as const) {
    await api.createFlag({
      namespaceKey: NS,
      key,
      name: key,
      description: '',
      enabled,
      type: 'BOOLEAN_FLAG_TYPE',
    });
    await api.createRollout({
      namespaceKey: NS,
      flagKey: key,
      rank: 1,
      description: '',
      segment: {
        segmentKey: '',
        segmentKeys: ['adult'],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        value: !enabled,
      },
    });
    await api.createRollout({
      namespaceKey: NS,
      flagKey: key,
      rank: 2,
      description: '',
      threshold: { percentage: 40, value: enabled },
    });
  }
}

/** Without what differs between two calls of the same evaluation (ids, times). */
function stable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (k, v: unknown) =>
      k === 'requestId' || k === 'timestamp' || k === 'requestDurationMillis' ? undefined : v,
    ),
  );
}

const outcome = async (fn: () => Promise<unknown>): Promise<unknown> => {
  try {
    return stable(await fn());
  } catch (err) {
    return err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err);
  }
};

const request = (namespaceKey: string, flagKey: string, entityId: string, context: object) => ({
  requestId: '',
  namespaceKey,
  flagKey,
  entityId,
  context: context as Record<string, string>,
  reference: '',
});

/** Every kind of answer the service gives for the namespace: all started at once. */
function answers(service: EvaluationService, ns = NS): Promise<unknown[]> {
  const calls: Array<Promise<unknown>> = [];
  for (const flagKey of FLAGS) {
    for (const [i, entityId] of ENTITIES.entries()) {
      const req = request(ns, flagKey, entityId, CONTEXTS[i % CONTEXTS.length] as object);
      calls.push(outcome(() => service.variant(req)));
      calls.push(outcome(() => service.boolean(req)));
      calls.push(outcome(() => service.legacyEvaluate(req)));
    }
    calls.push(outcome(() => service.explain(request(ns, flagKey, 'u1', { plan: 'pro' }))));
  }
  const batch = FLAGS.flatMap((flagKey) =>
    ENTITIES.map((e, i) => request(ns, flagKey, e, CONTEXTS[i % CONTEXTS.length] as object)),
  );
  calls.push(outcome(() => service.batch({ requestId: '', requests: batch, reference: '' })));
  for (const excludeNotFound of [false, true]) {
    calls.push(
      outcome(() =>
        service.legacyBatchEvaluate({
          requestId: '',
          namespaceKey: ns,
          requests: batch.filter((r) => r.flagKey.startsWith('v-') || r.flagKey === 'missing'),
          excludeNotFound,
        }),
      ),
    );
  }
  return Promise.all(calls);
}

describe.each(enabledSqlBackends())('evaluations while a namespace warms up ($name)', (backend) => {
  let db: IsolatedDatabase;
  let storage: SqlStorage;
  let api: ManagementApi;
  /** The instance whose writes the management service announces. */
  let current: NamespaceSnapshots | undefined;

  beforeAll(async () => {
    const opened = await openMigratedStorage('warmup', backend);
    ({ db, storage } = opened);
    const { clock, ids } = opened;
    const reporting = new VersionReportingUnitOfWork(storage.unitOfWork, (ns, version) =>
      current?.committed(ns, version),
    );
    api = createManagementService({
      config: new ConfigStore({ unitOfWork: reporting, clock, ids }),
      notifier: {
        namespaceChanged: (ns) => current?.invalidate(ns),
        writing: (ns, touched) => current?.writing(ns, touched) ?? (() => undefined),
      },
    });
    await seed(api);
  });

  afterAll(async () => {
    current?.close();
    await storage?.close();
    await db?.drop();
  });

  const cold = (mode: FreshnessMode, source: EvaluationSource) => {
    current?.close();
    const snapshots = new NamespaceSnapshots(source, {
      mode,
      stopwatch: { nowMs: () => performance.now() },
      pause: () => new Promise((resolve) => setImmediate(resolve)),
      delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      ...(mode === 'cached'
        ? { caching: { ttlMs: 60_000, scheduler: { every: () => () => undefined } } }
        : {}),
    });
    current = snapshots;
    const service = new EvaluationService({
      snapshots,
      clock: new TickingClock(),
      ids: new SequentialIds(),
      stopwatch: { nowMs: () => performance.now() },
      maxBatchSize: 1000,
    });
    return { snapshots, service };
  };

  /** The answers of a snapshot loaded whole before anything is evaluated. */
  const wholeAnswers = async (ns = NS): Promise<unknown[]> => {
    const { snapshots, service } = cold('notified', storage.evaluationSource);
    expect((await snapshots.get(ns))?.key).toBe(ns === NS ? NS : undefined);
    return answers(service, ns);
  };

  it.each(['notified', 'version-check', 'cached'] as const)(
    'answer as the whole snapshot does, errors included (%s)',
    async (mode) => {
      const expected = await wholeAnswers();
      const source = new GatedSource(storage.evaluationSource);
      const { snapshots, service } = cold(mode, source);
      const warm = await answers(service);
      // Answered while the whole load was held back (it has no other way in): from the flags' rows.
      expect(source.flagReads.length).toBeGreaterThan(0);
      expect(snapshots.peek(NS)).toBeUndefined();
      expect(warm).toEqual(expected);
      expect(warm).toContain(`NotFoundError: flag "${NS}/missing" not found`);
      source.open();
      await snapshots.get(NS);
      expect(await answers(service)).toEqual(expected);
    },
  );

  it('reads a flag asked for concurrently once, and a batch in one read', async () => {
    const source = new GatedSource(storage.evaluationSource);
    const { service } = cold('notified', source);
    await Promise.all(
      ENTITIES.map((e) => outcome(() => service.variant(request(NS, 'v-on', e, {})))),
    );
    expect(source.flagReads).toEqual([['v-on']]);
    await service.batch({
      requestId: '',
      reference: '',
      requests: ['v-on', 'b-on', 'missing', 'v-off'].map((f) => request(NS, f, 'u1', {})),
    });
    // v-on was read already; the rest of the batch in one read.
    expect(source.flagReads).toEqual([['v-on'], ['b-on', 'missing', 'v-off']]);
    source.open();
  });

  it('reads the flags asked for while a read runs together, in the read after it', async () => {
    const expected = await wholeAnswers();
    const source = new GatedSource(storage.evaluationSource);
    const { service } = cold('notified', source);
    const flags = ['v-on', 'v-off', 'b-on', 'missing', 'v-plain'];
    const warm = await Promise.all(
      flags.map((f) => outcome(() => service.variant(request(NS, f, 'u1', {})))),
    );
    expect(source.flagReads).toEqual([['v-on'], ['v-off', 'b-on', 'missing', 'v-plain']]);
    // The same answers as the whole snapshot's first items per flag (u1, no context).
    const per = ENTITIES.length * 3 + 1;
    expect(warm).toEqual(flags.map((f) => expected[FLAGS.indexOf(f) * per]));
    source.open();
  });

  it('answers for a namespace that does not exist as the whole snapshot does', async () => {
    const expected = await wholeAnswers('nowhere');
    const source = new GatedSource(storage.evaluationSource);
    const { service } = cold('notified', source);
    const warm = await answers(service, 'nowhere');
    expect(warm).toEqual(expected);
    expect(warm).toContain('NotFoundError: flag "nowhere/v-on" not found');
    source.open();
  });

  it.each(['notified', 'version-check', 'cached'] as const)(
    'shows a write committed during warm-up in the next evaluation (%s)',
    async (mode) => {
      const source = new GatedSource(storage.evaluationSource);
      const { snapshots, service } = cold(mode, source);
      const req = request(NS, 'v-plain', 'u1', {});
      expect(await service.variant(req)).toMatchObject({ reason: 'UNKNOWN_EVALUATION_REASON' });
      await api.updateFlag({
        namespaceKey: NS,
        key: 'v-plain',
        name: 'v-plain',
        description: '',
        enabled: false,
        defaultVariantId: '',
      });
      expect(await service.variant(req)).toMatchObject({
        reason: 'FLAG_DISABLED_EVALUATION_REASON',
      });
      await api.updateFlag({
        namespaceKey: NS,
        key: 'v-plain',
        name: 'v-plain',
        description: '',
        enabled: true,
        defaultVariantId: '',
      });
      expect(await service.variant(req)).toMatchObject({ reason: 'UNKNOWN_EVALUATION_REASON' });
      expect(snapshots.peek(NS)).toBeUndefined();
      source.open();
      await snapshots.get(NS);
      expect(await answers(service)).toEqual(await wholeAnswers());
    },
  );

  it('shows a write of another process in the next evaluation (version-check)', async () => {
    // Writes this instance hears nothing of: only the version tells.
    const elsewhere = createManagementService({
      config: new ConfigStore({
        unitOfWork: storage.unitOfWork,
        clock: new TickingClock(),
        ids: new SequentialIds(),
      }),
      notifier: { namespaceChanged: () => undefined, writing: () => () => undefined },
    });
    const source = new GatedSource(storage.evaluationSource);
    const { service } = cold('version-check', source);
    const req = request(NS, 'v-plain', 'u1', {});
    const set = (enabled: boolean) =>
      elsewhere.updateFlag({
        namespaceKey: NS,
        key: 'v-plain',
        name: 'v-plain',
        description: '',
        enabled,
        defaultVariantId: '',
      });
    expect(await service.variant(req)).toMatchObject({ reason: 'UNKNOWN_EVALUATION_REASON' });
    await set(false);
    expect(await service.variant(req)).toMatchObject({
      reason: 'FLAG_DISABLED_EVALUATION_REASON',
    });
    await set(true);
    expect(await service.variant(req)).toMatchObject({ reason: 'UNKNOWN_EVALUATION_REASON' });
    expect(source.flagReads).toEqual([['v-plain'], ['v-plain'], ['v-plain']]);
    source.open();
  });

  it('falls back to the whole load when reading single flags fails', async () => {
    const req = request(NS, 'v-on', 'u3', { plan: 'pro', age: '40' });
    const { service: whole } = cold('notified', storage.evaluationSource);
    const expected = stable(await whole.variant(req));
    const source = new GatedSource(storage.evaluationSource);
    source.loadFlags = () => Promise.reject(new Error('no single flags today'));
    const { service } = cold('notified', source);
    const answer = service.variant(req);
    setTimeout(() => source.open(), 20);
    expect(stable(await answer)).toEqual(expected);
    expect(expected).toMatchObject({ flagKey: 'v-on', reason: 'MATCH_EVALUATION_REASON' });
    expect(source.wholeLoads).toBe(1);
  });
});
