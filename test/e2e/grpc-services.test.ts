import * as grpc from '@grpc/grpc-js';
import type { EvaluationApi } from '../../src/adapters/grpc/evaluation-service';
import type { GrpcAuthApi } from '../../src/adapters/grpc/auth-service';
import {
  bindGrpcServer,
  createGrpcServer,
  shutdownGrpcServer,
} from '../../src/adapters/grpc/server';
import { NotFoundError, UnauthenticatedError } from '../../src/domain/errors';
import type { Authentication, NamespaceData } from '../../src/domain/model';
import {
  clientFor,
  FakeHealth,
  fakeManagementApi,
  listServicesByReflection,
  memoryLogger,
  sequentialIds,
  unary,
} from '../unit/grpc/grpc-test-support';

const T1 = '2024-05-01T10:00:00.123456Z';
const T1_WIRE = { seconds: 1714557600, nanos: 123456000 };

const ALL_SERVICES = [
  'flipt.Flipt',
  'flipt.evaluation.EvaluationService',
  'flipt.evaluation.DataService',
  'flipt.auth.PublicAuthenticationService',
  'flipt.auth.AuthenticationService',
  'flipt.auth.AuthenticationMethodTokenService',
];

const authentication: Authentication = {
  id: 'a1',
  method: 'METHOD_TOKEN',
  createdAt: T1,
  updatedAt: T1,
  metadata: { 'io.flipt.auth.token.name': 'ci' },
};

const data: NamespaceData = {
  namespace: {
    key: 'default',
    name: 'Default',
    description: '',
    protected: true,
    createdAt: T1,
    updatedAt: T1,
  },
  version: 3,
  flags: [
    {
      namespaceKey: 'default',
      key: 'color',
      name: 'Color',
      description: '',
      enabled: true,
      type: 'VARIANT_FLAG_TYPE',
      createdAt: T1,
      updatedAt: T1,
      variants: [
        {
          id: 'v1',
          namespaceKey: 'default',
          flagKey: 'color',
          key: 'blue',
          name: '',
          description: '',
          attachment: '',
          createdAt: T1,
          updatedAt: T1,
        },
      ],
    },
  ],
  segments: [
    {
      namespaceKey: 'default',
      key: 'ids',
      name: 'Ids',
      description: 'x',
      matchType: 'ALL_MATCH_TYPE',
      createdAt: T1,
      updatedAt: T1,
      constraints: [
        {
          id: 'c1',
          namespaceKey: 'default',
          segmentKey: 'ids',
          type: 'ENTITY_ID_COMPARISON_TYPE',
          property: 'entityId',
          operator: 'eq',
          value: 'u1',
          description: '',
          createdAt: T1,
          updatedAt: T1,
        },
      ],
    },
  ],
  rules: [
    {
      id: 'r1',
      namespaceKey: 'default',
      flagKey: 'color',
      segmentKeys: ['ids'],
      segmentOperator: 'OR_SEGMENT_OPERATOR',
      rank: 1,
      distributions: [
        { id: 'd1', ruleId: 'r1', variantId: 'v1', rollout: 100, createdAt: T1, updatedAt: T1 },
      ],
      createdAt: T1,
      updatedAt: T1,
    },
  ],
  rollouts: [],
};

function fakeEvaluation(): { [K in keyof EvaluationApi]: jest.Mock } {
  return {
    boolean: jest.fn(),
    variant: jest.fn(),
    batch: jest.fn(),
    legacyEvaluate: jest.fn(),
    legacyBatchEvaluate: jest.fn(),
    clientSnapshot: jest.fn(async () => ({ data })),
  };
}

describe('gRPC evaluation, auth and health services', () => {
  const health = new FakeHealth();
  const evaluation = fakeEvaluation();
  const authApi: { [K in keyof GrpcAuthApi]: jest.Mock } = {
    createToken: jest.fn(),
    listAuthenticationMethods: jest.fn(),
    getAuthentication: jest.fn(),
    listAuthentications: jest.fn(),
    deleteAuthentication: jest.fn(),
    // As the domain AuthApi: the caller comes from the authenticator.
    getAuthenticationSelf: jest.fn((caller: Authentication | undefined) => {
      if (!caller) throw new UnauthenticatedError();
      return caller;
    }),
    expireAuthenticationSelf: jest.fn(),
  };
  const tokenApi = { createToken: authApi.createToken };
  let server: grpc.Server;
  let port: number;
  const clients: grpc.Client[] = [];
  const client = (service: string) => {
    const c = clientFor(service, port);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    server = createGrpcServer({
      management: fakeManagementApi(),
      health,
      logger: memoryLogger(),
      ids: sequentialIds(),
      evaluation: { api: evaluation },
      auth: { api: authApi, tokenMethodEnabled: true },
      authenticator: {
        // Bearer "good" authenticates; public methods and anonymous calls pass without one.
        authenticate: async ({ method, metadata }) => {
          const header = metadata.get('authorization')[0];
          if (header === 'Bearer good') return authentication;
          if (header !== undefined) throw new UnauthenticatedError();
          if (method.startsWith('/flipt.auth.AuthenticationService/')) {
            throw new UnauthenticatedError();
          }
          return undefined;
        },
      },
    });
    port = await bindGrpcServer(server, '127.0.0.1', 0);
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await shutdownGrpcServer(server, 1000);
  });

  describe('flipt.evaluation', () => {
    it('Boolean maps the request and the complete response', async () => {
      evaluation.boolean.mockResolvedValue({
        enabled: true,
        reason: 'MATCH_EVALUATION_REASON',
        flagKey: 'b',
        segmentKeys: ['s'],
        requestId: 'rid',
        requestDurationMillis: 0.25,
        timestamp: T1,
      });
      const metadata = new grpc.Metadata();
      metadata.set('x-request-id', 'call-7');
      const res = await unary(
        client('flipt.evaluation.EvaluationService'),
        'Boolean',
        { flagKey: 'b', entityId: 'e', context: { plan: 'pro' } },
        metadata,
      );
      // A message without its own request id takes the call's (the access line's).
      expect(evaluation.boolean).toHaveBeenCalledWith({
        requestId: 'call-7',
        namespaceKey: '',
        flagKey: 'b',
        entityId: 'e',
        context: { plan: 'pro' },
        reference: '',
      });
      expect(res).toEqual({
        enabled: true,
        reason: 'MATCH_EVALUATION_REASON',
        requestId: 'rid',
        requestDurationMillis: 0.25,
        timestamp: T1_WIRE,
        flagKey: 'b',
        segmentKeys: ['s'],
      });
    });

    it('Boolean keeps a request id the message carries', async () => {
      evaluation.boolean.mockClear();
      await unary(client('flipt.evaluation.EvaluationService'), 'Boolean', {
        requestId: 'mine',
        flagKey: 'b',
      });
      expect(evaluation.boolean).toHaveBeenCalledWith(
        expect.objectContaining({ requestId: 'mine' }),
      );
    });

    it('Variant answers NOT_FOUND for a missing flag', async () => {
      evaluation.variant.mockRejectedValue(new NotFoundError('flag "default/x" not found'));
      await expect(
        unary(client('flipt.evaluation.EvaluationService'), 'Variant', { flagKey: 'x' }),
      ).rejects.toMatchObject({
        code: grpc.status.NOT_FOUND,
        details: 'flag "default/x" not found',
      });
    });

    it('Batch carries each item in its oneof member', async () => {
      evaluation.batch.mockResolvedValue({
        requestId: 'b1',
        requestDurationMillis: 1.5,
        responses: [
          {
            type: 'VARIANT_EVALUATION_RESPONSE_TYPE',
            variant: {
              match: true,
              reason: 'MATCH_EVALUATION_REASON',
              legacyReason: 'MATCH_EVALUATION_REASON',
              flagKey: 'color',
              segmentKeys: ['ids'],
              variantKey: 'blue',
              variantAttachment: '',
              requestId: '',
              requestDurationMillis: 1.5,
              timestamp: T1,
            },
          },
          {
            type: 'ERROR_EVALUATION_RESPONSE_TYPE',
            error: {
              flagKey: 'gone',
              namespaceKey: '',
              reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
            },
          },
        ],
      });
      const res = await unary(client('flipt.evaluation.EvaluationService'), 'Batch', {
        requests: [{ flagKey: 'color', entityId: 'u1' }, { flagKey: 'gone' }],
      });
      expect(evaluation.batch.mock.calls[0][0].requests).toHaveLength(2);
      expect(res).toMatchObject({
        requestId: 'b1',
        requestDurationMillis: 1.5,
        responses: [
          {
            type: 'VARIANT_EVALUATION_RESPONSE_TYPE',
            response: 'variantResponse',
            variantResponse: { variantKey: 'blue', timestamp: T1_WIRE },
          },
          {
            type: 'ERROR_EVALUATION_RESPONSE_TYPE',
            response: 'errorResponse',
            errorResponse: { flagKey: 'gone', reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' },
          },
        ],
      });
    });

    it('legacy flipt.Flipt/Evaluate is served by the evaluation service', async () => {
      evaluation.legacyEvaluate.mockResolvedValue({
        requestId: 'r',
        entityId: 'u1',
        requestContext: {},
        match: true,
        flagKey: 'color',
        segmentKey: 'ids',
        timestamp: T1,
        value: 'blue',
        requestDurationMillis: 0.1,
        attachment: '',
        reason: 'MATCH_EVALUATION_REASON',
        namespaceKey: '',
        segmentKeys: ['ids'],
      });
      const res = await unary(client('flipt.Flipt'), 'Evaluate', {
        flagKey: 'color',
        entityId: 'u1',
      });
      expect(res).toMatchObject({ value: 'blue', segmentKey: 'ids', timestamp: T1_WIRE });
    });

    it('DataService builds the snapshot, gated by the client version', async () => {
      const data = client('flipt.evaluation.DataService');
      const old = await unary(data, 'EvaluationSnapshotNamespace', { key: 'default' });
      expect(old).toMatchObject({
        namespace: { key: 'default' },
        flags: [
          {
            key: 'color',
            type: 'VARIANT_FLAG_TYPE',
            rollouts: [],
            rules: [
              {
                id: 'r1',
                rank: 1,
                segments: [
                  {
                    key: 'ids',
                    name: '',
                    matchType: 'ALL_SEGMENT_MATCH_TYPE',
                    constraints: [{ id: 'c1', type: 'UNKNOWN_CONSTRAINT_COMPARISON_TYPE' }],
                  },
                ],
                distributions: [{ id: '', ruleId: '', variantId: 'v1', variantKey: 'blue' }],
              },
            ],
          },
        ],
      });
      const md = new grpc.Metadata();
      md.set('x-flipt-accept-server-version', 'v1.47.0');
      const recent = await unary<{
        flags: { rules: { segments: { constraints: object[] }[] }[] }[];
      }>(data, 'EvaluationSnapshotNamespace', { key: 'default' }, md);
      expect(recent.flags[0]?.rules[0]?.segments[0]?.constraints[0]).toMatchObject({
        type: 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE',
      });
    });
  });

  describe('flipt.auth', () => {
    it('creates a token', async () => {
      tokenApi.createToken.mockResolvedValue({ clientToken: 'secret', authentication });
      const res = await unary(
        client('flipt.auth.AuthenticationMethodTokenService'),
        'CreateToken',
        { name: 'ci', expiresAt: T1_WIRE, metadata: { k: 'v' } },
      );
      expect(tokenApi.createToken).toHaveBeenCalledWith({
        name: 'ci',
        description: '',
        expiresAt: T1,
        namespaceKey: '',
        metadata: { k: 'v' },
      });
      expect(res).toMatchObject({
        clientToken: 'secret',
        authentication: { id: 'a1', method: 'METHOD_TOKEN', createdAt: T1_WIRE },
      });
    });

    it('GetAuthenticationSelf needs an authenticated caller', async () => {
      const auth = client('flipt.auth.AuthenticationService');
      await expect(unary(auth, 'GetAuthenticationSelf', {})).rejects.toMatchObject({
        code: grpc.status.UNAUTHENTICATED,
        details: 'request was not authenticated',
      });
      const md = new grpc.Metadata();
      md.set('authorization', 'Bearer good');
      await expect(unary(auth, 'GetAuthenticationSelf', {}, md)).resolves.toMatchObject({
        id: 'a1',
        metadata: { 'io.flipt.auth.token.name': 'ci' },
      });
    });

    it('lists authentications with the method filter', async () => {
      authApi.listAuthentications.mockResolvedValue({
        authentications: [authentication],
        nextPageToken: '',
      });
      const md = new grpc.Metadata();
      md.set('authorization', 'Bearer good');
      const res = await unary(
        client('flipt.auth.AuthenticationService'),
        'ListAuthentications',
        { method: 'METHOD_TOKEN', limit: 10 },
        md,
      );
      expect(authApi.listAuthentications).toHaveBeenCalledWith({
        method: 'METHOD_TOKEN',
        limit: 10,
        pageToken: '',
      });
      expect(res['authentications']).toHaveLength(1);
    });
  });

  describe('grpc.health.v1', () => {
    it('Check reports "" and every registered service', async () => {
      const h = client('grpc.health.v1.Health');
      for (const service of ['', ...ALL_SERVICES]) {
        await expect(unary(h, 'Check', { service })).resolves.toEqual({ status: 'SERVING' });
      }
      await expect(
        unary(h, 'Check', { service: 'flipt.auth.AuthenticationMethodOIDCService' }),
      ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
    });

    it('Watch streams status changes and SERVICE_UNKNOWN for unknown services', async () => {
      const h = client('grpc.health.v1.Health');
      const seen: string[] = [];
      const stream = (h['Watch'] as (req: object) => grpc.ClientReadableStream<{ status: string }>)(
        { service: 'flipt.evaluation.EvaluationService' },
      );
      const next = () =>
        new Promise<string>((resolve) => stream.once('data', (r) => resolve(r.status)));
      stream.on('error', () => undefined); // the CANCELLED from our own cancel()
      seen.push(await next());
      const changed = next();
      health.set({ status: 'NOT_SERVING' });
      seen.push(await changed);
      const back = next();
      health.set({ status: 'SERVING' });
      seen.push(await back);
      expect(seen).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);
      stream.cancel();

      const unknown = (
        h['Watch'] as (req: object) => grpc.ClientReadableStream<{ status: string }>
      )({ service: 'nope' });
      const first = await new Promise<string>((resolve) =>
        unknown.once('data', (r) => resolve(r.status)),
      );
      expect(first).toBe('SERVICE_UNKNOWN');
      unknown.on('error', () => undefined);
      unknown.cancel();
    });

    it('reflection lists every served service and health', async () => {
      const names = await listServicesByReflection(port);
      expect(names.sort()).toEqual([...ALL_SERVICES, 'grpc.health.v1.Health'].sort());
    });
  });
});
