import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import {
  compileNamespace,
  evaluateBoolean,
  evaluateVariant,
  type CompiledNamespace,
} from '../../src/domain/evaluation';
import type { ManagementApi } from '../../src/domain/services/api';
import { ConfigStore } from '../../src/domain/services/config';
import {
  NamespaceSnapshots,
  VersionReportingUnitOfWork,
} from '../../src/domain/services/evaluation';
import { createManagementService } from '../../src/domain/services/management-service';
import type { NamespaceData } from '../../src/domain/model';
import { openMigratedStorage } from '../support/migrated-storage';
import { type IsolatedDatabase } from '../support/databases';

/*
 * Snapshots updated in place after writes (reading only the flags and segments a write
 * touched) evaluate exactly as a snapshot compiled from a whole read of the database, after
 * any sequence of writes: a property over random write sequences on a real SQLite database.
 */

const FLAGS = ['f0', 'f1', 'f2'];
const SEGMENTS = ['s0', 's1'];
const VARIANTS = ['a', 'b', 'c'];
const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T;

/** One write, its targets chosen by index among what exists when it runs. */
interface Op {
  readonly kind: number;
  readonly a: number;
  readonly b: number;
  readonly c: number;
  readonly on: boolean;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.nat(15),
  a: fc.nat(50),
  b: fc.nat(50),
  c: fc.nat(100),
  on: fc.boolean(),
});

/** Runs one write; writes the domain refuses (a missing flag, a rank taken) are part of the game. */
async function apply(api: ManagementApi, ns: string, op: Op): Promise<void> {
  const flagKey = pick(FLAGS, op.a);
  const segmentKey = pick(SEGMENTS, op.b);
  const flag = await api
    .getFlag({ namespaceKey: ns, key: flagKey, reference: '' })
    .catch(() => undefined);
  const variants = flag?.variants ?? [];
  const rules = flag
    ? (
        await api.listRules({
          namespaceKey: ns,
          flagKey,
          limit: 100,
          offset: 0,
          pageToken: '',
          reference: '',
        })
      ).items
    : [];
  const rollouts = flag
    ? (
        await api.listRollouts({
          namespaceKey: ns,
          flagKey,
          limit: 100,
          offset: 0,
          pageToken: '',
          reference: '',
        })
      ).items
    : [];
  const segs = {
    segmentKey: '',
    segmentKeys: [segmentKey, pick(SEGMENTS, op.c)],
    segmentOperator: op.on ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR',
  } as const;
  switch (op.kind) {
    case 0:
      await api.createFlag({
        namespaceKey: ns,
        key: flagKey,
        name: flagKey,
        description: '',
        enabled: op.on,
        type: op.c % 2 === 0 ? 'VARIANT_FLAG_TYPE' : 'BOOLEAN_FLAG_TYPE',
      });
      return;
    case 1:
      await api.updateFlag({
        namespaceKey: ns,
        key: flagKey,
        name: flagKey,
        description: `d${op.c}`,
        enabled: op.on,
        defaultVariantId: op.on && variants.length > 0 ? pick(variants, op.c).id : '',
      });
      return;
    case 2:
      await api.deleteFlag({ namespaceKey: ns, key: flagKey });
      return;
    case 3:
      await api.createVariant({
        namespaceKey: ns,
        flagKey,
        key: pick(VARIANTS, op.b),
        name: '',
        description: '',
        attachment: op.on ? `{"n":${op.c}}` : '',
      });
      return;
    case 4:
      if (variants.length > 0)
        await api.deleteVariant({ namespaceKey: ns, flagKey, id: pick(variants, op.b).id });
      return;
    case 5:
      await api.createSegment({
        namespaceKey: ns,
        key: segmentKey,
        name: segmentKey,
        description: '',
        matchType: op.on ? 'ALL_MATCH_TYPE' : 'ANY_MATCH_TYPE',
      });
      return;
    case 6:
      await api.updateSegment({
        namespaceKey: ns,
        key: segmentKey,
        name: segmentKey,
        description: 'u',
        matchType: op.on ? 'ALL_MATCH_TYPE' : 'ANY_MATCH_TYPE',
      });
      return;
    case 7:
      await api.deleteSegment({ namespaceKey: ns, key: segmentKey });
      return;
    case 8:
      await api.createConstraint({
        namespaceKey: ns,
        segmentKey,
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: op.on ? 'eq' : 'neq',
        value: `p${op.c % 3}`,
        description: '',
      });
      return;
    case 9: {
      const segment = await api
        .getSegment({ namespaceKey: ns, key: segmentKey, reference: '' })
        .catch(() => undefined);
      const constraint = segment?.constraints[0];
      if (constraint !== undefined)
        await api.deleteConstraint({ namespaceKey: ns, segmentKey, id: constraint.id });
      return;
    }
    case 10:
      await api.createRule({ namespaceKey: ns, flagKey, rank: rules.length + 1, ...segs });
      return;
    case 11:
      if (rules.length > 0)
        await api.deleteRule({ namespaceKey: ns, flagKey, id: pick(rules, op.b).id });
      return;
    case 12:
      if (rules.length > 0 && variants.length > 0) {
        await api.createDistribution({
          namespaceKey: ns,
          flagKey,
          ruleId: pick(rules, op.b).id,
          variantId: pick(variants, op.c).id,
          rollout: op.c,
        });
      }
      return;
    case 13:
      await api.createRollout({
        namespaceKey: ns,
        flagKey,
        rank: rollouts.length + 1,
        description: '',
        ...(op.on
          ? { threshold: { percentage: op.c, value: op.c % 2 === 0 } }
          : { segment: { ...segs, value: op.c % 2 === 0 } }),
      });
      return;
    case 14:
      if (rules.length > 1)
        await api.orderRules({
          namespaceKey: ns,
          flagKey,
          ruleIds: rules.map((r) => r.id).reverse(),
        });
      return;
    default:
      if (rollouts.length > 0)
        await api.deleteRollout({ namespaceKey: ns, flagKey, id: pick(rollouts, op.b).id });
  }
}

/**
 * Something to write to from the start: a variant flag with a rule on a segment with a
 * constraint and a 50% distribution, a boolean flag with a rollout on the segment.
 */
const START: readonly Op[] = [
  { kind: 0, a: 0, b: 0, c: 0, on: true },
  { kind: 0, a: 1, b: 0, c: 1, on: true },
  { kind: 5, a: 0, b: 0, c: 0, on: false },
  { kind: 8, a: 0, b: 0, c: 0, on: true },
  { kind: 3, a: 0, b: 0, c: 0, on: false },
  { kind: 3, a: 0, b: 1, c: 0, on: true },
  { kind: 10, a: 0, b: 0, c: 0, on: false },
  { kind: 12, a: 0, b: 0, c: 50, on: false },
  { kind: 13, a: 1, b: 0, c: 0, on: false },
];

/** Every answer the namespace gives, for a few entities and contexts, errors included. */
function answers(ns: CompiledNamespace): unknown[] {
  const out: unknown[] = [];
  for (const flagKey of FLAGS) {
    for (let e = 0; e < 6; e++) {
      const req = {
        namespaceKey: ns.key,
        flagKey,
        entityId: `user-${e}`,
        context: { plan: `p${e % 3}` },
      };
      for (const evaluate of [evaluateVariant, evaluateBoolean]) {
        try {
          out.push(evaluate(ns, req));
        } catch (err) {
          out.push(err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err));
        }
      }
    }
  }
  return out;
}

/** The data with rules and rollouts grouped by flag: their order across flags means nothing. */
function normalized(data: NamespaceData): unknown {
  const byFlag = <T extends { flagKey: string }>(items: readonly T[]) =>
    FLAGS.map((k) => items.filter((i) => i.flagKey === k));
  return { ...data, rules: byFlag(data.rules), rollouts: byFlag(data.rollouts) };
}

describe('snapshots updated in place after writes (SQLite)', () => {
  let db: IsolatedDatabase;
  let storage: SqlStorage;
  let snapshots: NamespaceSnapshots;
  let api: ManagementApi;
  let patches = 0;
  let rebuilds = 0;

  beforeAll(async () => {
    const opened = await openMigratedStorage('incremental');
    ({ db, storage } = opened);
    const { clock, ids } = opened;
    snapshots = new NamespaceSnapshots(storage.evaluationSource, {
      mode: 'notified',
      stopwatch: { nowMs: () => performance.now() },
      pause: () => new Promise((resolve) => setImmediate(resolve)),
      delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      observer: {
        patched: () => (patches += 1),
        rebuilt: () => (rebuilds += 1),
      },
    });
    const reporting = new VersionReportingUnitOfWork(storage.unitOfWork, (ns, version) =>
      snapshots.committed(ns, version),
    );
    api = createManagementService({
      config: new ConfigStore({ unitOfWork: reporting, clock, ids }),
      notifier: {
        namespaceChanged: (ns) => snapshots.invalidate(ns),
        writing: (ns, touched) => snapshots.writing(ns, touched),
      },
    });
  });

  afterAll(async () => {
    snapshots?.close();
    await storage?.close();
    await db?.drop();
  });

  let run = 0;
  it('evaluate exactly as a whole rebuild after random write sequences', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 5, maxLength: 40 }),
        fc.boolean(),
        async (ops, readEach) => {
          const ns = `ns${run++}`;
          await api.createNamespace({ key: ns, name: ns, description: '' });
          await snapshots.get(ns);
          for (const op of [...START, ...ops]) {
            await apply(api, ns, op).catch(() => undefined);
            // Reads between writes or only at the end: pending changes pile up in the second case.
            if (readEach) await snapshots.get(ns);
          }
          const held = await snapshots.get(ns);
          const whole = await storage.evaluationSource.loadNamespace(ns);
          if (held === undefined || whole === undefined) throw new Error('namespace missing');
          const full = compileNamespace(whole);
          expect(held.version).toBe(whole.version);
          expect(answers(held.compiled)).toEqual(answers(full));
          expect([...held.compiled.flags.keys()]).toEqual([...full.flags.keys()]);
          expect(normalized(held.data)).toEqual(normalized(whole));
        },
      ),
      { numRuns: 60 },
    );
    // The property is about updates in place: after its first load, no namespace was read whole.
    expect(rebuilds).toBe(run);
    expect(patches).toBeGreaterThanOrEqual(run);
  }, 120_000);
});
