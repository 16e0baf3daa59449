import { expectError, NS, useManagementHttp, type Json } from '../support/management-http';

/* Flipt's REST management API over real HTTP (test/support/management-http.ts): rollouts, routing and transport errors. */

const { send, get, post, put, del, errors } = useManagementHttp();

beforeAll(async () => {
  expect((await post('/api/v1/namespaces', { key: 'team', name: 'Team' })).status).toBe(200);
  for (const key of ['s1', 's2'])
    expect((await post(`${NS}/segments`, { key, name: key.toUpperCase() })).status).toBe(200);
});

describe('rollouts', () => {
  beforeAll(async () => {
    await post(`${NS}/flags`, { key: 'bf', name: 'BF', type: 'BOOLEAN_FLAG_TYPE' });
  });

  it('creates, reads, updates, orders, lists and deletes rollouts', async () => {
    const seg = await post(`${NS}/flags/bf/rollouts`, {
      rank: 1,
      description: 'internal',
      segment: { segmentKey: 's2', value: true },
    });
    expect(seg.status).toBe(200);
    expect(Object.keys(seg.body)).toEqual([
      'id',
      'namespaceKey',
      'flagKey',
      'type',
      'rank',
      'description',
      'createdAt',
      'updatedAt',
      'segment',
    ]);
    expect(seg.body.segment).toEqual({
      segmentKey: 's2',
      value: true,
      segmentKeys: [],
      segmentOperator: 'OR_SEGMENT_OPERATOR',
    });
    expect(seg.body.type).toBe('SEGMENT_ROLLOUT_TYPE');

    const multi = await post(`${NS}/flags/bf/rollouts`, {
      rank: 2,
      segment: { segmentKeys: ['s1', 's2'], segmentOperator: 'AND_SEGMENT_OPERATOR' },
    });
    expect(multi.body.segment).toEqual({
      segmentKey: '',
      value: false,
      segmentKeys: ['s1', 's2'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
    });

    const thr = await post(`${NS}/flags/bf/rollouts`, {
      rank: 3,
      threshold: { percentage: 33.3, value: true },
    });
    expect(thr.body.type).toBe('THRESHOLD_ROLLOUT_TYPE');
    expect(thr.body).not.toHaveProperty('segment');
    expect(thr.text).toContain('"threshold":{"percentage":33.3,"value":true}');

    expect((await get(`${NS}/flags/bf/rollouts/${thr.body.id}`)).body).toEqual(thr.body);
    const upd = await put(`${NS}/flags/bf/rollouts/${thr.body.id}`, {
      threshold: { percentage: 50, value: false },
    });
    expect(upd.body).toMatchObject({
      description: '',
      rank: 3,
      threshold: { percentage: 50, value: false },
    });

    const order = await put(`${NS}/flags/bf/rollouts/order`, {
      rolloutIds: [thr.body.id, multi.body.id, seg.body.id],
    });
    expect(order.text).toBe('{}');
    const page1 = await get(`${NS}/flags/bf/rollouts?limit=2`);
    expect(Object.keys(page1.body)).toEqual(['rules', 'nextPageToken', 'totalCount']);
    expect(page1.body.rules.map((r: Json) => r.id)).toEqual([thr.body.id, multi.body.id]);
    expect(page1.body.totalCount).toBe(3);
    const page2 = await get(
      `${NS}/flags/bf/rollouts?limit=2&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`,
    );
    expect(page2.body.rules.map((r: Json) => r.id)).toEqual([seg.body.id]);

    expectError(
      await post(`${NS}/flags/bf/rollouts`, { rank: 1, threshold: { percentage: 5 } }),
      400,
      3,
      'rank number: 1 already exists',
    );
    expectError(
      await post(`${NS}/flags/bf/rollouts`, { rank: 9 }),
      400,
      3,
      'rollout rule is missing',
    );
    expectError(
      await put(`${NS}/flags/bf/rollouts/${thr.body.id}`, { segment: { segmentKey: 's1' } }),
      400,
      3,
      'cannot change type of rollout: have "THRESHOLD_ROLLOUT_TYPE" attempted "SEGMENT_ROLLOUT_TYPE"',
    );
    expectError(
      await put(`${NS}/flags/bf/rollouts/${thr.body.id}`, {}),
      400,
      3,
      'invalid field rule: invalid rollout rule type',
    );
    expectError(await get(`${NS}/flags/bf/rollouts/nope`), 404, 5, 'rollout "team/nope" not found');
    expectError(
      await post(`${NS}/flags/bf/rollouts`, { rank: 9, threshold: { percentage: 101 } }),
      400,
      3,
      'invalid field threshold.percentage: must be within range [0, 100]',
    );
    expectError(
      await put(`${NS}/flags/bf/rollouts/order`, { rolloutIds: [] }),
      400,
      3,
      'invalid field rolloutIds: must contain atleast 2 elements',
    );

    expect((await del(`${NS}/flags/bf/rollouts/${multi.body.id}`)).text).toBe('{}');
    const rest = await get(`${NS}/flags/bf/rollouts`);
    expect(rest.body.rules.map((r: Json) => [r.id, r.rank])).toEqual([
      [thr.body.id, 1],
      [seg.body.id, 2],
    ]);
  });

  it('has no legacy rollout routes', async () => {
    expectError(await get('/api/v1/flags/bf/rollouts'), 404, 5, 'Not Found');
  });
});

describe('routing and transport errors', () => {
  it('answers unknown paths with 404 and wrong methods with 501', async () => {
    expectError(await get('/api/v1/nothing'), 404, 5, 'Not Found');
    expectError(await get(`${NS}/flags/f/unknown`), 404, 5, 'Not Found');
    expectError(await send('PATCH', `${NS}/flags/f1`), 501, 12, 'Method Not Allowed');
    expectError(await post(`${NS}/flags/f1`, {}), 501, 12, 'Method Not Allowed');
    expectError(await del('/api/v1/namespaces'), 501, 12, 'Method Not Allowed');
    expectError(await post(`${NS}/flags/rf/rules/order`, {}), 501, 12, 'Method Not Allowed');
  });

  it('refuses a body over the limit with 413 before parsing it', async () => {
    const big = JSON.stringify({ key: 'big', name: 'x'.repeat(70 * 1024) });
    expectError(
      await post(`${NS}/flags`, big),
      413,
      8,
      'request body is larger than the limit of 65536 bytes',
    );
    expectError(await get(`${NS}/flags/big`), 404, 5, 'flag "team/big" not found');
  });

  it('hides unexpected errors behind a generic 500 and logs them', async () => {
    const r = await get(`${NS}/flags/explode`);
    expectError(r, 500, 13, 'internal error');
    expect(r.text).not.toMatch(/rows|TypeError/);
    expect(JSON.stringify(errors)).toContain('TypeError');
  });
});
