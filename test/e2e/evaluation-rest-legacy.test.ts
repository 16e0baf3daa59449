import { RED_ATTACHMENT, type Json } from '../support/seed-config';
import { expectEnvelope, UUID_V4, RFC3339_UTC, useSeededVexil } from '../support/evaluation-rest';

/*
 * The legacy v1 evaluate routes of a running Vexil over seeded configuration, and the request
 * envelope (request id, timestamp, duration) of every evaluation route.
 */

const { baseUrl, post, ok } = useSeededVexil();

describe('legacy /api/v1/evaluate', () => {
  it('evaluates a variant flag in the v1 shape', async () => {
    const r = await ok('/api/v1/evaluate', {
      flagKey: 'color',
      entityId: 'alice',
      context: { email: 'alice@example.com' },
    });
    expect(Object.keys(r)).toEqual([
      'requestId',
      'entityId',
      'requestContext',
      'match',
      'flagKey',
      'segmentKey',
      'timestamp',
      'value',
      'requestDurationMillis',
      'attachment',
      'reason',
      'namespaceKey',
      'segmentKeys',
    ]);
    expect(r).toMatchObject({
      entityId: 'alice',
      requestContext: { email: 'alice@example.com' },
      match: true,
      flagKey: 'color',
      segmentKey: 'internal',
      value: 'red',
      attachment: RED_ATTACHMENT,
      reason: 'MATCH_EVALUATION_REASON',
      namespaceKey: '',
      segmentKeys: ['internal'],
    });
    expectEnvelope(r);
  });

  it('uses v1 reasons and the namespace of the path', async () => {
    const def = await ok('/api/v1/evaluate', { flagKey: 'color', entityId: 'nobody' });
    expect(def).toMatchObject({ match: false, value: 'blue', reason: 'DEFAULT_EVALUATION_REASON' });
    const off = await ok('/api/v1/namespaces/staging/evaluate', {
      flagKey: 'legacy-off',
      entityId: 'x',
      requestId: 'legacy-1',
    });
    expect(off).toMatchObject({
      requestId: 'legacy-1',
      reason: 'FLAG_DISABLED_EVALUATION_REASON',
      namespaceKey: 'staging',
    });
    const multi = await ok('/api/v1/evaluate', {
      flagKey: 'color',
      entityId: 'bob',
      context: { plan: 'beta', mobile: 'true' },
    });
    expect(multi).toMatchObject({ segmentKey: 'beta', segmentKeys: ['beta', 'mobile'] });
  });

  it('validates flagKey and entityId, rejects boolean flags, 404s unknown flags', async () => {
    expect(await post('/api/v1/evaluate', { entityId: 'e' })).toEqual({
      status: 400,
      body: { code: 3, message: 'invalid field flagKey: must not be empty', details: [] },
    });
    expect(await post('/api/v1/evaluate', { flagKey: 'color' })).toEqual({
      status: 400,
      body: { code: 3, message: 'invalid field entityId: must not be empty', details: [] },
    });
    expect(await post('/api/v1/evaluate', { flagKey: 'new-ui', entityId: 'e' })).toEqual({
      status: 400,
      body: { code: 3, message: 'flag type BOOLEAN_FLAG_TYPE invalid', details: [] },
    });
    expect(
      await post('/api/v1/namespaces/staging/evaluate', { flagKey: 'x', entityId: 'e' }),
    ).toEqual({
      status: 404,
      body: { code: 5, message: 'flag "staging/x" not found', details: [] },
    });
  });
});

describe('legacy batch-evaluate', () => {
  it('answers each item with blank requestId and zero duration', async () => {
    const r = await ok('/api/v1/batch-evaluate', {
      requestId: 'lb-1',
      requests: [
        { flagKey: 'color', entityId: 'alice', context: { email: 'alice@example.com' } },
        { flagKey: 'theme', entityId: 'x', requestId: 'dropped' },
      ],
    });
    expect(Object.keys(r)).toEqual(['requestId', 'responses', 'requestDurationMillis']);
    expect(r.requestId).toBe('lb-1');
    expect(typeof r.requestDurationMillis).toBe('number');
    expect(r.responses).toHaveLength(2);
    expect(r.responses[0]).toMatchObject({ requestId: '', value: 'red', requestDurationMillis: 0 });
    expect(r.responses[0].timestamp).toMatch(RFC3339_UTC);
    expect(r.responses[1]).toMatchObject({
      requestId: '',
      value: '',
      reason: 'UNKNOWN_EVALUATION_REASON',
    });
    const generated = await ok('/api/v1/batch-evaluate', { requests: [] });
    expect(generated.requestId).toMatch(UUID_V4);
  });

  it('unknown flags: 404 unless excludeNotFound', async () => {
    const requests = [
      { flagKey: 'nope', entityId: 'x' },
      { flagKey: 'color', entityId: 'x' },
    ];
    expect(await post('/api/v1/batch-evaluate', { requests })).toEqual({
      status: 404,
      body: { code: 5, message: 'flag "default/nope" not found', details: [] },
    });
    const r = await ok('/api/v1/namespaces/staging/batch-evaluate', {
      requests,
      excludeNotFound: true,
    });
    expect(r.responses).toHaveLength(1);
    expect(r.responses[0]).toMatchObject({ flagKey: 'color', namespaceKey: 'staging' });
  });

  it('inner namespaces must match the batch namespace', async () => {
    const res = await post('/api/v1/namespaces/staging/batch-evaluate', {
      requests: [{ flagKey: 'color', entityId: 'x', namespaceKey: 'default' }],
    });
    expect(res).toEqual({
      status: 400,
      body: {
        code: 3,
        message: 'invalid field namespace_key: must be the same for all requests if specified',
        details: [],
      },
    });
    const same = await ok('/api/v1/namespaces/staging/batch-evaluate', {
      requests: [{ flagKey: 'color', entityId: 'x', namespaceKey: 'staging' }],
    });
    expect(same.responses).toHaveLength(1);
  });
});

describe('request ids', () => {
  const routes: Array<[string, unknown]> = [
    ['/evaluate/v1/boolean', { flagKey: 'new-ui', entityId: 'e' }],
    ['/evaluate/v1/variant', { flagKey: 'color', entityId: 'e' }],
    ['/evaluate/v1/namespaces/staging/boolean', { flagKey: 'new-ui', entityId: 'e' }],
    ['/evaluate/v1/batch', { requests: [{ flagKey: 'new-ui', entityId: 'e' }] }],
    ['/api/v1/evaluate', { flagKey: 'color', entityId: 'e' }],
    ['/api/v1/batch-evaluate', { requests: [{ flagKey: 'color', entityId: 'e' }] }],
  ];

  async function answer(path: string, body: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${baseUrl()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return { header: res.headers.get('x-request-id'), body: (await res.json()) as Json };
  }

  it.each(routes)(
    '%s answers with the X-Request-Id it sends back when the body has none',
    async (path, body) => {
      const { header, body: r } = await answer(path, body);
      expect(header).toMatch(UUID_V4);
      expect(r.requestId).toBe(header);
    },
  );

  it.each(routes)('%s carries the caller’s X-Request-Id into the answer', async (path, body) => {
    const { header, body: r } = await answer(path, body, { 'x-request-id': 'trace-me-1' });
    expect(header).toBe('trace-me-1');
    expect(r.requestId).toBe('trace-me-1');
  });

  it.each(routes)('%s keeps a requestId given in the body', async (path, body) => {
    const { header, body: r } = await answer(
      path,
      { ...(body as object), requestId: 'from-body' },
      { 'x-request-id': 'from-header' },
    );
    expect(header).toBe('from-header');
    expect(r.requestId).toBe('from-body');
  });
});
