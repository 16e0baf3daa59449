import type * as grpc from '@grpc/grpc-js';
import {
  bindGrpcServer,
  createGrpcServer,
  shutdownGrpcServer,
} from '../../src/adapters/grpc/server';
import type { Flag, Namespace, Rollout, Rule, Segment, Variant } from '../../src/domain/model';
import {
  clientFor,
  FakeHealth,
  fakeManagementApi,
  memoryLogger,
  sequentialIds,
  type FakeManagementApi,
} from '../unit/grpc/grpc-test-support';

/*
 * flipt.Flipt served by the real gRPC server over a real grpc-js client, in front of a fake
 * management API, for the grpc-management*.test.ts files; and the resources its answers use.
 */

export interface GrpcManagement {
  api: FakeManagementApi;
  health: FakeHealth;
  logger: ReturnType<typeof memoryLogger>;
  port: number;
  flipt: ReturnType<typeof clientFor>;
}

/**
 * Starts the server before the file's tests and stops it after; resets the fake's mocks
 * before each test. The returned object's fields are set once the server is up.
 */
export function useGrpcManagement(): GrpcManagement {
  const g = {} as GrpcManagement;
  let server: grpc.Server;
  beforeAll(async () => {
    g.api = fakeManagementApi();
    g.health = new FakeHealth();
    g.logger = memoryLogger();
    server = createGrpcServer({
      management: g.api,
      health: g.health,
      logger: g.logger,
      ids: sequentialIds(),
    });
    g.port = await bindGrpcServer(server, '127.0.0.1', 0);
    g.flipt = clientFor('flipt.Flipt', g.port);
  });
  afterAll(async () => {
    g.flipt.close();
    await shutdownGrpcServer(server, 1000);
  });
  beforeEach(() => {
    for (const m of Object.values(g.api)) m.mockReset();
  });
  return g;
}

export const T1 = '2024-05-01T10:00:00.123456Z';
export const T1_WIRE = { seconds: 1714557600, nanos: 123456000 };
export const T2 = '2024-05-02T00:00:01.000000Z';
export const T2_WIRE = { seconds: 1714608001, nanos: 0 };

export const namespace: Namespace = {
  key: 'team',
  name: 'Team',
  description: 'd',
  protected: false,
  createdAt: T1,
  updatedAt: T2,
};
export const variant: Variant = {
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
export const flag: Flag = {
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
export const segment: Segment = {
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
export const rule = (segmentKeys: string[]): Rule => ({
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
export const thresholdRollout: Rollout = {
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
export const segmentRollout: Rollout = {
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
