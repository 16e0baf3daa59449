import {
  expectError,
  NS,
  TS,
  useManagementHttp,
  type Json,
  type Reply,
} from '../support/management-http';

/* Flipt's REST management API over real HTTP (test/support/management-http.ts): namespaces, flags and variants. */

const { send, get, post, put, del } = useManagementHttp();

describe('namespaces', () => {
  it('creates, reads, updates, lists with paging and deletes', async () => {
    const created = await post('/api/v1/namespaces', {
      key: 'team',
      name: 'Team',
      description: 'd',
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body)).toEqual([
      'key',
      'name',
      'description',
      'protected',
      'createdAt',
      'updatedAt',
    ]);
    expect(created.body).toMatchObject({
      key: 'team',
      name: 'Team',
      description: 'd',
      protected: false,
    });
    expect(created.body.createdAt).toMatch(TS);

    const got = await get('/api/v1/namespaces/team/');
    expect(got.body).toEqual(created.body);

    const updated = await put('/api/v1/namespaces/team', { name: 'Team 2' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ key: 'team', name: 'Team 2', description: '' });

    await post('/api/v1/namespaces', { key: 'tmp', name: 'Tmp' });
    const page1 = await get('/api/v1/namespaces?limit=1');
    expect(page1.status).toBe(200);
    expect(Object.keys(page1.body)).toEqual(['namespaces', 'nextPageToken', 'totalCount']);
    expect(page1.body.namespaces).toHaveLength(1);
    expect(page1.body.namespaces[0].key).toBe('default');
    expect(page1.body.totalCount).toBe(3);
    expect(page1.body.nextPageToken).not.toBe('');
    const page2 = await get(
      `/api/v1/namespaces?limit=2&page_token=${encodeURIComponent(page1.body.nextPageToken)}`,
    );
    expect(page2.body.namespaces.map((n: Json) => n.key)).toEqual(['team', 'tmp']);
    expect(page2.body.nextPageToken).toBe('');
    const all = await get('/api/v1/namespaces');
    expect(all.body.namespaces).toHaveLength(3);
    expect(all.body.nextPageToken).toBe('');

    expect(await del('/api/v1/namespaces/tmp')).toMatchObject({ status: 200, text: '{}' });
    expectError(await get('/api/v1/namespaces/tmp'), 404, 5, 'namespace "tmp" not found');
  });

  it('reports validation, duplicates, protection and unknown namespaces', async () => {
    expectError(
      await post('/api/v1/namespaces', {}),
      400,
      3,
      'invalid field key: must not be empty',
    );
    expectError(
      await post('/api/v1/namespaces', { key: 'a b', name: 'x' }),
      400,
      3,
      'invalid field key: contains invalid characters',
    );
    expectError(
      await post('/api/v1/namespaces', { key: 'default', name: 'x' }),
      400,
      3,
      'namespace "default" is not unique',
    );
    expectError(
      await del('/api/v1/namespaces/default'),
      400,
      3,
      'namespace "default" is protected',
    );
    expectError(await del('/api/v1/namespaces/nope'), 404, 5, 'namespace "nope" not found');
    expectError(
      await put('/api/v1/namespaces/nope', { name: 'x' }),
      404,
      5,
      'namespace "nope" not found',
    );
    expectError(
      await get('/api/v1/namespaces?pageToken=%%%&limit=1'),
      400,
      3,
      /^pageToken is not valid/,
    );
  });

  it('lets exactly one of two concurrent creates of the same key win', async () => {
    const [a, b] = await Promise.all([
      post('/api/v1/namespaces', { key: 'race', name: 'A' }),
      post('/api/v1/namespaces', { key: 'race', name: 'B' }),
    ]);
    expect([a?.status, b?.status].sort()).toEqual([200, 400]);
    const loser = a?.status === 400 ? a : b;
    expectError(loser as Reply, 400, 3, 'namespace "race" is not unique');
  });
});

describe('flags and variants', () => {
  it('creates, reads, updates, lists with paging and deletes flags', async () => {
    const created = await post(`${NS}/flags`, {
      key: 'f1',
      name: 'F1',
      enabled: true,
      type: 'VARIANT_FLAG_TYPE',
      metadata: { team: 'x', n: 1 },
      ignored_field: 42,
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body)).toEqual([
      'key',
      'name',
      'description',
      'enabled',
      'createdAt',
      'updatedAt',
      'variants',
      'namespaceKey',
      'type',
      'metadata',
    ]);
    expect(created.body).toMatchObject({
      key: 'f1',
      enabled: true,
      variants: [],
      namespaceKey: 'team',
      metadata: { n: 1, team: 'x' },
    });
    expect(created.body.createdAt).toBe(created.body.updatedAt);

    // Enums by number, snake_case names, int32 as text elsewhere.
    const boolFlag = await post(`${NS}/flags`, {
      key: 'f2',
      name: 'F2',
      type: 1,
      namespace_key: 'ignored-by-path',
    });
    expect(boolFlag.body).toMatchObject({ type: 'BOOLEAN_FLAG_TYPE', namespaceKey: 'team' });
    expect(boolFlag.body).not.toHaveProperty('metadata');
    await post(`${NS}/flags`, { key: 'f3', name: 'F3' });

    const got = await get(`${NS}/flags/f2`);
    expect(got.body).not.toHaveProperty('metadata');
    expect(got.body).not.toHaveProperty('defaultVariant');

    const page1 = await get(`${NS}/flags?limit=2`);
    expect(page1.body.flags.map((f: Json) => f.key)).toEqual(['f1', 'f2']);
    expect(page1.body.flags[1].metadata).toEqual({});
    expect(page1.body.totalCount).toBe(3);
    const page2 = await get(
      `${NS}/flags?limit=2&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`,
    );
    expect(page2.body.flags.map((f: Json) => f.key)).toEqual(['f3']);
    expect(page2.body.nextPageToken).toBe('');
    expectError(
      await get(`${NS}/flags?offset=1`),
      400,
      3,
      'limit must be set when offset or pageToken is set',
    );

    // PUT is a full replacement: enabled omitted => false; metadata {} clears.
    const updated = await put(`${NS}/flags/f1`, { name: 'F1b', metadata: {} });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'F1b', enabled: false, type: 'VARIANT_FLAG_TYPE' });
    expect(updated.body).not.toHaveProperty('metadata');

    expect(await del(`${NS}/flags/f3`)).toMatchObject({ status: 200, text: '{}' });
    expect((await del(`${NS}/flags/never-existed`)).status).toBe(200);
    expectError(await get(`${NS}/flags/f3`), 404, 5, 'flag "team/f3" not found');
  });

  it('manages variants, compacting attachments, and sets a default variant', async () => {
    const v = await post(`${NS}/flags/f1/variants`, {
      key: 'on',
      name: 'On',
      attachment: '{ "a": 1,  "b": [1, 2] }',
    });
    expect(v.status).toBe(200);
    expect(Object.keys(v.body)).toEqual([
      'id',
      'flagKey',
      'key',
      'name',
      'description',
      'createdAt',
      'updatedAt',
      'attachment',
      'namespaceKey',
    ]);
    expect(v.body).toMatchObject({
      flagKey: 'f1',
      key: 'on',
      attachment: '{"a":1,"b":[1,2]}',
      namespaceKey: 'team',
    });

    const updated = await put(`${NS}/flags/f1/variants/${v.body.id}`, { key: 'on2' });
    expect(updated.body).toMatchObject({ id: v.body.id, key: 'on2', name: '', attachment: '' });

    const flag = await put(`${NS}/flags/f1`, {
      name: 'F1',
      enabled: true,
      defaultVariantId: v.body.id,
    });
    expect(flag.body.defaultVariant).toMatchObject({ id: v.body.id, key: 'on2' });
    expect(flag.body.variants).toHaveLength(1);

    expectError(
      await post(`${NS}/flags/f1/variants`, { key: 'on2' }),
      400,
      3,
      'variant "on2" is not unique for flag "team/f1"',
    );
    expectError(
      await post(`${NS}/flags/nope/variants`, { key: 'x' }),
      404,
      5,
      'flag "team/nope" not found',
    );
    expectError(
      await put(`${NS}/flags/f1/variants/missing`, { key: 'k' }),
      404,
      5,
      'variant "k" not found',
    );
    expectError(
      await post(`${NS}/flags/f1/variants`, { key: 'x', attachment: '{bad' }),
      400,
      3,
      'invalid field attachment: must be a json string',
    );
    expectError(
      await put(`${NS}/flags/f1`, { name: 'F1', defaultVariantId: 'zzz' }),
      400,
      3,
      'variant "zzz" not found for flag "team/f1"',
    );

    expect((await del(`${NS}/flags/f1/variants/${v.body.id}`)).text).toBe('{}');
    expect((await get(`${NS}/flags/f1`)).body.variants).toEqual([]);
  });

  it('reports decoding errors the way grpc-gateway does', async () => {
    expectError(await post(`${NS}/flags`, '{"key":'), 400, 3, 'unexpected EOF');
    expectError(
      await post(`${NS}/flags`, 'nope'),
      400,
      3,
      "invalid character 'o' in literal null (expecting 'u')",
    );
    expectError(
      await post(`${NS}/flags`, '{key: 1}'),
      400,
      3,
      "invalid character 'k' looking for beginning of object key string",
    );
    expectError(
      await post(`${NS}/flags`, { key: 1, name: 'x' }),
      400,
      3,
      'invalid values for key(s) in json body',
    );
    expectError(
      await post(`${NS}/flags`, { key: 'k', name: 'x', enabled: 'yes' }),
      400,
      3,
      'invalid values for key(s) in json body',
    );
    expectError(
      await post(`${NS}/flags`, { key: 'k', name: 'x', metadata: 'x' }),
      400,
      3,
      'invalid values for key(s) in json body',
    );
    expectError(
      await post(`${NS}/flags`, { key: 'k', name: 'x', type: 'X' }),
      400,
      3,
      'unknown value "\\"X\\"" for enum flipt.FlagType',
    );
    expectError(
      await get(`${NS}/flags?limit=abc`),
      400,
      3,
      'strconv.ParseInt: parsing "abc": invalid syntax',
    );
    // An empty body is an empty message: validation answers.
    expectError(await post(`${NS}/flags`), 400, 3, 'invalid field key: must not be empty');
    expectError(
      await post(`${NS}/flags`, { key: 'dup', name: 'x' }).then(() =>
        post(`${NS}/flags`, { key: 'dup', name: 'y' }),
      ),
      400,
      3,
      'flag "team/dup" is not unique',
    );
  });

  it('accepts a text/plain JSON body', async () => {
    const r = await send('POST', `${NS}/flags`, JSON.stringify({ key: 'plain', name: 'Plain' }), {
      'content-type': 'text/plain;charset=UTF-8',
    });
    expect(r.status).toBe(200);
    expect(r.body.key).toBe('plain');
  });

  it('serves the legacy routes in the default namespace, honouring namespaceKey', async () => {
    const created = await post('/api/v1/flags', { key: 'legacy', name: 'Legacy' });
    expect(created.body.namespaceKey).toBe('default');
    expect((await get('/api/v1/namespaces/default/flags/legacy')).status).toBe(200);
    expect((await get('/api/v1/flags/legacy/')).body.key).toBe('legacy');
    expect((await put('/api/v1/flags/legacy', { name: 'L2', enabled: true })).body).toMatchObject({
      name: 'L2',
      enabled: true,
    });
    expect((await get('/api/v1/flags')).body.flags.map((f: Json) => f.key)).toContain('legacy');

    // namespaceKey in the body (POST/PUT) or the query (GET/DELETE) selects another namespace.
    const inTeam = await post('/api/v1/flags', {
      key: 'legacy-team',
      name: 'LT',
      namespaceKey: 'team',
    });
    expect(inTeam.body.namespaceKey).toBe('team');
    expect((await get('/api/v1/flags/legacy-team?namespaceKey=team')).status).toBe(200);
    expectError(
      await get('/api/v1/flags/legacy-team'),
      404,
      5,
      'flag "default/legacy-team" not found',
    );

    const v = await post('/api/v1/flags/legacy/variants', { key: 'a' });
    expect(v.body).toMatchObject({ namespaceKey: 'default', flagKey: 'legacy' });
    expect((await put(`/api/v1/flags/legacy/variants/${v.body.id}`, { key: 'b' })).body.key).toBe(
      'b',
    );
    expect((await del(`/api/v1/flags/legacy/variants/${v.body.id}`)).status).toBe(200);

    expect((await del('/api/v1/flags/legacy-team?namespace_key=team')).status).toBe(200);
    expectError(
      await get('/api/v1/flags/legacy-team?namespaceKey=team'),
      404,
      5,
      'flag "team/legacy-team" not found',
    );
    expect((await del('/api/v1/flags/legacy')).status).toBe(200);
  });
});
