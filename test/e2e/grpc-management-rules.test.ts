import * as grpc from '@grpc/grpc-js';
import { NotFoundError } from '../../src/domain/errors';
import { clientFor, listServicesByReflection, unary } from '../unit/grpc/grpc-test-support';
import {
  namespace,
  rule,
  thresholdRollout,
  segmentRollout,
  useGrpcManagement,
} from '../support/grpc-management';

describe('gRPC flipt.Flipt over a real grpc-js client: rules, rollouts, calls, health', () => {
  const g = useGrpcManagement();

  describe('rules and distributions', () => {
    it('a rule with one segment answers with segmentKey and an empty segmentKeys', async () => {
      g.api.createRule.mockResolvedValue(rule(['beta']));
      const res = await unary(g.flipt, 'CreateRule', { flagKey: 'f', segmentKey: 'beta', rank: 1 });
      expect(g.api.createRule).toHaveBeenCalledWith({
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
      g.api.getRule.mockResolvedValue(rule(['a', 'b']));
      g.api.updateRule.mockResolvedValue(rule(['a', 'b']));
      const res = await unary(g.flipt, 'GetRule', { id: 'r1', flagKey: 'f' });
      expect(res).toMatchObject({
        segmentKey: '',
        segmentKeys: ['a', 'b'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      await unary(g.flipt, 'UpdateRule', {
        id: 'r1',
        flagKey: 'f',
        segmentKeys: ['a', 'b'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(g.api.updateRule).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        id: 'r1',
        segmentKey: '',
        segmentKeys: ['a', 'b'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
    });

    it('lists, orders and deletes rules', async () => {
      g.api.listRules.mockResolvedValue({ items: [rule(['x'])], nextPageToken: '', totalCount: 1 });
      g.api.orderRules.mockResolvedValue(undefined);
      g.api.deleteRule.mockResolvedValue(undefined);
      const list = await unary(g.flipt, 'ListRules', { flagKey: 'f' });
      expect(list['rules']).toHaveLength(1);
      await unary(g.flipt, 'OrderRules', { flagKey: 'f', ruleIds: ['r2', 'r1'] });
      expect(g.api.orderRules).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        ruleIds: ['r2', 'r1'],
      });
      await unary(g.flipt, 'DeleteRule', { id: 'r1', flagKey: 'f' });
      expect(g.api.deleteRule).toHaveBeenCalledWith({ namespaceKey: '', flagKey: 'f', id: 'r1' });
    });

    it('creates, updates and deletes distributions', async () => {
      const d = rule(['x']).distributions[0];
      g.api.createDistribution.mockResolvedValue(d);
      g.api.updateDistribution.mockResolvedValue(d);
      g.api.deleteDistribution.mockResolvedValue(undefined);
      const res = await unary(g.flipt, 'CreateDistribution', {
        flagKey: 'f',
        ruleId: 'r1',
        variantId: 'v1',
        rollout: 50,
      });
      expect(g.api.createDistribution).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        ruleId: 'r1',
        variantId: 'v1',
        rollout: 50,
      });
      expect(res).toMatchObject({ id: 'd1', ruleId: 'r1', variantId: 'v1' });
      await unary(g.flipt, 'UpdateDistribution', {
        id: 'd1',
        flagKey: 'f',
        ruleId: 'r1',
        rollout: 1,
      });
      expect(g.api.updateDistribution).toHaveBeenCalledWith(
        expect.objectContaining({ id: 'd1', rollout: 1 }),
      );
      await unary(g.flipt, 'DeleteDistribution', {
        id: 'd1',
        flagKey: 'f',
        ruleId: 'r1',
        variantId: 'v1',
      });
      expect(g.api.deleteDistribution).toHaveBeenCalledWith({
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
      g.api.createRollout.mockResolvedValueOnce(thresholdRollout);
      const t = await unary(g.flipt, 'CreateRollout', {
        flagKey: 'b',
        rank: 1,
        description: 'half',
        threshold: { percentage: 50, value: true },
      });
      expect(g.api.createRollout).toHaveBeenLastCalledWith({
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

      g.api.createRollout.mockResolvedValueOnce(segmentRollout);
      const s = await unary(g.flipt, 'CreateRollout', {
        flagKey: 'b',
        rank: 2,
        segment: { segmentKeys: ['beta'], value: false },
      });
      expect(g.api.createRollout).toHaveBeenLastCalledWith({
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
      g.api.listRollouts.mockResolvedValue({
        items: [thresholdRollout, segmentRollout],
        nextPageToken: '',
        totalCount: 2,
      });
      g.api.getRollout.mockResolvedValue(thresholdRollout);
      g.api.updateRollout.mockResolvedValue(thresholdRollout);
      g.api.orderRollouts.mockResolvedValue(undefined);
      g.api.deleteRollout.mockResolvedValue(undefined);

      const list = await unary(g.flipt, 'ListRollouts', { flagKey: 'b', limit: 10 });
      expect(list).toMatchObject({ totalCount: 2, nextPageToken: '' });
      expect(list['rules']).toHaveLength(2);
      expect(g.api.listRollouts).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'b',
        limit: 10,
        offset: 0,
        pageToken: '',
        reference: '',
      });
      await expect(
        unary(g.flipt, 'GetRollout', { id: 'ro1', flagKey: 'b' }),
      ).resolves.toMatchObject({
        id: 'ro1',
      });
      await unary(g.flipt, 'UpdateRollout', {
        id: 'ro1',
        flagKey: 'b',
        threshold: { percentage: 10, value: false },
      });
      expect(g.api.updateRollout).toHaveBeenCalledWith(
        expect.objectContaining({ id: 'ro1', threshold: { percentage: 10, value: false } }),
      );
      await unary(g.flipt, 'OrderRollouts', { flagKey: 'b', rolloutIds: ['ro2', 'ro1'] });
      expect(g.api.orderRollouts).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'b',
        rolloutIds: ['ro2', 'ro1'],
      });
      await unary(g.flipt, 'DeleteRollout', { id: 'ro1', flagKey: 'b' });
      expect(g.api.deleteRollout).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'b',
        id: 'ro1',
      });
    });
  });

  describe('calls', () => {
    it('hides unexpected errors behind INTERNAL and logs them with their stack', async () => {
      g.api.getFlag.mockRejectedValue(new Error('SQLITE_BUSY: database is locked'));
      await expect(unary(g.flipt, 'GetFlag', { key: 'f' })).rejects.toMatchObject({
        code: grpc.status.INTERNAL,
        details: 'internal error',
      });
      const logged = g.logger.lines.find((l) => l.level === 'error');
      expect(logged?.fields).toMatchObject({
        method: '/flipt.Flipt/GetFlag',
        error: 'SQLITE_BUSY: database is locked',
      });
      expect(String(logged?.fields?.['stack'])).toContain('SQLITE_BUSY');
    });

    it('leaves the legacy evaluation RPCs UNIMPLEMENTED without an evaluation service', async () => {
      await expect(
        unary(g.flipt, 'Evaluate', { flagKey: 'f', entityId: 'e' }),
      ).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED });
      await expect(unary(g.flipt, 'BatchEvaluate', {})).rejects.toMatchObject({
        code: grpc.status.UNIMPLEMENTED,
      });
    });

    it('logs one access line per call with the request id from x-request-id', async () => {
      g.api.getNamespace.mockResolvedValue(namespace);
      const md = new grpc.Metadata();
      md.set('x-request-id', 'req-42');
      g.logger.lines.length = 0;
      await unary(g.flipt, 'GetNamespace', { key: 'team' }, md);
      const access = g.logger.lines.filter((l) => l.message === 'grpc call');
      expect(access).toHaveLength(1);
      expect(access[0]?.fields).toMatchObject({
        method: '/flipt.Flipt/GetNamespace',
        code: 'OK',
        requestId: 'req-42',
      });
      expect(typeof access[0]?.fields?.['durationMs']).toBe('number');
    });

    it('generates a request id when the caller sends none', async () => {
      g.api.getNamespace.mockRejectedValue(new NotFoundError('namespace "x" not found'));
      g.logger.lines.length = 0;
      await expect(unary(g.flipt, 'GetNamespace', { key: 'x' })).rejects.toBeDefined();
      const access = g.logger.lines.find((l) => l.message === 'grpc call');
      expect(access?.fields).toMatchObject({ code: 'NOT_FOUND' });
      expect(access?.fields?.['requestId']).toMatch(/^00000000-0000-4000-8000-/);
    });
  });

  describe('health and reflection', () => {
    it('checks "" and flipt.Flipt, and answers NOT_FOUND for unknown services', async () => {
      const h = clientFor('grpc.health.v1.Health', g.port);
      try {
        await expect(unary(h, 'Check', { service: '' })).resolves.toEqual({ status: 'SERVING' });
        await expect(unary(h, 'Check', { service: 'flipt.Flipt' })).resolves.toEqual({
          status: 'SERVING',
        });
        await expect(
          unary(h, 'Check', { service: 'flipt.evaluation.EvaluationService' }),
        ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
        g.health.set({ status: 'NOT_SERVING', detail: 'database unreachable' });
        await expect(unary(h, 'Check', { service: '' })).resolves.toEqual({
          status: 'NOT_SERVING',
        });
      } finally {
        g.health.set({ status: 'SERVING' });
        h.close();
      }
    });

    it('lists the served services by reflection', async () => {
      const names = await listServicesByReflection(g.port);
      expect(names.sort()).toEqual(['flipt.Flipt', 'grpc.health.v1.Health']);
    });
  });
});
