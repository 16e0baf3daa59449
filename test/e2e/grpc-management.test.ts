import * as grpc from '@grpc/grpc-js';
import {
  bindGrpcServer,
  createGrpcServer,
  shutdownGrpcServer,
} from '../../src/adapters/grpc/server';
import { NotFoundError, ValidationError, InvalidArgumentError } from '../../src/domain/errors';
import type { Flag, Namespace, Rollout, Rule, Segment, Variant } from '../../src/domain/model';
import {
  clientFor,
  FakeHealth,
  fakeManagementApi,
  listServicesByReflection,
  memoryLogger,
  sequentialIds,
  unary,
  type FakeManagementApi,
} from '../unit/grpc/grpc-test-support';

const T1 = '2024-05-01T10:00:00.123456Z';
const T1_WIRE = { seconds: 1714557600, nanos: 123456000 };
const T2 = '2024-05-02T00:00:01.000000Z';
const T2_WIRE = { seconds: 1714608001, nanos: 0 };

const namespace: Namespace = {
  key: 'team',
  name: 'Team',
  description: 'd',
  protected: false,
  createdAt: T1,
  updatedAt: T2,
};
const variant: Variant = {
  id: 'v1',
  namespaceKey: 'default',
  flagKey: 'f',
  key: 'blue',
  name: 'Blue',
  description: '',
  attachment: '{"a":1}',
  createdAt: T1,
  updatedAt: T1,
};
const flag: Flag = {
  namespaceKey: 'default',
  key: 'f',
  name: 'F',
  description: '',
  enabled: true,
  type: 'VARIANT_FLAG_TYPE',
  createdAt: T1,
  updatedAt: T2,
  variants: [variant],
  metadata: { team: 'core', n: 2, ok: true, none: null, tags: ['a', 1], nested: { x: 'y' } },
};
const segment: Segment = {
  namespaceKey: 'default',
  key: 'beta',
  name: 'Beta',
  description: '',
  matchType: 'ANY_MATCH_TYPE',
  createdAt: T1,
  updatedAt: T1,
  constraints: [
    {
      id: 'c1',
      namespaceKey: 'default',
      segmentKey: 'beta',
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'pro',
      description: '',
      createdAt: T1,
      updatedAt: T1,
    },
  ],
};
const rule = (segmentKeys: string[]): Rule => ({
  id: 'r1',
  namespaceKey: 'default',
  flagKey: 'f',
  segmentKeys,
  segmentOperator: segmentKeys.length > 1 ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR',
  rank: 1,
  distributions: [
    { id: 'd1', ruleId: 'r1', variantId: 'v1', rollout: 33.3, createdAt: T1, updatedAt: T1 },
  ],
  createdAt: T1,
  updatedAt: T1,
});
const thresholdRollout: Rollout = {
  id: 'ro1',
  namespaceKey: 'default',
  flagKey: 'b',
  type: 'THRESHOLD_ROLLOUT_TYPE',
  rank: 1,
  description: 'half',
  threshold: { percentage: 50, value: true },
  createdAt: T1,
  updatedAt: T1,
};
const segmentRollout: Rollout = {
  id: 'ro2',
  namespaceKey: 'default',
  flagKey: 'b',
  type: 'SEGMENT_ROLLOUT_TYPE',
  rank: 2,
  description: '',
  segment: { segmentKeys: ['beta'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: false },
  createdAt: T1,
  updatedAt: T1,
};

describe('gRPC flipt.Flipt over a real grpc-js client', () => {
  let api: FakeManagementApi;
  let health: FakeHealth;
  let logger: ReturnType<typeof memoryLogger>;
  let server: grpc.Server;
  let port: number;
  let flipt: ReturnType<typeof clientFor>;

  beforeAll(async () => {
    api = fakeManagementApi();
    health = new FakeHealth();
    logger = memoryLogger();
    server = createGrpcServer({ management: api, health, logger, ids: sequentialIds() });
    port = await bindGrpcServer(server, '127.0.0.1', 0);
    flipt = clientFor('flipt.Flipt', port);
  });

  afterAll(async () => {
    flipt.close();
    await shutdownGrpcServer(server, 1000);
  });

  beforeEach(() => {
    for (const m of Object.values(api)) m.mockReset();
  });

  describe('namespaces', () => {
    it('creates a namespace and answers with wire timestamps', async () => {
      api.createNamespace.mockResolvedValue(namespace);
      const res = await unary(flipt, 'CreateNamespace', { key: 'team', name: 'Team' });
      expect(api.createNamespace).toHaveBeenCalledWith({
        key: 'team',
        name: 'Team',
        description: '',
      });
      expect(res).toEqual({
        key: 'team',
        name: 'Team',
        description: 'd',
        protected: false,
        createdAt: T1_WIRE,
        updatedAt: T2_WIRE,
      });
    });

    it('gets, lists, updates and deletes namespaces', async () => {
      api.getNamespace.mockResolvedValue(namespace);
      api.listNamespaces.mockResolvedValue({
        items: [namespace],
        nextPageToken: 'tok',
        totalCount: 3,
      });
      api.updateNamespace.mockResolvedValue(namespace);
      api.deleteNamespace.mockResolvedValue(undefined);

      await expect(unary(flipt, 'GetNamespace', { key: 'team' })).resolves.toMatchObject({
        key: 'team',
      });
      expect(api.getNamespace).toHaveBeenCalledWith({ key: 'team', reference: '' });

      const list = await unary(flipt, 'ListNamespaces', { limit: 1 });
      expect(api.listNamespaces).toHaveBeenCalledWith({
        limit: 1,
        offset: 0,
        pageToken: '',
        reference: '',
      });
      expect(list).toMatchObject({ nextPageToken: 'tok', totalCount: 3 });
      expect(list['namespaces']).toHaveLength(1);

      await unary(flipt, 'UpdateNamespace', { key: 'team', name: 'T2', description: 'x' });
      expect(api.updateNamespace).toHaveBeenCalledWith({
        key: 'team',
        name: 'T2',
        description: 'x',
      });

      await expect(unary(flipt, 'DeleteNamespace', { key: 'team', force: true })).resolves.toEqual(
        {},
      );
      expect(api.deleteNamespace).toHaveBeenCalledWith({ key: 'team', force: true });
    });

    it('answers NOT_FOUND with the domain message', async () => {
      api.getNamespace.mockRejectedValue(new NotFoundError('namespace "nope" not found'));
      await expect(unary(flipt, 'GetNamespace', { key: 'nope' })).rejects.toMatchObject({
        code: grpc.status.NOT_FOUND,
        details: 'namespace "nope" not found',
      });
    });
  });

  describe('flags and variants', () => {
    it('creates a flag with Struct metadata converted both ways', async () => {
      api.createFlag.mockResolvedValue(flag);
      const res = await unary(flipt, 'CreateFlag', {
        key: 'f',
        name: 'F',
        enabled: true,
        metadata: {
          fields: {
            team: { stringValue: 'core' },
            n: { numberValue: 2 },
            tags: { listValue: { values: [{ stringValue: 'a' }, { numberValue: 1 }] } },
            nested: { structValue: { fields: { x: { stringValue: 'y' } } } },
            none: { nullValue: 'NULL_VALUE' },
          },
        },
      });
      expect(api.createFlag).toHaveBeenCalledWith({
        namespaceKey: '',
        key: 'f',
        name: 'F',
        description: '',
        enabled: true,
        type: 'VARIANT_FLAG_TYPE',
        metadata: { team: 'core', n: 2, tags: ['a', 1], nested: { x: 'y' }, none: null },
      });
      expect(res).toMatchObject({
        key: 'f',
        type: 'VARIANT_FLAG_TYPE',
        namespaceKey: 'default',
        createdAt: T1_WIRE,
        variants: [{ id: 'v1', key: 'blue', attachment: '{"a":1}', createdAt: T1_WIRE }],
        metadata: {
          fields: {
            team: { stringValue: 'core' },
            n: { numberValue: 2 },
            ok: { boolValue: true },
            none: { nullValue: 'NULL_VALUE' },
            tags: { listValue: { values: [{ stringValue: 'a' }, { numberValue: 1 }] } },
            nested: { structValue: { fields: { x: { stringValue: 'y' } } } },
          },
        },
      });
      expect(res['defaultVariant']).toBeUndefined();
    });

    it('passes absent metadata as undefined and returns the default variant', async () => {
      api.updateFlag.mockResolvedValue({ ...flag, metadata: undefined, defaultVariant: variant });
      const res = await unary(flipt, 'UpdateFlag', {
        key: 'f',
        name: 'F',
        namespaceKey: 'default',
        defaultVariantId: 'v1',
      });
      expect(api.updateFlag).toHaveBeenCalledWith({
        namespaceKey: 'default',
        key: 'f',
        name: 'F',
        description: '',
        enabled: false,
        defaultVariantId: 'v1',
        metadata: undefined,
      });
      expect(res['defaultVariant']).toMatchObject({ id: 'v1', key: 'blue' });
      expect(res['metadata']).toBeUndefined();
    });

    it('gets, lists and deletes flags', async () => {
      api.getFlag.mockResolvedValue(flag);
      api.listFlags.mockResolvedValue({ items: [flag, flag], nextPageToken: '', totalCount: 2 });
      api.deleteFlag.mockResolvedValue(undefined);

      await expect(unary(flipt, 'GetFlag', { key: 'f' })).resolves.toMatchObject({ key: 'f' });
      expect(api.getFlag).toHaveBeenCalledWith({ namespaceKey: '', key: 'f', reference: '' });

      const list = await unary(flipt, 'ListFlags', { namespaceKey: 'x', pageToken: 'p', limit: 5 });
      expect(api.listFlags).toHaveBeenCalledWith({
        namespaceKey: 'x',
        limit: 5,
        offset: 0,
        pageToken: 'p',
        reference: '',
      });
      expect(list).toMatchObject({ nextPageToken: '', totalCount: 2 });
      expect(list['flags']).toHaveLength(2);

      await expect(unary(flipt, 'DeleteFlag', { key: 'f' })).resolves.toEqual({});
      expect(api.deleteFlag).toHaveBeenCalledWith({ namespaceKey: '', key: 'f' });
    });

    it('creates, updates and deletes variants', async () => {
      api.createVariant.mockResolvedValue(variant);
      api.updateVariant.mockResolvedValue(variant);
      api.deleteVariant.mockResolvedValue(undefined);
      await unary(flipt, 'CreateVariant', { flagKey: 'f', key: 'blue', attachment: '{"a": 1}' });
      expect(api.createVariant).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        key: 'blue',
        name: '',
        description: '',
        attachment: '{"a": 1}',
      });
      await unary(flipt, 'UpdateVariant', { id: 'v1', flagKey: 'f', key: 'blue', name: 'B' });
      expect(api.updateVariant).toHaveBeenCalledWith(
        expect.objectContaining({ id: 'v1', name: 'B' }),
      );
      await unary(flipt, 'DeleteVariant', { id: 'v1', flagKey: 'f' });
      expect(api.deleteVariant).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        id: 'v1',
      });
    });

    it('answers INVALID_ARGUMENT with Flipt validation messages', async () => {
      api.createFlag.mockRejectedValue(new ValidationError('key', 'must not be empty'));
      await expect(unary(flipt, 'CreateFlag', { name: 'x' })).rejects.toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
        details: 'invalid field key: must not be empty',
      });
      api.createFlag.mockRejectedValue(new InvalidArgumentError('flag "default/f" is not unique'));
      await expect(unary(flipt, 'CreateFlag', { key: 'f', name: 'x' })).rejects.toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
        details: 'flag "default/f" is not unique',
      });
    });

    it('rejects an enum number the server has no name for', async () => {
      await expect(
        unary(flipt, 'CreateFlag', { key: 'f', name: 'F', type: 7 }),
      ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      expect(api.createFlag).not.toHaveBeenCalled();
    });
  });

  describe('segments and constraints', () => {
    it('creates a segment and a constraint with enum names', async () => {
      api.createSegment.mockResolvedValue(segment);
      api.createConstraint.mockResolvedValue(segment.constraints[0]);
      const s = await unary(flipt, 'CreateSegment', {
        key: 'beta',
        name: 'Beta',
        matchType: 'ANY_MATCH_TYPE',
      });
      expect(api.createSegment).toHaveBeenCalledWith({
        namespaceKey: '',
        key: 'beta',
        name: 'Beta',
        description: '',
        matchType: 'ANY_MATCH_TYPE',
      });
      expect(s).toMatchObject({ matchType: 'ANY_MATCH_TYPE', constraints: [{ id: 'c1' }] });

      const c = await unary(flipt, 'CreateConstraint', {
        segmentKey: 'beta',
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'EQ',
        value: 'pro',
      });
      expect(api.createConstraint).toHaveBeenCalledWith({
        namespaceKey: '',
        segmentKey: 'beta',
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'EQ',
        value: 'pro',
        description: '',
      });
      expect(c).toMatchObject({ id: 'c1', type: 'STRING_COMPARISON_TYPE', createdAt: T1_WIRE });
    });

    it('lists, updates and deletes segments and constraints', async () => {
      api.listSegments.mockResolvedValue({ items: [segment], nextPageToken: '', totalCount: 1 });
      api.updateSegment.mockResolvedValue(segment);
      api.deleteSegment.mockResolvedValue(undefined);
      api.updateConstraint.mockResolvedValue(segment.constraints[0]);
      api.deleteConstraint.mockResolvedValue(undefined);
      await expect(unary(flipt, 'ListSegments', {})).resolves.toMatchObject({ totalCount: 1 });
      await unary(flipt, 'UpdateSegment', { key: 'beta', name: 'B' });
      expect(api.updateSegment).toHaveBeenCalledWith(
        expect.objectContaining({ matchType: 'ALL_MATCH_TYPE' }),
      );
      await unary(flipt, 'UpdateConstraint', {
        id: 'c1',
        segmentKey: 'beta',
        type: 'NUMBER_COMPARISON_TYPE',
        property: 'n',
        operator: 'gt',
        value: '1',
      });
      expect(api.updateConstraint).toHaveBeenCalledWith(
        expect.objectContaining({ id: 'c1', type: 'NUMBER_COMPARISON_TYPE' }),
      );
      await unary(flipt, 'DeleteConstraint', { id: 'c1', segmentKey: 'beta' });
      await unary(flipt, 'DeleteSegment', { key: 'beta' });
      expect(api.deleteSegment).toHaveBeenCalledWith({ namespaceKey: '', key: 'beta' });
    });
  });

  describe('rules and distributions', () => {
    it('a rule with one segment answers with segmentKey and an empty segmentKeys', async () => {
      api.createRule.mockResolvedValue(rule(['beta']));
      const res = await unary(flipt, 'CreateRule', { flagKey: 'f', segmentKey: 'beta', rank: 1 });
      expect(api.createRule).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        segmentKey: 'beta',
        segmentKeys: [],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        rank: 1,
      });
      expect(res).toMatchObject({ segmentKey: 'beta', segmentKeys: [], rank: 1 });
      expect((res['distributions'] as { rollout: number }[])[0]?.rollout).toBeCloseTo(33.3, 5);
    });

    it('a rule with several segments answers with segmentKeys and an empty segmentKey', async () => {
      api.getRule.mockResolvedValue(rule(['a', 'b']));
      api.updateRule.mockResolvedValue(rule(['a', 'b']));
      const res = await unary(flipt, 'GetRule', { id: 'r1', flagKey: 'f' });
      expect(res).toMatchObject({
        segmentKey: '',
        segmentKeys: ['a', 'b'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      await unary(flipt, 'UpdateRule', {
        id: 'r1',
        flagKey: 'f',
        segmentKeys: ['a', 'b'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(api.updateRule).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        id: 'r1',
        segmentKey: '',
        segmentKeys: ['a', 'b'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
    });

    it('lists, orders and deletes rules', async () => {
      api.listRules.mockResolvedValue({ items: [rule(['x'])], nextPageToken: '', totalCount: 1 });
      api.orderRules.mockResolvedValue(undefined);
      api.deleteRule.mockResolvedValue(undefined);
      const list = await unary(flipt, 'ListRules', { flagKey: 'f' });
      expect(list['rules']).toHaveLength(1);
      await unary(flipt, 'OrderRules', { flagKey: 'f', ruleIds: ['r2', 'r1'] });
      expect(api.orderRules).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        ruleIds: ['r2', 'r1'],
      });
      await unary(flipt, 'DeleteRule', { id: 'r1', flagKey: 'f' });
      expect(api.deleteRule).toHaveBeenCalledWith({ namespaceKey: '', flagKey: 'f', id: 'r1' });
    });

    it('creates, updates and deletes distributions', async () => {
      const d = rule(['x']).distributions[0];
      api.createDistribution.mockResolvedValue(d);
      api.updateDistribution.mockResolvedValue(d);
      api.deleteDistribution.mockResolvedValue(undefined);
      const res = await unary(flipt, 'CreateDistribution', {
        flagKey: 'f',
        ruleId: 'r1',
        variantId: 'v1',
        rollout: 50,
      });
      expect(api.createDistribution).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        ruleId: 'r1',
        variantId: 'v1',
        rollout: 50,
      });
      expect(res).toMatchObject({ id: 'd1', ruleId: 'r1', variantId: 'v1' });
      await unary(flipt, 'UpdateDistribution', {
        id: 'd1',
        flagKey: 'f',
        ruleId: 'r1',
        rollout: 1,
      });
      expect(api.updateDistribution).toHaveBeenCalledWith(
        expect.objectContaining({ id: 'd1', rollout: 1 }),
      );
      await unary(flipt, 'DeleteDistribution', {
        id: 'd1',
        flagKey: 'f',
        ruleId: 'r1',
        variantId: 'v1',
      });
      expect(api.deleteDistribution).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        ruleId: 'r1',
        id: 'd1',
        variantId: 'v1',
      });
    });
  });

  describe('rollouts', () => {
    it('creates threshold and segment rollouts from the oneof', async () => {
      api.createRollout.mockResolvedValueOnce(thresholdRollout);
      const t = await unary(flipt, 'CreateRollout', {
        flagKey: 'b',
        rank: 1,
        description: 'half',
        threshold: { percentage: 50, value: true },
      });
      expect(api.createRollout).toHaveBeenLastCalledWith({
        namespaceKey: '',
        flagKey: 'b',
        rank: 1,
        description: 'half',
        threshold: { percentage: 50, value: true },
        segment: undefined,
      });
      expect(t).toMatchObject({
        type: 'THRESHOLD_ROLLOUT_TYPE',
        threshold: { percentage: 50, value: true },
        rule: 'threshold',
      });
      expect(t['segment']).toBeUndefined();

      api.createRollout.mockResolvedValueOnce(segmentRollout);
      const s = await unary(flipt, 'CreateRollout', {
        flagKey: 'b',
        rank: 2,
        segment: { segmentKeys: ['beta'], value: false },
      });
      expect(api.createRollout).toHaveBeenLastCalledWith({
        namespaceKey: '',
        flagKey: 'b',
        rank: 2,
        description: '',
        segment: {
          segmentKey: '',
          segmentKeys: ['beta'],
          segmentOperator: 'OR_SEGMENT_OPERATOR',
          value: false,
        },
        threshold: undefined,
      });
      expect(s).toMatchObject({
        type: 'SEGMENT_ROLLOUT_TYPE',
        segment: { segmentKey: 'beta', segmentKeys: [], value: false },
      });
    });

    it('lists rollouts under the field `rules`, gets, updates, orders and deletes', async () => {
      api.listRollouts.mockResolvedValue({
        items: [thresholdRollout, segmentRollout],
        nextPageToken: '',
        totalCount: 2,
      });
      api.getRollout.mockResolvedValue(thresholdRollout);
      api.updateRollout.mockResolvedValue(thresholdRollout);
      api.orderRollouts.mockResolvedValue(undefined);
      api.deleteRollout.mockResolvedValue(undefined);

      const list = await unary(flipt, 'ListRollouts', { flagKey: 'b', limit: 10 });
      expect(list).toMatchObject({ totalCount: 2, nextPageToken: '' });
      expect(list['rules']).toHaveLength(2);
      expect(api.listRollouts).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'b',
        limit: 10,
        offset: 0,
        pageToken: '',
        reference: '',
      });
      await expect(unary(flipt, 'GetRollout', { id: 'ro1', flagKey: 'b' })).resolves.toMatchObject({
        id: 'ro1',
      });
      await unary(flipt, 'UpdateRollout', {
        id: 'ro1',
        flagKey: 'b',
        threshold: { percentage: 10, value: false },
      });
      expect(api.updateRollout).toHaveBeenCalledWith(
        expect.objectContaining({ id: 'ro1', threshold: { percentage: 10, value: false } }),
      );
      await unary(flipt, 'OrderRollouts', { flagKey: 'b', rolloutIds: ['ro2', 'ro1'] });
      expect(api.orderRollouts).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'b',
        rolloutIds: ['ro2', 'ro1'],
      });
      await unary(flipt, 'DeleteRollout', { id: 'ro1', flagKey: 'b' });
      expect(api.deleteRollout).toHaveBeenCalledWith({ namespaceKey: '', flagKey: 'b', id: 'ro1' });
    });
  });

  describe('calls', () => {
    it('hides unexpected errors behind INTERNAL and logs them with their stack', async () => {
      api.getFlag.mockRejectedValue(new Error('SQLITE_BUSY: database is locked'));
      await expect(unary(flipt, 'GetFlag', { key: 'f' })).rejects.toMatchObject({
        code: grpc.status.INTERNAL,
        details: 'internal error',
      });
      const logged = logger.lines.find((l) => l.level === 'error');
      expect(logged?.fields).toMatchObject({
        method: '/flipt.Flipt/GetFlag',
        error: 'SQLITE_BUSY: database is locked',
      });
      expect(String(logged?.fields?.['stack'])).toContain('SQLITE_BUSY');
    });

    it('leaves the legacy evaluation RPCs UNIMPLEMENTED without an evaluation service', async () => {
      await expect(unary(flipt, 'Evaluate', { flagKey: 'f', entityId: 'e' })).rejects.toMatchObject(
        { code: grpc.status.UNIMPLEMENTED },
      );
      await expect(unary(flipt, 'BatchEvaluate', {})).rejects.toMatchObject({
        code: grpc.status.UNIMPLEMENTED,
      });
    });

    it('logs one access line per call with the request id from x-request-id', async () => {
      api.getNamespace.mockResolvedValue(namespace);
      const md = new grpc.Metadata();
      md.set('x-request-id', 'req-42');
      logger.lines.length = 0;
      await unary(flipt, 'GetNamespace', { key: 'team' }, md);
      const access = logger.lines.filter((l) => l.message === 'grpc call');
      expect(access).toHaveLength(1);
      expect(access[0]?.fields).toMatchObject({
        method: '/flipt.Flipt/GetNamespace',
        code: 'OK',
        requestId: 'req-42',
      });
      expect(typeof access[0]?.fields?.['durationMs']).toBe('number');
    });

    it('generates a request id when the caller sends none', async () => {
      api.getNamespace.mockRejectedValue(new NotFoundError('namespace "x" not found'));
      logger.lines.length = 0;
      await expect(unary(flipt, 'GetNamespace', { key: 'x' })).rejects.toBeDefined();
      const access = logger.lines.find((l) => l.message === 'grpc call');
      expect(access?.fields).toMatchObject({ code: 'NOT_FOUND' });
      expect(access?.fields?.['requestId']).toMatch(/^00000000-0000-4000-8000-/);
    });
  });

  describe('health and reflection', () => {
    it('checks "" and flipt.Flipt, and answers NOT_FOUND for unknown services', async () => {
      const h = clientFor('grpc.health.v1.Health', port);
      try {
        await expect(unary(h, 'Check', { service: '' })).resolves.toEqual({ status: 'SERVING' });
        await expect(unary(h, 'Check', { service: 'flipt.Flipt' })).resolves.toEqual({
          status: 'SERVING',
        });
        await expect(
          unary(h, 'Check', { service: 'flipt.evaluation.EvaluationService' }),
        ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
        health.set({ status: 'NOT_SERVING', detail: 'database unreachable' });
        await expect(unary(h, 'Check', { service: '' })).resolves.toEqual({
          status: 'NOT_SERVING',
        });
      } finally {
        health.set({ status: 'SERVING' });
        h.close();
      }
    });

    it('lists the served services by reflection', async () => {
      const names = await listServicesByReflection(port);
      expect(names.sort()).toEqual(['flipt.Flipt', 'grpc.health.v1.Health']);
    });
  });
});
