import { expectError, NS, useManagementHttp, type Json } from '../support/management-http';

/* Flipt's REST management API over real HTTP (test/support/management-http.ts): segments, constraints, rules and distributions. */

const { get, post, put, del } = useManagementHttp();

beforeAll(async () => {
  expect((await post('/api/v1/namespaces', { key: 'team', name: 'Team' })).status).toBe(200);
});

describe('segments and constraints', () => {
  it('creates, reads, updates, lists with paging and deletes', async () => {
    const s = await post(`${NS}/segments`, { key: 's1', name: 'S1', matchType: 'ANY_MATCH_TYPE' });
    expect(s.status).toBe(200);
    expect(Object.keys(s.body)).toEqual([
      'key',
      'name',
      'description',
      'createdAt',
      'updatedAt',
      'constraints',
      'matchType',
      'namespaceKey',
    ]);
    expect(s.body).toMatchObject({
      matchType: 'ANY_MATCH_TYPE',
      constraints: [],
      namespaceKey: 'team',
    });
    await post(`${NS}/segments`, { key: 's2', name: 'S2' });
    await post(`${NS}/segments`, { key: 's3', name: 'S3', match_type: 0 });

    const c = await post(`${NS}/segments/s1/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'email',
      operator: 'EQ',
      value: 'a@b.c',
    });
    expect(c.status).toBe(200);
    expect(Object.keys(c.body)).toEqual([
      'id',
      'segmentKey',
      'type',
      'property',
      'operator',
      'value',
      'createdAt',
      'updatedAt',
      'namespaceKey',
      'description',
    ]);
    expect(c.body).toMatchObject({ segmentKey: 's1', operator: 'eq', value: 'a@b.c' });
    const cu = await put(`${NS}/segments/s1/constraints/${c.body.id}`, {
      type: 2,
      property: 'age',
      operator: 'gt',
      value: '18',
    });
    expect(cu.body).toMatchObject({
      id: c.body.id,
      type: 'NUMBER_COMPARISON_TYPE',
      property: 'age',
      value: '18',
    });
    expect((await get(`${NS}/segments/s1`)).body.constraints).toHaveLength(1);

    const su = await put(`${NS}/segments/s1`, { name: 'S1b' });
    expect(su.body).toMatchObject({ name: 'S1b', matchType: 'ALL_MATCH_TYPE' });

    const page = await get(`${NS}/segments?limit=2`);
    expect(page.body.segments.map((x: Json) => x.key)).toEqual(['s1', 's2']);
    expect(page.body.totalCount).toBe(3);
    const next = await get(
      `${NS}/segments?limit=2&pageToken=${encodeURIComponent(page.body.nextPageToken)}`,
    );
    expect(next.body.segments.map((x: Json) => x.key)).toEqual(['s3']);

    expectError(
      await post(`${NS}/segments/s1/constraints`, {
        type: 'STRING_COMPARISON_TYPE',
        property: 'p',
        operator: 'lt',
        value: '1',
      }),
      400,
      3,
      'constraint operator "lt" is not valid for type string',
    );
    expectError(
      await post(`${NS}/segments/nope/constraints`, {
        type: 1,
        property: 'p',
        operator: 'eq',
        value: '1',
      }),
      404,
      5,
      'segment "team/nope" not found',
    );
    expectError(
      await put(`${NS}/segments/s1/constraints/nope`, {
        type: 1,
        property: 'p',
        operator: 'eq',
        value: '1',
      }),
      404,
      5,
      'constraint "nope" not found',
    );
    expectError(
      await post(`${NS}/segments`, { key: 's1', name: 'x' }),
      400,
      3,
      'segment "team/s1" is not unique',
    );
    expectError(await get(`${NS}/segments/nope`), 404, 5, 'segment "team/nope" not found');
    expectError(
      await post(`${NS}/segments`, { key: 'x', name: 'x', matchType: 'SOME' }),
      400,
      3,
      'unknown value "\\"SOME\\"" for enum flipt.MatchType',
    );

    expect((await del(`${NS}/segments/s1/constraints/${c.body.id}`)).text).toBe('{}');
    expect((await del(`${NS}/segments/s3`)).text).toBe('{}');
    expectError(await get(`${NS}/segments/s3`), 404, 5, 'segment "team/s3" not found');
  });

  it('serves the legacy segment and constraint routes', async () => {
    const s = await post('/api/v1/segments', { key: 'ls', name: 'LS' });
    expect(s.body.namespaceKey).toBe('default');
    const c = await post('/api/v1/segments/ls/constraints', {
      type: 1,
      property: 'p',
      operator: 'eq',
      value: 'v',
    });
    expect(c.status).toBe(200);
    expect(
      (
        await put(`/api/v1/segments/ls/constraints/${c.body.id}`, {
          type: 1,
          property: 'p',
          operator: 'neq',
          value: 'v',
        })
      ).body.operator,
    ).toBe('neq');
    expect((await del(`/api/v1/segments/ls/constraints/${c.body.id}`)).status).toBe(200);
    expect((await put('/api/v1/segments/ls', { name: 'LS2' })).body.name).toBe('LS2');
    expect((await get('/api/v1/segments/ls')).body.name).toBe('LS2');
    expect((await get('/api/v1/segments')).body.segments.map((x: Json) => x.key)).toEqual(['ls']);
    expect((await del('/api/v1/segments/ls')).status).toBe(200);
  });
});

describe('rules and distributions', () => {
  let variantId = '';

  beforeAll(async () => {
    await post(`${NS}/flags`, { key: 'rf', name: 'RF' });
    variantId = (await post(`${NS}/flags/rf/variants`, { key: 'v' })).body.id;
  });

  it('creates, reads, updates, orders, lists and deletes rules with the segmentKey quirk', async () => {
    const r1 = await post(`${NS}/flags/rf/rules`, { segmentKey: 's1', rank: '1' });
    expect(r1.status).toBe(200);
    expect(Object.keys(r1.body)).toEqual([
      'id',
      'flagKey',
      'segmentKey',
      'distributions',
      'rank',
      'createdAt',
      'updatedAt',
      'namespaceKey',
      'segmentKeys',
      'segmentOperator',
    ]);
    expect(r1.body).toMatchObject({
      segmentKey: 's1',
      segmentKeys: [],
      rank: 1,
      segmentOperator: 'OR_SEGMENT_OPERATOR',
    });

    const r2 = await post(`${NS}/flags/rf/rules`, {
      segment_keys: ['s1', 's2', 's1'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
      rank: 2,
    });
    expect(r2.body).toMatchObject({
      segmentKey: '',
      segmentKeys: ['s1', 's2'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
    });
    const r3 = await post(`${NS}/flags/rf/rules`, {
      segmentKeys: ['s2'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
      rank: 3,
    });
    expect(r3.body).toMatchObject({
      segmentKey: 's2',
      segmentKeys: [],
      segmentOperator: 'OR_SEGMENT_OPERATOR',
    });

    expect((await get(`${NS}/flags/rf/rules/${r2.body.id}`)).body.segmentKeys).toEqual([
      's1',
      's2',
    ]);
    const upd = await put(`${NS}/flags/rf/rules/${r1.body.id}`, {
      segmentKeys: ['s2', 's1'],
      segmentOperator: 1,
    });
    expect(upd.body).toMatchObject({
      id: r1.body.id,
      segmentKey: '',
      segmentKeys: ['s2', 's1'],
      rank: 1,
    });

    // The literal route wins over {id}; other methods on .../order reach {id}.
    const order = await put(`${NS}/flags/rf/rules/order`, {
      ruleIds: [r3.body.id, r2.body.id, r1.body.id],
    });
    expect(order).toMatchObject({ status: 200, text: '{}' });
    expectError(await get(`${NS}/flags/rf/rules/order`), 404, 5, 'rule "team/order" not found');

    const page1 = await get(`${NS}/flags/rf/rules?limit=2`);
    expect(page1.body.rules.map((r: Json) => r.id)).toEqual([r3.body.id, r2.body.id]);
    expect(page1.body.rules.map((r: Json) => r.rank)).toEqual([1, 2]);
    expect(page1.body.totalCount).toBe(3);
    const page2 = await get(
      `${NS}/flags/rf/rules?limit=2&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`,
    );
    expect(page2.body.rules.map((r: Json) => r.id)).toEqual([r1.body.id]);

    expectError(
      await put(`${NS}/flags/rf/rules/order`, { ruleIds: ['x'] }),
      400,
      3,
      'invalid field ruleIds: must contain atleast 2 elements',
    );
    expectError(
      await post(`${NS}/flags/rf/rules`, { rank: 1 }),
      400,
      3,
      'invalid field segmentKey or segmentKeys: must not be empty',
    );
    expectError(
      await post(`${NS}/flags/rf/rules`, { segmentKey: 's1', rank: 0 }),
      400,
      3,
      'invalid field rank: must be greater than 0',
    );
    expectError(
      await post(`${NS}/flags/rf/rules`, { segmentKey: 'nope', rank: 4 }),
      404,
      5,
      'flag "team/rf" or segment "team/nope" not found',
    );
    expectError(await get(`${NS}/flags/rf/rules/nope`), 404, 5, 'rule "team/nope" not found');
    expectError(await del(`${NS}/segments/s2`), 400, 3, 'segment "team/s2" is in use');

    // Distributions on r3.
    const d = await post(`${NS}/flags/rf/rules/${r3.body.id}/distributions`, {
      variantId,
      rollout: 33.33,
    });
    expect(d.status).toBe(200);
    expect(Object.keys(d.body)).toEqual([
      'id',
      'ruleId',
      'variantId',
      'rollout',
      'createdAt',
      'updatedAt',
    ]);
    expect(d.text).toContain('"rollout":33.33,');
    const du = await put(`${NS}/flags/rf/rules/${r3.body.id}/distributions/${d.body.id}`, {
      variantId,
      rollout: '50',
    });
    expect(du.body).toMatchObject({ id: d.body.id, rollout: 50 });
    expect((await get(`${NS}/flags/rf/rules/${r3.body.id}`)).body.distributions).toHaveLength(1);
    expectError(
      await post(`${NS}/flags/rf/rules/${r3.body.id}/distributions`, { variantId, rollout: 101 }),
      400,
      3,
      "invalid field rollout: must be less than or equal to '100'",
    );
    expectError(
      await post(`${NS}/flags/rf/rules/${r3.body.id}/distributions`, {
        variantId: 'nope',
        rollout: 1,
      }),
      404,
      5,
      `variant "nope", rule "${r3.body.id}", flag "rf" in namespace "team" not found`,
    );
    expectError(
      await put(`${NS}/flags/rf/rules/${r3.body.id}/distributions/nope`, { variantId, rollout: 1 }),
      404,
      5,
      'distribution "nope" not found',
    );
    expectError(
      await del(`${NS}/flags/rf/rules/${r3.body.id}/distributions/${d.body.id}`),
      400,
      3,
      'invalid field variantId: must not be empty',
    );
    expect(
      (
        await del(
          `${NS}/flags/rf/rules/${r3.body.id}/distributions/${d.body.id}?variantId=${variantId}`,
        )
      ).text,
    ).toBe('{}');
    expect((await get(`${NS}/flags/rf/rules/${r3.body.id}`)).body.distributions).toEqual([]);

    expect((await del(`${NS}/flags/rf/rules/${r3.body.id}`)).text).toBe('{}');
    const rest = await get(`${NS}/flags/rf/rules`);
    expect(rest.body.rules.map((r: Json) => [r.id, r.rank])).toEqual([
      [r2.body.id, 1],
      [r1.body.id, 2],
    ]);
    expect(rest.body.nextPageToken).toBe('');
  });

  it('serves the legacy rule and distribution routes', async () => {
    await post('/api/v1/segments', { key: 'lseg', name: 'L' });
    await post('/api/v1/flags', { key: 'lf', name: 'LF' });
    const v = await post('/api/v1/flags/lf/variants', { key: 'v' });
    const r1 = await post('/api/v1/flags/lf/rules', { segmentKey: 'lseg', rank: 1 });
    const r2 = await post('/api/v1/flags/lf/rules', { segmentKey: 'lseg', rank: 2 });
    expect(r1.body).toMatchObject({ namespaceKey: 'default', flagKey: 'lf', segmentKey: 'lseg' });
    expect((await get(`/api/v1/flags/lf/rules/${r1.body.id}`)).status).toBe(200);
    expect((await put(`/api/v1/flags/lf/rules/${r1.body.id}`, { segmentKey: 'lseg' })).status).toBe(
      200,
    );
    expect(
      (await put('/api/v1/flags/lf/rules/order', { ruleIds: [r2.body.id, r1.body.id] })).text,
    ).toBe('{}');
    expect((await get('/api/v1/flags/lf/rules')).body.rules.map((r: Json) => r.id)).toEqual([
      r2.body.id,
      r1.body.id,
    ]);
    const d = await post(`/api/v1/flags/lf/rules/${r1.body.id}/distributions`, {
      variantId: v.body.id,
      rollout: 10,
    });
    expect(d.status).toBe(200);
    expect(
      (
        await put(`/api/v1/flags/lf/rules/${r1.body.id}/distributions/${d.body.id}`, {
          variantId: v.body.id,
          rollout: 20,
        })
      ).body.rollout,
    ).toBe(20);
    expect(
      (
        await del(
          `/api/v1/flags/lf/rules/${r1.body.id}/distributions/${d.body.id}?variant_id=${v.body.id}`,
        )
      ).status,
    ).toBe(200);
    expect((await del(`/api/v1/flags/lf/rules/${r1.body.id}`)).status).toBe(200);
    expect((await del(`/api/v1/flags/lf/rules/${r2.body.id}`)).status).toBe(200);
    expect((await get('/api/v1/flags/lf/rules')).body).toEqual({
      rules: [],
      nextPageToken: '',
      totalCount: 0,
    });
  });
});
