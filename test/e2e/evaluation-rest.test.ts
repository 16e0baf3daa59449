import { BLUE_ATTACHMENT, RED_ATTACHMENT } from '../support/seed-config';
import { expectEnvelope, UUID_V4, RFC3339_UTC, useSeededVexil } from '../support/evaluation-rest';

/*
 * The v2 evaluation REST routes of a running Vexil over seeded configuration: boolean, variant
 * and batch (plain and namespace-scoped), and Flipt's error answers.
 */

const { baseUrl, post, ok } = useSeededVexil();

describe('POST /evaluate/v1/variant', () => {
  it('matches a single-segment rule and returns the variant attachment', async () => {
    const r = await ok('/evaluate/v1/variant', {
      flagKey: 'color',
      entityId: 'alice',
      context: { email: 'alice@example.com' },
    });
    expect(Object.keys(r)).toEqual([
      'match',
      'segmentKeys',
      'reason',
      'variantKey',
      'variantAttachment',
      'requestId',
      'requestDurationMillis',
      'timestamp',
      'flagKey',
    ]);
    expect(r).toMatchObject({
      match: true,
      segmentKeys: ['internal'],
      reason: 'MATCH_EVALUATION_REASON',
      variantKey: 'red',
      variantAttachment: RED_ATTACHMENT,
      flagKey: 'color',
    });
    expectEnvelope(r);
  });

  it('matches a two-segment AND rule and lists both segments', async () => {
    const r = await ok('/evaluate/v1/variant', {
      flagKey: 'color',
      entityId: 'bob',
      context: { plan: 'beta', mobile: 'true' },
    });
    expect(r.match).toBe(true);
    expect(r.segmentKeys).toEqual(['beta', 'mobile']);
    expect(['blue', 'green']).toContain(r.variantKey);
  });

  it('matches an ENTITY_ID constraint', async () => {
    const r = await ok('/evaluate/v1/variant', { flagKey: 'color', entityId: 'vip-2' });
    expect(r).toMatchObject({ match: true, segmentKeys: ['vip'], variantKey: 'green' });
  });

  it('falls back to the default variant with DEFAULT reason', async () => {
    const r = await ok('/evaluate/v1/variant', { flagKey: 'color', entityId: 'nobody' });
    expect(r).toMatchObject({
      match: false,
      segmentKeys: [],
      reason: 'DEFAULT_EVALUATION_REASON',
      variantKey: 'blue',
      variantAttachment: BLUE_ATTACHMENT,
    });
  });

  it('answers UNKNOWN without a default variant and FLAG_DISABLED for a disabled flag', async () => {
    const theme = await ok('/evaluate/v1/variant', { flagKey: 'theme', entityId: 'x' });
    expect(theme).toMatchObject({
      match: false,
      reason: 'UNKNOWN_EVALUATION_REASON',
      variantKey: '',
      variantAttachment: '',
    });
    const off = await ok('/evaluate/v1/variant', { flagKey: 'legacy-off', entityId: 'x' });
    expect(off).toMatchObject({ match: false, reason: 'FLAG_DISABLED_EVALUATION_REASON' });
  });

  it('echoes a given requestId and accepts snake_case field names', async () => {
    const r = await ok('/evaluate/v1/variant', {
      request_id: 'req-42',
      flag_key: 'theme',
      entity_id: 'x',
      context: { plan: 'beta' },
    });
    expect(r).toMatchObject({ requestId: 'req-42', match: true, variantKey: 'dark' });
    expectEnvelope(r, 'req-42');
  });

  it('treats a null context value as ""', async () => {
    const withNull = await ok('/evaluate/v1/variant', {
      flagKey: 'theme',
      entityId: 'x',
      context: { plan: null, age: '35' },
    });
    expect(withNull).toMatchObject({ match: true, variantKey: 'dark' });
    // "" for email: the suffix constraint cannot match; the flag falls through to the default.
    const r = await ok('/evaluate/v1/variant', {
      flagKey: 'color',
      entityId: 'nobody',
      context: { email: null },
    });
    expect(r.reason).toBe('DEFAULT_EVALUATION_REASON');
  });
});

describe('POST /evaluate/v1/boolean', () => {
  it('matches a segment rollout', async () => {
    const r = await ok('/evaluate/v1/boolean', {
      flagKey: 'new-ui',
      entityId: 'alice',
      context: { email: 'alice@example.com' },
      requestId: 'b-1',
    });
    expect(Object.keys(r)).toEqual([
      'enabled',
      'reason',
      'requestId',
      'requestDurationMillis',
      'timestamp',
      'flagKey',
      'segmentKeys',
    ]);
    expect(r).toMatchObject({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      flagKey: 'new-ui',
      segmentKeys: ['internal'],
    });
    expectEnvelope(r, 'b-1');
  });

  it('splits the threshold rollout and defaults to the flag state otherwise', async () => {
    const outcomes = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const r = await ok('/evaluate/v1/boolean', { flagKey: 'new-ui', entityId: `e-${i}` });
      expect(r.segmentKeys).toEqual([]);
      outcomes.add(`${r.enabled}/${r.reason}`);
      expectEnvelope(r);
    }
    expect([...outcomes].sort()).toEqual([
      'false/DEFAULT_EVALUATION_REASON',
      'true/MATCH_EVALUATION_REASON',
    ]);
    const r = await ok('/evaluate/v1/boolean', { flagKey: 'kill-switch', entityId: 'x' });
    expect(r).toMatchObject({ enabled: true, reason: 'DEFAULT_EVALUATION_REASON' });
  });

  it('is deterministic for an entity', async () => {
    const a = await ok('/evaluate/v1/boolean', { flagKey: 'new-ui', entityId: 'same' });
    const b = await ok('/evaluate/v1/boolean', { flagKey: 'new-ui', entityId: 'same' });
    expect(a.enabled).toBe(b.enabled);
    expect(a.requestId).not.toBe(b.requestId);
  });
});

describe('namespace-scoped v2 routes', () => {
  it('evaluates in the namespace of the path, ignoring the body namespace', async () => {
    await fetch(`${baseUrl()}/api/v1/namespaces/staging/flags/kill-switch`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kill-switch', enabled: false }),
    });
    const scoped = await ok('/evaluate/v1/namespaces/staging/boolean', {
      namespaceKey: 'default',
      flagKey: 'kill-switch',
      entityId: 'x',
    });
    expect(scoped.enabled).toBe(false);
    const byBody = await ok('/evaluate/v1/boolean', {
      namespaceKey: 'staging',
      flagKey: 'kill-switch',
      entityId: 'x',
    });
    expect(byBody.enabled).toBe(false);
    const inDefault = await ok('/evaluate/v1/boolean', { flagKey: 'kill-switch', entityId: 'x' });
    expect(inDefault.enabled).toBe(true);

    const variant = await ok('/evaluate/v1/namespaces/staging/variant', {
      flagKey: 'color',
      entityId: 'alice',
      context: { email: 'alice@example.com' },
    });
    expect(variant).toMatchObject({ match: true, variantKey: 'red' });
    expectEnvelope(variant);

    const missing = await post('/evaluate/v1/namespaces/nowhere/variant', {
      flagKey: 'color',
      entityId: 'x',
    });
    expect(missing).toEqual({
      status: 404,
      body: { code: 5, message: 'flag "nowhere/color" not found', details: [] },
    });
  });

  it('batch: the path namespace applies to the items', async () => {
    const r = await ok('/evaluate/v1/namespaces/staging/batch', {
      requests: [
        { flagKey: 'kill-switch', entityId: 'x' },
        { flagKey: 'nope', entityId: 'x' },
      ],
    });
    expect(r.responses[0].booleanResponse.enabled).toBe(false);
    expect(r.responses[1]).toEqual({
      type: 'ERROR_EVALUATION_RESPONSE_TYPE',
      errorResponse: {
        flagKey: 'nope',
        namespaceKey: 'staging',
        reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
      },
    });
  });
});

describe('POST /evaluate/v1/batch', () => {
  it('answers boolean, variant and not-found items in order', async () => {
    const r = await ok('/evaluate/v1/batch', {
      requests: [
        { flagKey: 'new-ui', entityId: 'alice', context: { email: 'alice@example.com' } },
        { flagKey: 'color', entityId: 'vip-1', requestId: 'inner-1' },
        { flagKey: 'missing', entityId: 'x', namespaceKey: '' },
        { flagKey: 'missing', entityId: 'x', namespaceKey: 'staging' },
        { flagKey: 'kill-switch', entityId: 'x', namespaceKey: 'staging' },
      ],
    });
    expect(Object.keys(r)).toEqual(['requestId', 'responses', 'requestDurationMillis']);
    expectEnvelope({ ...r, timestamp: r.responses[0].booleanResponse.timestamp });
    const [boolean, variant, nf1, nf2, staged] = r.responses;
    expect(boolean.type).toBe('BOOLEAN_EVALUATION_RESPONSE_TYPE');
    expect(boolean.booleanResponse).toMatchObject({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      requestId: '',
      flagKey: 'new-ui',
      segmentKeys: ['internal'],
      requestDurationMillis: r.requestDurationMillis,
    });
    expect(boolean.booleanResponse.timestamp).toMatch(RFC3339_UTC);
    expect(variant.type).toBe('VARIANT_EVALUATION_RESPONSE_TYPE');
    expect(variant.variantResponse).toMatchObject({
      match: true,
      variantKey: 'green',
      requestId: 'inner-1',
      flagKey: 'color',
      requestDurationMillis: r.requestDurationMillis,
    });
    expect(nf1).toEqual({
      type: 'ERROR_EVALUATION_RESPONSE_TYPE',
      errorResponse: {
        flagKey: 'missing',
        namespaceKey: '',
        reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
      },
    });
    expect(nf2.errorResponse.namespaceKey).toBe('staging');
    expect(staged.booleanResponse.enabled).toBe(false);
  });

  it('echoes the batch requestId (either spelling) and accepts an empty batch', async () => {
    const a = await ok('/evaluate/v1/batch', { requestId: 'batch-1', requests: [] });
    expect(a).toMatchObject({ requestId: 'batch-1', responses: [] });
    const b = await ok('/evaluate/v1/batch', { request_id: 'batch-2', requests: [] });
    expect(b.requestId).toBe('batch-2');
    const c = await ok('/evaluate/v1/batch', {});
    expect(c.requestId).toMatch(UUID_V4);
  });

  it('rejects a batch over evaluation.max_batch_size naming the limit', async () => {
    const requests = (n: number) =>
      Array.from({ length: n }, () => ({ flagKey: 'kill-switch', entityId: 'x' }));
    expect((await post('/evaluate/v1/batch', { requests: requests(5) })).status).toBe(200);
    const res = await post('/evaluate/v1/batch', { requests: requests(6) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(3);
    expect(res.body.message).toMatch(/\b5\b/);
    const legacy = await post('/api/v1/batch-evaluate', {
      requests: Array.from({ length: 6 }, () => ({ flagKey: 'color', entityId: 'x' })),
    });
    expect(legacy.status).toBe(400);
    expect(legacy.body.message).toMatch(/\b5\b/);
  });
});

describe('errors', () => {
  it('unknown flag: 404 with the namespaced key', async () => {
    for (const path of ['/evaluate/v1/boolean', '/evaluate/v1/variant']) {
      expect(await post(path, { flagKey: 'x', entityId: 'e' })).toEqual({
        status: 404,
        body: { code: 5, message: 'flag "default/x" not found', details: [] },
      });
    }
  });

  it('wrong flag type: 400', async () => {
    expect(await post('/evaluate/v1/boolean', { flagKey: 'color', entityId: 'e' })).toEqual({
      status: 400,
      body: { code: 3, message: 'flag type VARIANT_FLAG_TYPE invalid', details: [] },
    });
    expect(await post('/evaluate/v1/variant', { flagKey: 'new-ui', entityId: 'e' })).toEqual({
      status: 400,
      body: { code: 3, message: 'flag type BOOLEAN_FLAG_TYPE invalid', details: [] },
    });
  });

  it('a context value that is not a string: 400', async () => {
    for (const value of [3, true, { a: 'b' }, ['x']]) {
      const res = await post('/evaluate/v1/variant', {
        flagKey: 'color',
        entityId: 'e',
        context: { age: value },
      });
      expect(res).toEqual({
        status: 400,
        body: { code: 3, message: 'invalid values for key(s) in json body', details: [] },
      });
    }
    const inBatch = await post('/evaluate/v1/batch', {
      requests: [{ flagKey: 'color', entityId: 'e', context: { n: 1 } }],
    });
    expect(inBatch.status).toBe(400);
    const legacy = await post('/api/v1/evaluate', {
      flagKey: 'color',
      entityId: 'e',
      context: { n: 1 },
    });
    expect(legacy.status).toBe(400);
    expect(legacy.body.message).toBe('invalid values for key(s) in json body');
  });

  it('malformed JSON: 400 InvalidArgument', async () => {
    for (const path of ['/evaluate/v1/boolean', '/evaluate/v1/batch', '/api/v1/evaluate']) {
      const res = await post(path, '{"flagKey": "color", ');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(3);
      expect(typeof res.body.message).toBe('string');
      expect(res.body.details).toEqual([]);
    }
  });

  it('an empty body is an empty request', async () => {
    const res = await fetch(`${baseUrl()}/evaluate/v1/boolean`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ message: 'flag "default/" not found' });
  });

  it('wrong method: 501', async () => {
    const res = await fetch(`${baseUrl()}/evaluate/v1/boolean`);
    expect(res.status).toBe(501);
  });
});
