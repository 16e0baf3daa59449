import { ALL, segmentRequest, uniqueKey } from '../support/fixtures';
import type { StorageContractContext, StoreUnderTest } from './storage-contract-context';

/** The storage contract on the evaluation source: namespace versions and whole-namespace reads. */
export function describeEvaluationSourceContract(c: StorageContractContext): void {
  const {
    createFlag,
    createSegment,
    createVariant,
    createRule,
    thresholdRollout,
    segmentRollout,
    version,
  } = c;
  let store: StoreUnderTest;
  let ns: string;
  beforeEach(() => {
    ({ store, ns } = c);
  });

  describe('versions', () => {
    it('moves the version forward on every write, even one that changes nothing', async () => {
      const writes: Array<() => Promise<unknown>> = [
        () => createFlag('f1'),
        () => createVariant('f1', 'v1'),
        () => createSegment('s1'),
        () =>
          store.createConstraint({
            namespaceKey: ns,
            segmentKey: 's1',
            type: 'STRING_COMPARISON_TYPE',
            property: 'p',
            operator: 'eq',
            value: 'x',
            description: '',
          }),
        () => createRule('f1', ['s1'], 1),
        () => createFlag('b1', { type: 'BOOLEAN_FLAG_TYPE' }),
        () => thresholdRollout('b1', 1),
        () => store.updateNamespace({ key: ns, name: 'again', description: '' }),
        () => store.deleteFlag({ namespaceKey: ns, key: 'ghost' }),
        () => store.deleteSegment({ namespaceKey: ns, key: 'ghost' }),
        () => store.deleteRule({ namespaceKey: ns, flagKey: 'f1', id: 'ghost' }),
        () => store.orderRollouts({ namespaceKey: ns, flagKey: 'b1', rolloutIds: ['x', 'y'] }),
        () => store.deleteFlag({ namespaceKey: ns, key: 'f1' }),
      ];
      let last = await version();
      for (const write of writes) {
        await write();
        const now = await version();
        expect(now).toBeGreaterThan(last);
        last = now;
      }
    });

    it('keeps the version on reads and on failed writes', async () => {
      await createFlag('f1');
      const before = await version();
      await store.getFlag(ns, 'f1');
      await store.listFlags({ ...ALL, namespaceKey: ns });
      await store.loadNamespace(ns);
      await store.getNamespace(ns);
      await expect(createFlag('f1')).rejects.toBeDefined();
      await expect(createVariant('ghost', 'v')).rejects.toBeDefined();
      await expect(store.updateSegment(segmentRequest(ns, 'ghost'))).rejects.toBeDefined();
      expect(await version()).toBe(before);
    });

    it('leaves other namespaces alone', async () => {
      const other = uniqueKey('other');
      await store.createNamespace({ key: other, name: other, description: '' });
      const before = await version(other);
      await createFlag('f1');
      expect(await version(other)).toBe(before);
    });

    it('has no version for an unknown namespace', async () => {
      expect(await store.getNamespaceVersion(uniqueKey('nobody'))).toBeUndefined();
    });
  });

  describe('loadNamespace', () => {
    it('reads the whole namespace in order, at its current version', async () => {
      await createFlag('f2');
      await createFlag('f1');
      await createFlag('b1', { type: 'BOOLEAN_FLAG_TYPE' });
      const v1 = await createVariant('f1', 'v1', '{"a":1}');
      const v2 = await createVariant('f1', 'v2');
      await store.updateFlag({
        namespaceKey: ns,
        key: 'f1',
        name: 'f1',
        description: '',
        enabled: true,
        defaultVariantId: v2.id,
      });
      await createSegment('s2');
      await createSegment('s1', { matchType: 'ANY_MATCH_TYPE' });
      const c = await store.createConstraint({
        namespaceKey: ns,
        segmentKey: 's1',
        type: 'NUMBER_COMPARISON_TYPE',
        property: 'age',
        operator: 'gte',
        value: '18',
        description: '',
      });
      const f1r2 = await createRule('f1', ['s1'], 2);
      const f1r1 = await createRule('f1', ['s1', 's2'], 1);
      const f2r1 = await createRule('f2', ['s2'], 1);
      const d = await store.createDistribution({
        namespaceKey: ns,
        flagKey: 'f1',
        ruleId: f1r1.id,
        variantId: v1.id,
        rollout: 100,
      });
      const ro2 = await segmentRollout('b1', 2, ['s1']);
      const ro1 = await thresholdRollout('b1', 1, 25);

      const data = await store.loadNamespace(ns);
      expect(data).toBeDefined();
      expect(data!.namespace).toEqual(await store.getNamespace(ns));
      expect(data!.version).toBe(await version());
      expect(data!.flags.map((f) => f.key)).toEqual(['f2', 'f1', 'b1']);
      expect(data!.flags[1]).toEqual(await store.getFlag(ns, 'f1'));
      expect(data!.flags[1]!.variants).toEqual([v1, v2]);
      expect(data!.flags[1]!.defaultVariant).toEqual(v2);
      expect(data!.segments.map((s) => s.key)).toEqual(['s2', 's1']);
      expect(data!.segments[1]!.constraints).toEqual([c]);
      const ruleIds = data!.rules.map((r) => r.id);
      expect(ruleIds.filter((id) => id !== f2r1.id)).toEqual([f1r1.id, f1r2.id]);
      expect(ruleIds).toContain(f2r1.id);
      expect(data!.rules.find((r) => r.id === f1r1.id)!.distributions).toEqual([d]);
      expect(data!.rollouts.map((r) => r.id)).toEqual([ro1.id, ro2.id]);
      expect(data!.rollouts[1]).toEqual(ro2);
    });

    it('is undefined for an unknown namespace', async () => {
      expect(await store.loadNamespace(uniqueKey('nobody'))).toBeUndefined();
    });
  });

  describe('loadFlags', () => {
    it('reads the flags asked for with the segments they use, at the current version', async () => {
      await createFlag('f1');
      await createFlag('f2');
      await createFlag('b1', { type: 'BOOLEAN_FLAG_TYPE' });
      await createVariant('f1', 'v1');
      await createSegment('s1');
      await createSegment('s2');
      await createSegment('s3');
      await createSegment('s4');
      await store.createConstraint({
        namespaceKey: ns,
        segmentKey: 's1',
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'eq',
        value: 'pro',
        description: '',
      });
      await createRule('f1', ['s1', 's2'], 1);
      await createRule('f2', ['s3'], 1);
      await segmentRollout('b1', 1, ['s4']);

      const whole = (await store.loadNamespace(ns))!;
      const rows = await store.loadFlags!(ns, ['f1', 'b1', 'nope', 'f1']);
      expect(rows).toBeDefined();
      expect(rows!.version).toBe(await version());
      expect(rows!.namespace).toEqual(whole.namespace);
      expect(rows!.flags).toEqual(whole.flags.filter((f) => f.key !== 'f2'));
      expect(rows!.rules).toEqual(whole.rules.filter((r) => r.flagKey === 'f1'));
      expect(rows!.rollouts).toEqual(whole.rollouts.filter((r) => r.flagKey === 'b1'));
      const used = ['s1', 's2', 's4'];
      expect([...rows!.segments].sort((a, b) => a.key.localeCompare(b.key))).toEqual(
        whole.segments.filter((s) => used.includes(s.key)),
      );
      expect(rows!.segments.find((s) => s.key === 's1')!.constraints).toHaveLength(1);

      const none = await store.loadFlags!(ns, ['nope']);
      expect(none).toMatchObject({ flags: [], rules: [], rollouts: [], segments: [] });
      expect(none!.version).toBe(await version());
    });

    it('is undefined for an unknown namespace', async () => {
      expect(await store.loadFlags!(uniqueKey('nobody'), ['f1'])).toBeUndefined();
    });
  });
}
