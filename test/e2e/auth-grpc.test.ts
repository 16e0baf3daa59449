import * as grpc from '@grpc/grpc-js';
import { clientFor, unary } from '../unit/grpc/grpc-test-support';
import {
  BOOTSTRAP_TOKEN,
  bearer,
  grpcMetadata,
  http,
  sharedState,
  startInstance,
  type Instance,
  type Shared,
} from './auth-harness';

/*
 * Authentication over gRPC with `authentication.required: true`: every service (flipt.Flipt
 * management and legacy evaluation, EvaluationService incl. Batch, DataService, the auth
 * services) against every kind of credential; the exempt services; namespace scoping.
 */

let shared: Shared;
let vexil: Instance;
let seq = 0;
const tokens: Record<string, string> = {};
const clients = new Map<string, ReturnType<typeof clientFor>>();

function client(service: string): ReturnType<typeof clientFor> {
  let c = clients.get(service);
  if (!c) {
    c = clientFor(service, vexil.grpcPort);
    clients.set(service, c);
  }
  return c;
}

async function createToken(
  body: Record<string, unknown>,
): Promise<{ clientToken: string; authentication: { id: string } }> {
  return unary(
    client('flipt.auth.AuthenticationMethodTokenService'),
    'CreateToken',
    body,
    grpcMetadata(bearer(BOOTSTRAP_TOKEN)),
  );
}

beforeAll(async () => {
  shared = sharedState();
  vexil = await startInstance(shared);
  for (const ns of ['prod', 'staging']) {
    await vexil.management.createNamespace({ key: ns, name: ns, description: '' });
  }
  for (const ns of ['default', 'prod', 'staging']) {
    for (const [key, type] of [
      ['on', 'BOOLEAN_FLAG_TYPE'],
      ['color', 'VARIANT_FLAG_TYPE'],
    ] as const) {
      await vexil.management.createFlag({
        namespaceKey: ns,
        key,
        name: key,
        description: '',
        enabled: true,
        type,
      });
    }
  }
  tokens['good'] = (await createToken({ name: 'good' })).clientToken;
  tokens['prod'] = (await createToken({ name: 'prod', namespaceKey: 'prod' })).clientToken;
  tokens['expired'] = (
    await createToken({ name: 'expired', expiresAt: { seconds: 1577836800, nanos: 0 } })
  ).clientToken;
  const deleted = await createToken({ name: 'deleted' });
  tokens['deleted'] = deleted.clientToken;
  await unary(
    client('flipt.auth.AuthenticationService'),
    'GetAuthenticationSelf',
    {},
    grpcMetadata(bearer(deleted.clientToken)),
  );
  await unary(
    client('flipt.auth.AuthenticationService'),
    'DeleteAuthentication',
    { id: deleted.authentication.id },
    grpcMetadata(bearer(BOOTSTRAP_TOKEN)),
  );
});

afterAll(async () => {
  for (const c of clients.values()) c.close();
  await vexil.stop();
});

interface RpcCase {
  readonly service: string;
  readonly rpc: string;
  readonly request: () => object;
  readonly ns: 'prod' | 'other';
}

const FLIPT = 'flipt.Flipt';
const EVAL = 'flipt.evaluation.EvaluationService';

const RPCS: RpcCase[] = [
  {
    service: FLIPT,
    rpc: 'GetFlag',
    request: () => ({ namespaceKey: 'prod', key: 'on' }),
    ns: 'prod',
  },
  { service: FLIPT, rpc: 'ListFlags', request: () => ({ namespaceKey: 'prod' }), ns: 'prod' },
  { service: FLIPT, rpc: 'GetNamespace', request: () => ({ key: 'prod' }), ns: 'prod' },
  {
    service: FLIPT,
    rpc: 'CreateFlag',
    request: () => ({
      namespaceKey: 'prod',
      key: `g${++seq}`,
      name: 'G',
      type: 'BOOLEAN_FLAG_TYPE',
    }),
    ns: 'prod',
  },
  { service: FLIPT, rpc: 'ListFlags', request: () => ({ namespaceKey: 'staging' }), ns: 'other' },
  { service: FLIPT, rpc: 'GetFlag', request: () => ({ key: 'on' }), ns: 'other' },
  { service: FLIPT, rpc: 'ListNamespaces', request: () => ({}), ns: 'other' },
  { service: FLIPT, rpc: 'GetNamespace', request: () => ({ key: 'staging' }), ns: 'other' },
  {
    service: FLIPT,
    rpc: 'Evaluate',
    request: () => ({ namespaceKey: 'prod', flagKey: 'color', entityId: 'e' }),
    ns: 'prod',
  },
  {
    service: FLIPT,
    rpc: 'Evaluate',
    request: () => ({ flagKey: 'color', entityId: 'e' }),
    ns: 'other',
  },
  {
    service: FLIPT,
    rpc: 'BatchEvaluate',
    request: () => ({ namespaceKey: 'prod', requests: [{ flagKey: 'color', entityId: 'e' }] }),
    ns: 'prod',
  },
  {
    service: FLIPT,
    rpc: 'BatchEvaluate',
    request: () => ({ namespaceKey: 'staging', requests: [{ flagKey: 'color', entityId: 'e' }] }),
    ns: 'other',
  },
  {
    service: EVAL,
    rpc: 'Boolean',
    request: () => ({ namespaceKey: 'prod', flagKey: 'on', entityId: 'e' }),
    ns: 'prod',
  },
  {
    service: EVAL,
    rpc: 'Variant',
    request: () => ({ namespaceKey: 'staging', flagKey: 'color', entityId: 'e' }),
    ns: 'other',
  },
  {
    service: EVAL,
    rpc: 'Batch',
    request: () => ({
      requests: [
        { namespaceKey: 'prod', flagKey: 'on', entityId: 'e' },
        { namespaceKey: 'prod', flagKey: 'color', entityId: 'e' },
      ],
    }),
    ns: 'prod',
  },
  {
    service: EVAL,
    rpc: 'Batch',
    request: () => ({
      requests: [
        { namespaceKey: 'prod', flagKey: 'on', entityId: 'e' },
        { namespaceKey: 'staging', flagKey: 'on', entityId: 'e' },
      ],
    }),
    ns: 'other',
  },
  {
    service: 'flipt.evaluation.DataService',
    rpc: 'EvaluationSnapshotNamespace',
    request: () => ({ key: 'prod' }),
    ns: 'prod',
  },
  {
    service: 'flipt.evaluation.DataService',
    rpc: 'EvaluationSnapshotNamespace',
    request: () => ({ key: 'default' }),
    ns: 'other',
  },
  {
    service: 'flipt.auth.AuthenticationService',
    rpc: 'GetAuthenticationSelf',
    request: () => ({}),
    ns: 'other',
  },
  {
    service: 'flipt.auth.AuthenticationService',
    rpc: 'ListAuthentications',
    request: () => ({}),
    ns: 'other',
  },
  {
    service: 'flipt.auth.AuthenticationMethodTokenService',
    rpc: 'CreateToken',
    request: () => ({ name: `t${++seq}` }),
    ns: 'other',
  },
];

const REFUSED: Array<[string, () => Record<string, string>]> = [
  ['no credential', () => ({})],
  ['a lower-case scheme', () => ({ authorization: `bearer ${tokens['good']}` })],
  ['another scheme', () => ({ authorization: `Basic ${tokens['good']}` })],
  ['an unknown token', () => bearer('B'.repeat(43) + '=')],
  ['an expired token', () => bearer(tokens['expired'] ?? '')],
  ['a deleted token', () => bearer(tokens['deleted'] ?? '')],
];

const call = (c: RpcCase, headers: Record<string, string>) =>
  unary(client(c.service), c.rpc, c.request(), grpcMetadata(headers));

const UNAUTHENTICATED = {
  code: grpc.status.UNAUTHENTICATED,
  details: 'request was not authenticated',
};

describe.each(RPCS)('$service/$rpc ($ns)', (c) => {
  it.each(REFUSED)('refuses %s with UNAUTHENTICATED', async (_label, headers) => {
    await expect(call(c, headers())).rejects.toMatchObject(UNAUTHENTICATED);
  });

  it('accepts a good token', async () => {
    await expect(call(c, bearer(tokens['good'] ?? ''))).resolves.toBeDefined();
  });

  it('accepts a good token in a cookie', async () => {
    await expect(
      call(c, { cookie: `flipt_client_token=${tokens['good']}` }),
    ).resolves.toBeDefined();
  });

  it(`${c.ns === 'prod' ? 'accepts' : 'refuses'} a token scoped to prod`, async () => {
    const result = call(c, bearer(tokens['prod'] ?? ''));
    if (c.ns === 'prod') await expect(result).resolves.toBeDefined();
    else await expect(result).rejects.toMatchObject(UNAUTHENTICATED);
  });
});

describe('exempt services', () => {
  it('health and the public method list need no token', async () => {
    await expect(unary(client('grpc.health.v1.Health'), 'Check', { service: '' })).resolves.toEqual(
      { status: 'SERVING' },
    );
    const res = await unary<{ methods: Array<{ method: string; enabled: boolean }> }>(
      client('flipt.auth.PublicAuthenticationService'),
      'ListAuthenticationMethods',
      {},
    );
    expect(res.methods[0]).toMatchObject({ method: 'METHOD_TOKEN', enabled: true });
  });
});

describe('auth services over gRPC', () => {
  it('expire self refuses the token on both transports at once', async () => {
    const { clientToken } = await createToken({ name: 'bye' });
    const md = () => grpcMetadata(bearer(clientToken));
    await unary(client('flipt.auth.AuthenticationService'), 'ExpireAuthenticationSelf', {}, md());
    await expect(
      unary(client('flipt.auth.AuthenticationService'), 'GetAuthenticationSelf', {}, md()),
    ).rejects.toMatchObject(UNAUTHENTICATED);
    expect(
      (await http(vexil.httpPort, 'GET', '/auth/v1/self', { headers: bearer(clientToken) })).status,
    ).toBe(401);
  });

  it('a token created over HTTP works over gRPC and the reverse', async () => {
    const viaGrpc = await createToken({ name: 'from-grpc' });
    const self = await http(vexil.httpPort, 'GET', '/auth/v1/self', {
      headers: bearer(viaGrpc.clientToken),
    });
    expect(self.json()).toMatchObject({ id: viaGrpc.authentication.id });
  });

  it('no plaintext token reaches the log', () => {
    const logs = vexil.logger.text();
    for (const token of [BOOTSTRAP_TOKEN, ...Object.values(tokens)]) {
      expect(logs).not.toContain(token);
    }
  });
});
