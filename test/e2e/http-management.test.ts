import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createHttpHandler } from '../../src/adapters/http';
import type { ManagementApi } from '../../src/domain/services/api';
import type { Logger } from '../../src/ports';
import { InMemoryStore } from '../../src/adapters/storage/memory/in-memory-store';
import { ConfigStore } from '../../src/domain/services/config';
import { RandomIdGenerator, SystemClock } from '../../src/adapters/system';
import { createManagementService } from '../../src/domain/services/management-service';

/*
 * Every management route of Flipt's REST API over real HTTP, against the real management
 * service and the in-memory store. Assertions are about what a Flipt client sees: status,
 * error body, JSON shape and the quirks of reference §13.
 */

const errors: unknown[] = [];
const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (_m, fields) => errors.push(fields),
};

let server: Server;
let base: string;

beforeAll(async () => {
  const ids = new RandomIdGenerator();
  const real = createManagementService({
    config: new ConfigStore({
      unitOfWork: new InMemoryStore({ clock: new SystemClock() }),
      clock: new SystemClock(),
      ids,
    }),
    notifier: { namespaceChanged: () => undefined },
    logger,
  });
  // A flag key that makes the service blow up with an internal-looking error.
  const management: ManagementApi = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'getFlag') {
        return async (req: Parameters<ManagementApi['getFlag']>[0]) => {
          if (req.key === 'explode')
            throw new TypeError("Cannot read properties of undefined (reading 'rows')");
          return target.getFlag(req);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  server = createServer(
    createHttpHandler({
      management,
      health: { current: () => ({ status: 'SERVING' }), subscribe: () => () => undefined },
      logger,
      bodyLimitBytes: 64 * 1024,
      ids: { uuid: () => randomUUID() },
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

type Json = Record<string, unknown> & { [k: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Reply {
  status: number;
  body: Json;
  text: string;
  headers: Headers;
}

async function send(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<Reply> {
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json = {};
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    // non-JSON bodies are asserted through `text`
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

const get = (p: string): Promise<Reply> => send('GET', p);
const post = (p: string, b?: unknown): Promise<Reply> => send('POST', p, b);
const put = (p: string, b?: unknown): Promise<Reply> => send('PUT', p, b);
const del = (p: string): Promise<Reply> => send('DELETE', p);

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;

function expectError(reply: Reply, status: number, code: number, message: string | RegExp): void {
  expect({ status: reply.status, code: reply.body.code }).toEqual({ status, code });
  if (typeof message === 'string') expect(reply.body.message).toBe(message);
  else expect(reply.body.message).toMatch(message);
  expect(reply.body.details).toEqual([]);
  expect(reply.headers.get('content-type')).toBe('application/json');
}

const NS = '/api/v1/namespaces/team';

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
