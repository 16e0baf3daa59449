import { InMemoryStore } from '../../../src/adapters/storage/memory/in-memory-store';
import type { ManagementApi } from '../../../src/domain/services/api';
import { createManagementService } from '../../../src/domain/services/management-service';
import { ConfigStore } from '../../../src/domain/services/config';
import type { Logger } from '../../../src/ports';
import {
  ALL,
  RecordingNotifier,
  SequentialIds,
  TickingClock,
  expectError,
  flagRequest,
  segmentRequest,
} from '../../support/fixtures';

describe('management service', () => {
  let store: ConfigStore;
  let notifier: RecordingNotifier;
  let api: ManagementApi;

  beforeEach(() => {
    const clock = new TickingClock();
    const storage = new InMemoryStore({ clock });
    store = new ConfigStore({ unitOfWork: storage.unitOfWork, clock, ids: new SequentialIds() });
    notifier = new RecordingNotifier();
    api = createManagementService({ config: store, notifier });
  });

  const segs = { segmentKey: '', segmentOperator: 'OR_SEGMENT_OPERATOR' as const };

  describe('namespace resolution', () => {
    it('treats an empty namespaceKey as the default namespace for writes and reads', async () => {
      const flag = await api.createFlag(flagRequest('', 'f1'));
      expect(flag.namespaceKey).toBe('default');
      expect(await api.getFlag({ namespaceKey: '', key: 'f1', reference: '' })).toEqual(
        await store.getFlag('default', 'f1'),
      );
      const listed = await api.listFlags({ ...ALL, namespaceKey: '' });
      expect(listed.items.map((f) => f.key)).toEqual(['f1']);
      await api.createSegment(segmentRequest('', 's1'));
      expect(
        (await api.getSegment({ namespaceKey: '', key: 's1', reference: '' })).namespaceKey,
      ).toBe('default');
      expect(notifier.changed).toEqual(['default', 'default']);
    });

    it('passes other namespaces through and ignores the reference on reads', async () => {
      await api.createNamespace({ key: 'team', name: 'Team', description: '' });
      await api.createFlag(flagRequest('team', 'f1'));
      expect(
        (await api.getFlag({ namespaceKey: 'team', key: 'f1', reference: 'main@abc' }))
          .namespaceKey,
      ).toBe('team');
      expect((await api.getNamespace({ key: 'team', reference: 'x' })).name).toBe('Team');
      expect(notifier.changed).toEqual(['team', 'team']);
    });
  });

  describe('validation', () => {
    it('runs before the store, so a bad request never reaches it', async () => {
      await expectError(
        api.createFlag(flagRequest('no-such-namespace', 'bad key')),
        'invalid_argument',
        'invalid field key: contains invalid characters',
      );
      await expectError(
        api.listFlags({ ...ALL, namespaceKey: '', pageToken: 'garbage' }),
        'invalid_argument',
        'limit must be set when offset or pageToken is set',
      );
      await expectError(
        api.getRule({ namespaceKey: '', flagKey: 'f', id: '', reference: '' }),
        'invalid_argument',
        'invalid field id: must not be empty',
      );
      expect(notifier.changed).toEqual([]);
    });

    it('reports failures as rejected promises, not synchronous throws', () => {
      const result = api.createNamespace({ key: '', name: '', description: '' });
      expect(result).toBeInstanceOf(Promise);
      return expect(result).rejects.toMatchObject({
        message: 'invalid field key: must not be empty',
      });
    });

    it('lets namespace and rollout lists use a position without a limit', async () => {
      await api.createFlag(flagRequest('', 'b1', { type: 'BOOLEAN_FLAG_TYPE' }));
      const token = Buffer.from('{"offset":1}').toString('base64');
      const namespaces = await api.listNamespaces({ ...ALL, pageToken: token });
      expect(namespaces.items).toEqual([]);
      const rollouts = await api.listRollouts({
        ...ALL,
        namespaceKey: '',
        flagKey: 'b1',
        pageToken: token,
      });
      expect(rollouts).toEqual({ items: [], nextPageToken: '', totalCount: 0 });
    });
  });

  describe('normalisation', () => {
    beforeEach(async () => {
      await api.createFlag(flagRequest('', 'f1'));
      await api.createFlag(flagRequest('', 'b1', { type: 'BOOLEAN_FLAG_TYPE' }));
      for (const key of ['a', 'b']) await api.createSegment(segmentRequest('', key));
    });

    it('compacts variant attachments keeping number text', async () => {
      const v = await api.createVariant({
        namespaceKey: '',
        flagKey: 'f1',
        key: 'v1',
        name: '',
        description: '',
        attachment: '{ "n" : 1.0,\n "e": 1e2 }',
      });
      expect(v.attachment).toBe('{"n":1.0,"e":1e2}');
      const u = await api.updateVariant({ ...v, namespaceKey: '', attachment: ' [ ] ' });
      expect(u.attachment).toBe('[]');
    });

    it('stores constraints with lower-cased operators and normalised values', async () => {
      const base = { namespaceKey: '', segmentKey: 'a', property: 'p', description: '' };
      const a = await api.createConstraint({
        ...base,
        type: 'NUMBER_COMPARISON_TYPE',
        operator: 'PRESENT',
        value: '42',
      });
      expect(a).toMatchObject({ operator: 'present', value: '' });
      const b = await api.createConstraint({
        ...base,
        type: 'DATETIME_COMPARISON_TYPE',
        operator: 'GTE',
        value: '2024-05-01T02:00:00-03:00',
      });
      expect(b).toMatchObject({ operator: 'gte', value: '2024-05-01T05:00:00Z' });
      const u = await api.updateConstraint({
        ...base,
        id: b.id,
        type: 'STRING_COMPARISON_TYPE',
        operator: 'Empty',
        value: 'x',
      });
      expect(u).toMatchObject({ operator: 'empty', value: '' });
    });

    it('de-duplicates rule segments and forces OR for a single segment', async () => {
      const many = await api.createRule({
        namespaceKey: '',
        flagKey: 'f1',
        rank: 1,
        segmentKey: '',
        segmentKeys: ['b', 'a', 'b'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(many).toMatchObject({
        segmentKeys: ['b', 'a'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      const one = await api.createRule({
        namespaceKey: '',
        flagKey: 'f1',
        rank: 2,
        segmentKey: '',
        segmentKeys: ['a', 'a'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(one).toMatchObject({ segmentKeys: ['a'], segmentOperator: 'OR_SEGMENT_OPERATOR' });
      const legacy = await api.updateRule({
        namespaceKey: '',
        flagKey: 'f1',
        id: many.id,
        segmentKey: 'b',
        segmentKeys: [],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(legacy).toMatchObject({ segmentKeys: ['b'], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    });

    it('quotes the raw segmentKey when a rule cannot be created', async () => {
      await expectError(
        api.createRule({
          namespaceKey: '',
          flagKey: 'f1',
          rank: 1,
          ...segs,
          segmentKey: 'zz',
          segmentKeys: [],
        }),
        'not_found',
        'flag "default/f1" or segment "default/zz" not found',
      );
      await expectError(
        api.createRule({ namespaceKey: '', flagKey: 'f1', rank: 1, ...segs, segmentKeys: ['zz'] }),
        'not_found',
        'flag "default/f1" or segment "default/" not found',
      );
    });

    it('normalises segment rollouts the same way and passes thresholds through', async () => {
      const s = await api.createRollout({
        namespaceKey: '',
        flagKey: 'b1',
        rank: 1,
        description: '',
        segment: {
          segmentKey: '',
          segmentKeys: ['a', 'a'],
          segmentOperator: 'AND_SEGMENT_OPERATOR',
          value: true,
        },
      });
      expect(s.segment).toEqual({
        segmentKeys: ['a'],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        value: true,
      });
      const t = await api.createRollout({
        namespaceKey: '',
        flagKey: 'b1',
        rank: 2,
        description: 'half',
        threshold: { percentage: 50, value: false },
      });
      expect(t).toMatchObject({
        type: 'THRESHOLD_ROLLOUT_TYPE',
        threshold: { percentage: 50, value: false },
      });
      await expectError(
        api.createRollout({
          namespaceKey: '',
          flagKey: 'b1',
          rank: 3,
          description: '',
          segment: { ...segs, segmentKey: 'zz', segmentKeys: [], value: true },
        }),
        'not_found',
        'flag "default/b1 or segment zz" not found',
      );
      await expectError(
        api.updateRollout({ namespaceKey: '', flagKey: 'b1', id: t.id, description: '' }),
        'invalid_argument',
        'invalid field rule: invalid rollout rule type',
      );
      await expectError(
        api.createRollout({ namespaceKey: '', flagKey: 'b1', rank: 9, description: '' }),
        'invalid_argument',
        'rollout rule is missing',
      );
    });
  });

  describe('change notices', () => {
    it('announces every successful write with its namespace', async () => {
      await api.createNamespace({ key: 'n1', name: 'N', description: '' });
      await api.updateNamespace({ key: 'n1', name: 'N2', description: '' });
      const f = await api.createFlag(flagRequest('n1', 'f1'));
      const v = await api.createVariant({
        namespaceKey: 'n1',
        flagKey: 'f1',
        key: 'v',
        name: '',
        description: '',
        attachment: '',
      });
      await api.updateFlag({ ...f, defaultVariantId: v.id });
      await api.createSegment(segmentRequest('n1', 's1'));
      const r = await api.createRule({
        namespaceKey: 'n1',
        flagKey: 'f1',
        rank: 1,
        ...segs,
        segmentKeys: ['s1'],
      });
      const d = await api.createDistribution({
        namespaceKey: 'n1',
        flagKey: 'f1',
        ruleId: r.id,
        variantId: v.id,
        rollout: 100,
      });
      await api.deleteDistribution({
        namespaceKey: 'n1',
        flagKey: 'f1',
        ruleId: r.id,
        id: d.id,
        variantId: v.id,
      });
      await api.deleteRule({ namespaceKey: 'n1', flagKey: 'f1', id: r.id });
      await api.deleteVariant({ namespaceKey: 'n1', flagKey: 'f1', id: v.id });
      await api.deleteFlag({ namespaceKey: 'n1', key: 'f1' });
      await api.deleteSegment({ namespaceKey: 'n1', key: 's1' });
      await api.deleteNamespace({ key: 'n1', force: false });
      expect(notifier.changed).toEqual(Array(14).fill('n1'));
    });

    it('stays silent on reads and on failed writes', async () => {
      await api.createFlag(flagRequest('', 'f1'));
      notifier.changed.length = 0;
      await api.getFlag({ namespaceKey: '', key: 'f1', reference: '' });
      await api.listFlags({ ...ALL, namespaceKey: '' });
      await api.listNamespaces(ALL);
      await api.listRules({ ...ALL, namespaceKey: '', flagKey: 'f1' });
      await api.listRollouts({ ...ALL, namespaceKey: '', flagKey: 'f1' });
      await api.listSegments({ ...ALL, namespaceKey: '' });
      await expect(api.createFlag(flagRequest('', 'f1'))).rejects.toBeDefined();
      await expect(api.deleteNamespace({ key: 'default', force: false })).rejects.toBeDefined();
      await expect(
        api.orderRules({ namespaceKey: '', flagKey: 'f1', ruleIds: ['one'] }),
      ).rejects.toBeDefined();
      expect(notifier.changed).toEqual([]);
    });

    it('does not fail a committed write when the notice fails', async () => {
      const warnings: string[] = [];
      const logger: Logger = {
        debug: () => undefined,
        info: () => undefined,
        warn: (message) => warnings.push(message),
        error: () => undefined,
      };
      const failing = createManagementService({
        config: store,
        notifier: {
          namespaceChanged: () => {
            throw new Error('bus down');
          },
        },
        logger,
      });
      await expect(failing.createFlag(flagRequest('', 'f1'))).resolves.toMatchObject({ key: 'f1' });
      expect(warnings).toEqual(['change notice failed']);
      expect((await store.getFlag('default', 'f1')).key).toBe('f1');
    });
  });
});
