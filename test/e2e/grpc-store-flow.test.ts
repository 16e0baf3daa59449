import * as grpc from '@grpc/grpc-js';
import {
  bindGrpcServer,
  createGrpcServer,
  shutdownGrpcServer,
} from '../../src/adapters/grpc/server';
import { InMemoryStore } from '../../src/adapters/storage/memory/in-memory-store';
import { ConfigStore } from '../../src/domain/services/config';
import { SystemClock } from '../../src/adapters/system/clock';
import { RandomIdGenerator } from '../../src/adapters/system/ids';
import { createManagementService } from '../../src/domain/services/management-service';
import {
  clientFor,
  FakeHealth,
  memoryLogger,
  sequentialIds,
  unary,
} from '../unit/grpc/grpc-test-support';

type Msg = Record<string, unknown>;

/** The whole write path over gRPC: real management service, in-memory store. */
describe('gRPC flipt.Flipt against the management service and the in-memory store', () => {
  let server: grpc.Server;
  let flipt: ReturnType<typeof clientFor>;

  beforeAll(async () => {
    const ids = new RandomIdGenerator();
    const clock = new SystemClock();
    const store = new InMemoryStore({ clock });
    const management = createManagementService({
      config: new ConfigStore({ unitOfWork: store.unitOfWork, clock, ids }),
      notifier: { namespaceChanged: () => undefined },
    });
    server = createGrpcServer({
      management,
      health: new FakeHealth(),
      logger: memoryLogger(),
      ids: sequentialIds(),
    });
    const port = await bindGrpcServer(server, '127.0.0.1', 0);
    flipt = clientFor('flipt.Flipt', port);
  });

  afterAll(async () => {
    flipt.close();
    await shutdownGrpcServer(server, 1000);
  });

  it('namespace CRUD, with Flipt messages for missing and protected namespaces', async () => {
    const ns = await unary(flipt, 'CreateNamespace', { key: 'team', name: 'Team' });
    expect(ns).toMatchObject({ key: 'team', name: 'Team', protected: false });
    expect((ns['createdAt'] as { seconds: number }).seconds).toBeGreaterThan(1.7e9);

    await unary(flipt, 'UpdateNamespace', { key: 'team', name: 'Team 2', description: 'd' });
    await expect(unary(flipt, 'GetNamespace', { key: 'team' })).resolves.toMatchObject({
      name: 'Team 2',
      description: 'd',
    });
    const list = await unary<{ namespaces: Msg[]; totalCount: number }>(
      flipt,
      'ListNamespaces',
      {},
    );
    expect(list.namespaces.map((n) => n['key'])).toEqual(['default', 'team']);

    await expect(unary(flipt, 'DeleteNamespace', { key: 'default' })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'namespace "default" is protected',
    });
    await unary(flipt, 'DeleteNamespace', { key: 'team' });
    await expect(unary(flipt, 'GetNamespace', { key: 'team' })).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
      details: 'namespace "team" not found',
    });
  });

  it('flags with variants, metadata and a default variant', async () => {
    const created = await unary(flipt, 'CreateFlag', {
      key: 'color',
      name: 'Color',
      enabled: true,
      metadata: { fields: { owner: { stringValue: 'web' }, weight: { numberValue: 3 } } },
    });
    expect(created).toMatchObject({
      key: 'color',
      namespaceKey: 'default',
      type: 'VARIANT_FLAG_TYPE',
      variants: [],
      metadata: { fields: { owner: { stringValue: 'web' }, weight: { numberValue: 3 } } },
    });

    const blue = await unary(flipt, 'CreateVariant', {
      flagKey: 'color',
      key: 'blue',
      attachment: '{"hex": "#00f"}',
    });
    await unary(flipt, 'CreateVariant', { flagKey: 'color', key: 'red' });
    await expect(
      unary(flipt, 'CreateVariant', { flagKey: 'color', key: 'red' }),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'variant "red" is not unique for flag "default/color"',
    });

    const updated = await unary(flipt, 'UpdateFlag', {
      key: 'color',
      name: 'Colour',
      enabled: true,
      defaultVariantId: blue['id'],
    });
    expect(updated).toMatchObject({
      name: 'Colour',
      defaultVariant: { key: 'blue', attachment: '{"hex":"#00f"}' },
      // Metadata absent from the update: unchanged.
      metadata: { fields: { owner: { stringValue: 'web' } } },
    });

    const got = await unary<{ variants: Msg[] }>(flipt, 'GetFlag', { key: 'color' });
    expect(got.variants.map((v) => v['key'])).toEqual(['blue', 'red']);

    const list = await unary(flipt, 'ListFlags', { namespaceKey: 'default', limit: 1 });
    expect(list).toMatchObject({ totalCount: 1, nextPageToken: '' });

    await expect(unary(flipt, 'GetFlag', { key: 'nope' })).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
      details: 'flag "default/nope" not found',
    });
    await expect(unary(flipt, 'CreateFlag', { key: 'bad key', name: 'x' })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'invalid field key: contains invalid characters',
    });
    await expect(unary(flipt, 'CreateFlag', { key: 'x' })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'invalid field name: must not be empty',
    });
  });

  it('segments, constraints, rules with distributions, and rule order', async () => {
    await unary(flipt, 'CreateSegment', { key: 'pro', name: 'Pro', matchType: 'ALL_MATCH_TYPE' });
    await unary(flipt, 'CreateSegment', { key: 'eu', name: 'EU', matchType: 'ANY_MATCH_TYPE' });
    const c = await unary(flipt, 'CreateConstraint', {
      segmentKey: 'pro',
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'pro',
    });
    expect(c).toMatchObject({ segmentKey: 'pro', type: 'STRING_COMPARISON_TYPE', value: 'pro' });
    await expect(
      unary(flipt, 'CreateConstraint', {
        segmentKey: 'pro',
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'gt',
        value: '1',
      }),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'constraint operator "gt" is not valid for type string',
    });
    await expect(unary(flipt, 'GetSegment', { key: 'pro' })).resolves.toMatchObject({
      constraints: [{ property: 'plan' }],
    });

    const one = await unary(flipt, 'CreateRule', { flagKey: 'color', segmentKey: 'pro', rank: 1 });
    expect(one).toMatchObject({ segmentKey: 'pro', segmentKeys: [] });
    const two = await unary(flipt, 'CreateRule', {
      flagKey: 'color',
      segmentKeys: ['pro', 'eu'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
      rank: 2,
    });
    expect(two).toMatchObject({
      segmentKey: '',
      segmentKeys: ['pro', 'eu'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
    });

    const flag = await unary<{ variants: Msg[] }>(flipt, 'GetFlag', { key: 'color' });
    const d = await unary(flipt, 'CreateDistribution', {
      flagKey: 'color',
      ruleId: one['id'],
      variantId: flag.variants[0]?.['id'],
      rollout: 60,
    });
    expect(d).toMatchObject({ ruleId: one['id'], rollout: 60 });

    await unary(flipt, 'OrderRules', { flagKey: 'color', ruleIds: [two['id'], one['id']] });
    const rules = await unary<{ rules: Msg[] }>(flipt, 'ListRules', { flagKey: 'color' });
    expect(rules.rules.map((r) => [r['id'], r['rank']])).toEqual([
      [two['id'], 1],
      [one['id'], 2],
    ]);
    expect(rules.rules[1]?.['distributions']).toHaveLength(1);

    await expect(
      unary(flipt, 'OrderRules', { flagKey: 'color', ruleIds: [one['id']] }),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'invalid field ruleIds: must contain atleast 2 elements',
    });
    await expect(
      unary(flipt, 'CreateRule', { flagKey: 'color', segmentKey: 'nope', rank: 3 }),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it('boolean flags with threshold and segment rollouts, and rollout order', async () => {
    await unary(flipt, 'CreateFlag', { key: 'dark', name: 'Dark', type: 'BOOLEAN_FLAG_TYPE' });
    const t = await unary(flipt, 'CreateRollout', {
      flagKey: 'dark',
      rank: 1,
      threshold: { percentage: 25, value: true },
    });
    expect(t).toMatchObject({
      type: 'THRESHOLD_ROLLOUT_TYPE',
      threshold: { percentage: 25, value: true },
    });
    const s = await unary(flipt, 'CreateRollout', {
      flagKey: 'dark',
      rank: 2,
      segment: { segmentKey: 'pro', value: true },
    });
    expect(s).toMatchObject({
      type: 'SEGMENT_ROLLOUT_TYPE',
      segment: { segmentKey: 'pro', segmentKeys: [], value: true },
    });

    await unary(flipt, 'OrderRollouts', { flagKey: 'dark', rolloutIds: [s['id'], t['id']] });
    const list = await unary<{ rules: Msg[]; totalCount: number }>(flipt, 'ListRollouts', {
      flagKey: 'dark',
    });
    expect(list.totalCount).toBe(2);
    expect(list.rules.map((r) => r['type'])).toEqual([
      'SEGMENT_ROLLOUT_TYPE',
      'THRESHOLD_ROLLOUT_TYPE',
    ]);

    const u = await unary(flipt, 'UpdateRollout', {
      id: t['id'],
      flagKey: 'dark',
      description: 'quarter',
      threshold: { percentage: 30, value: false },
    });
    expect(u).toMatchObject({ description: 'quarter', threshold: { percentage: 30 } });

    await expect(
      unary(flipt, 'CreateRollout', {
        flagKey: 'dark',
        rank: 3,
        threshold: { percentage: 101, value: true },
      }),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'invalid field threshold.percentage: must be within range [0, 100]',
    });
    await unary(flipt, 'DeleteRollout', { id: t['id'], flagKey: 'dark' });
    await expect(
      unary(flipt, 'GetRollout', { id: t['id'], flagKey: 'dark' }),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });
});
