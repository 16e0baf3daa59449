import { FliptClient as FliptServerClient } from '@flipt-io/flipt';
import {
  FliptClient as DeclaredEngineClient,
  type IFetcher,
  type NodeFliptClient,
} from '@flipt-io/flipt-client-js';
import { FliptProvider } from '@openfeature/flipt-provider';
import { OpenFeature, StandardResolutionReasons } from '@openfeature/server-sdk';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import {
  api,
  RED_ATTACHMENT,
  SAMPLE_ENTITIES,
  seedConfiguration,
  type Json,
} from '../support/seed-config';

/*
 * The published Flipt clients, used as they are, against a running Vexil with seeded
 * configuration: the server SDK (@flipt-io/flipt), the OpenFeature provider built on it, and
 * the client-side engine (@flipt-io/flipt-client-js) that evaluates locally from the snapshot
 * route and refreshes through its ETag.
 */

// Under Node the package resolves to its Node client (with close()); its typings declare the
// browser one whatever the platform.
const FliptEngineClient = DeclaredEngineClient as unknown as typeof NodeFliptClient;

let vexil: VexilProcess;

beforeAll(async () => {
  vexil = await startVexil();
  await seedConfiguration(vexil.baseUrl);
  await seedConfiguration(vexil.baseUrl, 'staging');
});

afterAll(async () => {
  await OpenFeature.close();
  await vexil?.stop();
});

async function serverVariant(req: Json, namespaceKey = 'default'): Promise<Json> {
  return api(vexil.baseUrl, 'POST', '/evaluate/v1/variant', { ...req, namespaceKey });
}

async function serverBoolean(req: Json, namespaceKey = 'default'): Promise<Json> {
  return api(vexil.baseUrl, 'POST', '/evaluate/v1/boolean', { ...req, namespaceKey });
}

describe('@flipt-io/flipt (server SDK)', () => {
  const client = (): FliptServerClient => new FliptServerClient({ url: vexil?.baseUrl });

  it('evaluation.variant and evaluation.boolean', async () => {
    const v = await client().evaluation.variant({
      namespaceKey: 'default',
      flagKey: 'color',
      entityId: 'alice',
      context: { email: 'alice@example.com' },
    });
    expect(v).toMatchObject({
      match: true,
      segmentKeys: ['internal'],
      reason: 'MATCH_EVALUATION_REASON',
      flagKey: 'color',
      variantKey: 'red',
      variantAttachment: RED_ATTACHMENT,
    });
    expect(typeof v.requestDurationMillis).toBe('number');
    expect(typeof v.timestamp).toBe('string');

    const b = await client().evaluation.boolean({
      namespaceKey: 'staging',
      flagKey: 'new-ui',
      entityId: 'alice',
      context: { email: 'alice@example.com' },
    });
    expect(b).toMatchObject({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      flagKey: 'new-ui',
      segmentKeys: ['internal'],
    });
  });

  it('evaluation.batch (the SDK sends request_id)', async () => {
    const r = await client().evaluation.batch({
      request_id: 'sdk-batch',
      requests: [
        { namespaceKey: 'default', flagKey: 'kill-switch', entityId: 'x', context: {} },
        { namespaceKey: 'default', flagKey: 'color', entityId: 'vip-1', context: {} },
        { namespaceKey: 'default', flagKey: 'missing', entityId: 'x', context: {} },
      ],
    });
    expect(r.requestId).toBe('sdk-batch');
    expect(r.responses.map((x) => x.type)).toEqual([
      'BOOLEAN_EVALUATION_RESPONSE_TYPE',
      'VARIANT_EVALUATION_RESPONSE_TYPE',
      'ERROR_EVALUATION_RESPONSE_TYPE',
    ]);
    expect(r.responses[0]?.booleanResponse?.enabled).toBe(true);
    expect(r.responses[1]?.variantResponse?.variantKey).toBe('green');
    expect(r.responses[2]?.errorResponse).toEqual({
      flagKey: 'missing',
      namespaceKey: 'default',
      reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
    });
  });

  it('errors surface the server message', async () => {
    await expect(
      client().evaluation.boolean({
        namespaceKey: 'default',
        flagKey: 'nope',
        entityId: 'x',
        context: {},
      }),
    ).rejects.toThrow('flag "default/nope" not found');
    await expect(
      client().evaluation.variant({
        namespaceKey: 'default',
        flagKey: 'new-ui',
        entityId: 'x',
        context: {},
      }),
    ).rejects.toThrow('flag type BOOLEAN_FLAG_TYPE invalid');
  });

  it('flags.listFlags', async () => {
    const all = await client().flags.listFlags('default');
    expect(all.totalCount).toBe(5);
    expect(all.nextPageToken).toBe('');
    const color = all.flags.find((f) => f.key === 'color');
    expect(color).toMatchObject({
      key: 'color',
      name: 'color',
      enabled: true,
      namespaceKey: 'default',
      type: 'VARIANT_FLAG_TYPE',
    });
    expect(color?.variants.map((v) => v.key)).toEqual(['red', 'blue', 'green']);

    const page = await client().flags.listFlags('default', { limit: 2 });
    expect(page.flags).toHaveLength(2);
    expect(page.nextPageToken).not.toBe('');
    const next = await client().flags.listFlags('default', {
      limit: 10,
      pageToken: page.nextPageToken,
    });
    expect(next.flags).toHaveLength(3);
  });
});

describe('@openfeature/server-sdk with @openfeature/flipt-provider', () => {
  beforeAll(async () => {
    await OpenFeature.setProviderAndWait(new FliptProvider('default', { url: vexil.baseUrl }));
  });

  it('boolean resolution', async () => {
    const of = OpenFeature.getClient();
    const matched = await of.getBooleanDetails('new-ui', false, {
      targetingKey: 'alice',
      email: 'alice@example.com',
    });
    expect(matched).toMatchObject({
      flagKey: 'new-ui',
      value: true,
      reason: StandardResolutionReasons.TARGETING_MATCH,
    });
    expect(matched.errorCode).toBeUndefined();
    expect(await of.getBooleanValue('kill-switch', false, { targetingKey: 'x' })).toBe(true);

    const missing = await of.getBooleanDetails('nope', true, { targetingKey: 'x' });
    expect(missing.value).toBe(true);
    expect(missing.reason).toBe(StandardResolutionReasons.ERROR);
    expect(missing.errorMessage).toBe('flag "default/nope" not found');
  });

  it('string and object resolution', async () => {
    const of = OpenFeature.getClient();
    const str = await of.getStringDetails('color', 'none', {
      targetingKey: 'bob',
      plan: 'beta',
      mobile: true,
    });
    expect(str.reason).toBe(StandardResolutionReasons.TARGETING_MATCH);
    const server = await serverVariant({
      flagKey: 'color',
      entityId: 'bob',
      context: { plan: 'beta', mobile: 'true' },
    });
    expect(str.value).toBe(server.variantKey);

    const obj = await of.getObjectDetails(
      'color',
      {},
      {
        targetingKey: 'alice',
        email: 'alice@example.com',
      },
    );
    expect(obj).toMatchObject({
      value: { hex: '#f00', weight: 1 },
      reason: StandardResolutionReasons.TARGETING_MATCH,
    });

    const fallback = await of.getStringDetails('color', 'none', { targetingKey: 'nobody' });
    expect(fallback).toMatchObject({ value: 'none', reason: StandardResolutionReasons.DEFAULT });
    const disabled = await of.getStringDetails('legacy-off', 'none', { targetingKey: 'x' });
    expect(disabled).toMatchObject({ value: 'none', reason: StandardResolutionReasons.DISABLED });
  });
});

describe('@flipt-io/flipt-client-js (client-side engine)', () => {
  /** Snapshot requests the access log recorded, as [status, ...] in order. */
  const snapshotStatuses = (): number[] =>
    vexil.lines.flatMap((line) => {
      try {
        const e = JSON.parse(line) as Json;
        return e.message === 'http request' && String(e.route).includes('/snapshot/namespace')
          ? [e.status as number]
          : [];
      } catch {
        return [];
      }
    });

  /*
   * The engine's built-in fetcher loads node-fetch with a dynamic import(), which jest's
   * CommonJS sandbox refuses; this one sends exactly its request with the global fetch.
   */
  const fetcherFor = (namespace: string): IFetcher => {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'x-flipt-accept-server-version': '1.47.0',
      'x-flipt-environment': 'default',
    };
    return async (opts) => {
      if (opts?.etag) headers['If-None-Match'] = opts.etag;
      const resp = await fetch(
        `${vexil.baseUrl}/internal/v1/evaluation/snapshot/namespace/${namespace}`,
        { headers },
      );
      if (!resp.ok && resp.status !== 304)
        throw new Error(`Failed to fetch data: ${resp.statusText}`);
      return resp;
    };
  };

  it('evaluates locally with the same answers as the server', async () => {
    for (const namespace of ['default', 'staging']) {
      const engine = await FliptEngineClient.init({
        namespace,
        url: vexil.baseUrl,
        fetcher: fetcherFor(namespace),
      });
      try {
        expect(
          engine
            .listFlags()
            .map((f) => f.key)
            .sort(),
        ).toEqual(['color', 'kill-switch', 'legacy-off', 'new-ui', 'theme']);
        for (const { entityId, context } of SAMPLE_ENTITIES) {
          for (const flagKey of ['color', 'theme', 'legacy-off']) {
            const local = engine.evaluateVariant({ flagKey, entityId, context });
            const remote = await serverVariant({ flagKey, entityId, context }, namespace);
            expect({ flagKey, entityId, local: pick(local) }).toEqual({
              flagKey,
              entityId,
              local: pick(remote),
            });
          }
          for (const flagKey of ['new-ui', 'kill-switch']) {
            const local = engine.evaluateBoolean({ flagKey, entityId, context });
            const remote = await serverBoolean({ flagKey, entityId, context }, namespace);
            expect({ flagKey, entityId, enabled: local.enabled, reason: local.reason }).toEqual({
              flagKey,
              entityId,
              enabled: remote.enabled,
              reason: remote.reason,
            });
          }
        }
      } finally {
        engine.close();
      }
    }
  });

  it('refreshes through the ETag: 304 while unchanged, 200 after a write', async () => {
    const before = snapshotStatuses().length;
    const engine = await FliptEngineClient.init({
      namespace: 'default',
      url: vexil.baseUrl,
      fetcher: fetcherFor('default'),
    });
    try {
      const ctx = { flagKey: 'kill-switch', entityId: 'x', context: {} };
      expect(engine.evaluateBoolean(ctx).enabled).toBe(true);
      expect(await engine.refresh()).toBe(false);
      expect(await engine.refresh()).toBe(false);

      await api(vexil.baseUrl, 'PUT', '/api/v1/namespaces/default/flags/kill-switch', {
        name: 'kill-switch',
        enabled: false,
      });
      expect(await engine.refresh()).toBe(true);
      expect(engine.evaluateBoolean(ctx).enabled).toBe(false);
      expect(await engine.refresh()).toBe(false);

      // The access log line is written when the response finishes; allow it a moment.
      const deadline = Date.now() + 2000;
      while (snapshotStatuses().length < before + 5 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(snapshotStatuses().slice(before)).toEqual([200, 304, 304, 200, 304]);
    } finally {
      engine.close();
    }
  });
});

describe('@flipt-io/flipt-client-js auto refresh', () => {
  it('picks up a write on its own update interval', async () => {
    const engine = await FliptEngineClient.init({
      namespace: 'staging',
      url: vexil.baseUrl,
      updateInterval: 1,
      fetcher: async (opts) => {
        const headers: Record<string, string> = { 'x-flipt-accept-server-version': '1.47.0' };
        if (opts?.etag) headers['If-None-Match'] = opts.etag;
        return fetch(`${vexil.baseUrl}/internal/v1/evaluation/snapshot/namespace/staging`, {
          headers,
        });
      },
    });
    try {
      const ctx = { flagKey: 'theme', entityId: 'x', context: { plan: 'beta' } };
      expect(engine.evaluateVariant(ctx).variantKey).toBe('dark');
      await api(vexil.baseUrl, 'PUT', '/api/v1/namespaces/staging/flags/theme', {
        name: 'theme',
        enabled: false,
      });
      const deadline = Date.now() + 5000;
      while (engine.evaluateVariant(ctx).reason !== 'FLAG_DISABLED_EVALUATION_REASON') {
        if (Date.now() > deadline) throw new Error('the engine never refreshed');
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      engine.close();
    }
  });
});

function pick(r: Json): Json {
  return {
    match: r.match,
    reason: r.reason,
    variantKey: r.variantKey,
    // The engine leaves out an empty attachment where the server sends "".
    variantAttachment: r.variantAttachment ?? '',
    segmentKeys: [...(r.segmentKeys as string[])].sort(),
  };
}
