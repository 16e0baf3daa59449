import * as grpc from '@grpc/grpc-js';
import { clientFor, unary } from '../unit/grpc/grpc-test-support';
import {
  BOOTSTRAP_TOKEN,
  bearer,
  http,
  sharedState,
  startInstance,
  type Instance,
} from './auth-harness';

/*
 * authentication.exclude.management / .evaluation with authentication required, over real HTTP
 * and gRPC: the excluded group answers without a token (as Flipt's interceptor skips it), every
 * other group still answers 401 / UNAUTHENTICATED.
 */

async function seed(vexil: Instance): Promise<void> {
  await vexil.management.createFlag({
    namespaceKey: 'default',
    key: 'on',
    name: 'On',
    description: '',
    enabled: true,
    type: 'BOOLEAN_FLAG_TYPE',
  });
  // The legacy evaluation takes variant flags only.
  await vexil.management.createFlag({
    namespaceKey: 'default',
    key: 'color',
    name: 'Color',
    description: '',
    enabled: true,
    type: 'VARIANT_FLAG_TYPE',
  });
}

const evaluate = { namespaceKey: 'default', flagKey: 'on', entityId: 'e', context: {} };

async function grpcCode(vexil: Instance, service: string, rpc: string, request: object) {
  const client = clientFor(service, vexil.grpcPort);
  try {
    await unary(client, rpc, request);
    return grpc.status.OK;
  } catch (err) {
    return (err as grpc.ServiceError).code;
  } finally {
    client.close();
  }
}

describe('authentication.exclude.management', () => {
  let vexil: Instance;
  beforeAll(async () => {
    vexil = await startInstance(sharedState(), { exclude: { management: true } });
    await seed(vexil);
  });
  afterAll(() => vexil.stop());

  it('serves /api/v1 and the legacy evaluation without a token, and nothing else', async () => {
    const port = vexil.httpPort;
    expect((await http(port, 'GET', '/api/v1/namespaces')).status).toBe(200);
    expect((await http(port, 'GET', '/api/v1/namespaces/default/flags/on')).status).toBe(200);
    const legacy = await http(port, 'POST', '/api/v1/evaluate', {
      body: { flagKey: 'color', entityId: 'e' },
    });
    expect(legacy.status).toBe(200);
    expect((await http(port, 'POST', '/evaluate/v1/boolean', { body: evaluate })).status).toBe(401);
    expect(
      (await http(port, 'GET', '/internal/v1/evaluation/snapshot/namespace/default')).status,
    ).toBe(401);
    expect((await http(port, 'GET', '/auth/v1/self')).status).toBe(401);
    // A token still works where one is needed.
    expect(
      (
        await http(port, 'POST', '/evaluate/v1/boolean', {
          body: evaluate,
          headers: bearer(BOOTSTRAP_TOKEN),
        })
      ).status,
    ).toBe(200);
  });

  it('serves flipt.Flipt over gRPC without a token, and nothing else', async () => {
    expect(await grpcCode(vexil, 'flipt.Flipt', 'ListNamespaces', {})).toBe(grpc.status.OK);
    expect(
      await grpcCode(vexil, 'flipt.Flipt', 'Evaluate', { flagKey: 'color', entityId: 'e' }),
    ).toBe(grpc.status.OK);
    expect(await grpcCode(vexil, 'flipt.evaluation.EvaluationService', 'Boolean', evaluate)).toBe(
      grpc.status.UNAUTHENTICATED,
    );
    expect(
      await grpcCode(vexil, 'flipt.evaluation.DataService', 'EvaluationSnapshotNamespace', {
        key: 'default',
      }),
    ).toBe(grpc.status.UNAUTHENTICATED);
  });
});

describe('authentication.exclude.evaluation', () => {
  let vexil: Instance;
  beforeAll(async () => {
    vexil = await startInstance(sharedState(), { exclude: { evaluation: true } });
    await seed(vexil);
  });
  afterAll(() => vexil.stop());

  it('serves evaluation and the client snapshot without a token, and nothing else', async () => {
    const port = vexil.httpPort;
    const boolean = await http(port, 'POST', '/evaluate/v1/boolean', { body: evaluate });
    expect(boolean.status).toBe(200);
    expect(boolean.json()).toMatchObject({ enabled: true, flagKey: 'on' });
    const batch = await http(port, 'POST', '/evaluate/v1/batch', {
      body: { requests: [evaluate] },
    });
    expect(batch.status).toBe(200);
    expect(
      (await http(port, 'GET', '/internal/v1/evaluation/snapshot/namespace/default')).status,
    ).toBe(200);
    // The legacy evaluation belongs to flipt.Flipt, which is not excluded.
    expect(
      (await http(port, 'POST', '/api/v1/evaluate', { body: { flagKey: 'color', entityId: 'e' } }))
        .status,
    ).toBe(401);
    expect((await http(port, 'GET', '/api/v1/namespaces')).status).toBe(401);
  });

  it('does not look at the caller: a garbage token is no reason to refuse', async () => {
    const res = await http(vexil.httpPort, 'POST', '/evaluate/v1/boolean', {
      body: evaluate,
      headers: bearer('garbage'),
    });
    expect(res.status).toBe(200);
  });

  it('serves EvaluationService and DataService over gRPC without a token, and nothing else', async () => {
    expect(await grpcCode(vexil, 'flipt.evaluation.EvaluationService', 'Boolean', evaluate)).toBe(
      grpc.status.OK,
    );
    expect(
      await grpcCode(vexil, 'flipt.evaluation.DataService', 'EvaluationSnapshotNamespace', {
        key: 'default',
      }),
    ).toBe(grpc.status.OK);
    expect(await grpcCode(vexil, 'flipt.Flipt', 'ListNamespaces', {})).toBe(
      grpc.status.UNAUTHENTICATED,
    );
  });
});
