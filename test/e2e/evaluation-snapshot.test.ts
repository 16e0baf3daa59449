import { createHash } from 'node:crypto';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import {
  api,
  BLUE_ATTACHMENT,
  seedConfiguration,
  type Json,
  type SeededNamespace,
} from '../support/seed-config';

/*
 * GET /internal/v1/evaluation/snapshot/namespace/{key}, the document the client-side SDKs
 * evaluate from: its shape (the snapshot enum names), the ETag derived from the namespace
 * version with If-None-Match / 304, the x-flipt-accept-server-version gating, and a rule with
 * several segments appearing once.
 */

const ROUTE = '/internal/v1/evaluation/snapshot/namespace';
const sha1 = (s: string): string => createHash('sha1').update(s).digest('hex');

let vexil: VexilProcess;
let seeded: SeededNamespace;

beforeAll(async () => {
  vexil = await startVexil();
  seeded = await seedConfiguration(vexil.baseUrl);
});

afterAll(async () => {
  await vexil?.stop();
});

async function get(
  key: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; etag: string | null; text: string; body: Json }> {
  const res = await fetch(`${vexil.baseUrl}${ROUTE}/${key}`, { headers });
  const text = await res.text();
  return {
    status: res.status,
    etag: res.headers.get('etag'),
    text,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

const flagOf = (doc: Json, key: string): Json => doc.flags.find((f: Json) => f.key === key);

describe('snapshot shape', () => {
  it('lists every flag with rules, rollouts, segments and distributions', async () => {
    const { status, body } = await get('default', { 'x-flipt-accept-server-version': '1.47.0' });
    expect(status).toBe(200);
    expect(body.namespace).toEqual({ key: 'default' });
    expect(body.flags.map((f: Json) => f.key)).toEqual([
      'color',
      'theme',
      'legacy-off',
      'new-ui',
      'kill-switch',
    ]);

    const color = flagOf(body, 'color');
    expect(color).toMatchObject({
      key: 'color',
      name: 'color',
      description: 'color flag',
      enabled: true,
      type: 'VARIANT_FLAG_TYPE',
      rollouts: [],
      defaultVariant: {
        id: seeded.variants['color/blue'],
        key: 'blue',
        attachment: BLUE_ATTACHMENT,
      },
    });
    expect(color.createdAt).toMatch(/Z$/);
    expect(color.updatedAt).toMatch(/Z$/);
    expect(color.rules.map((r: Json) => [r.id, r.rank, r.segmentOperator])).toEqual([
      [seeded.rules['color#1'], 1, 'OR_SEGMENT_OPERATOR'],
      [seeded.rules['color#2'], 2, 'AND_SEGMENT_OPERATOR'],
      [seeded.rules['color#3'], 3, 'OR_SEGMENT_OPERATOR'],
    ]);
    expect(color.rules[0].segments).toEqual([
      {
        key: 'internal',
        name: '',
        description: '',
        matchType: 'ALL_SEGMENT_MATCH_TYPE',
        constraints: [
          {
            id: seeded.constraints['internal/email'],
            type: 'STRING_CONSTRAINT_COMPARISON_TYPE',
            property: 'email',
            operator: 'suffix',
            value: '@example.com',
          },
        ],
      },
    ]);
    expect(color.rules[0].distributions).toEqual([
      {
        id: '',
        ruleId: '',
        variantId: seeded.variants['color/red'],
        variantKey: 'red',
        variantAttachment: '{"hex":"#f00","weight":1}',
        rollout: 100,
      },
    ]);

    // The two-segment rule: once, each segment once, its distributions once.
    const multi = color.rules[1];
    expect(multi.segments.map((s: Json) => s.key).sort()).toEqual(['beta', 'mobile']);
    const beta = multi.segments.find((s: Json) => s.key === 'beta');
    expect(beta.matchType).toBe('ANY_SEGMENT_MATCH_TYPE');
    expect(beta.constraints.map((c: Json) => c.type).sort()).toEqual([
      'NUMBER_CONSTRAINT_COMPARISON_TYPE',
      'STRING_CONSTRAINT_COMPARISON_TYPE',
    ]);
    const mobile = multi.segments.find((s: Json) => s.key === 'mobile');
    expect(mobile.constraints[0]).toMatchObject({
      type: 'BOOLEAN_CONSTRAINT_COMPARISON_TYPE',
      operator: 'true',
      value: '',
    });
    expect(multi.distributions.map((d: Json) => [d.variantKey, d.rollout])).toEqual([
      ['blue', 50],
      ['green', 50],
    ]);

    const theme = flagOf(body, 'theme');
    expect(theme.defaultVariant).toBeUndefined();
    expect(flagOf(body, 'legacy-off')).toMatchObject({ enabled: false, rules: [], rollouts: [] });

    const newUi = flagOf(body, 'new-ui');
    expect(newUi).toMatchObject({ type: 'BOOLEAN_FLAG_TYPE', enabled: false, rules: [] });
    expect(newUi.defaultVariant).toBeUndefined();
    expect(newUi.rollouts).toEqual([
      {
        type: 'SEGMENT_ROLLOUT_TYPE',
        rank: 1,
        segment: {
          value: true,
          segmentOperator: 'OR_SEGMENT_OPERATOR',
          segments: [
            expect.objectContaining({
              key: 'internal',
              matchType: 'ALL_SEGMENT_MATCH_TYPE',
              constraints: [
                expect.objectContaining({
                  type: 'STRING_CONSTRAINT_COMPARISON_TYPE',
                  property: 'email',
                }),
              ],
            }),
          ],
        },
      },
      { type: 'THRESHOLD_ROLLOUT_TYPE', rank: 2, threshold: { percentage: 50, value: true } },
    ]);
  });

  it('gates ENTITY_ID constraints and default variants on x-flipt-accept-server-version', async () => {
    const vipType = (doc: Json): string =>
      flagOf(doc, 'color').rules[2].segments[0].constraints[0].type;
    const absent = (await get('default')).body;
    expect(vipType(absent)).toBe('UNKNOWN_CONSTRAINT_COMPARISON_TYPE');
    expect(flagOf(absent, 'color').defaultVariant).toBeUndefined();

    const v138 = (await get('default', { 'x-flipt-accept-server-version': 'v1.38.0' })).body;
    expect(vipType(v138)).toBe('ENTITY_ID_CONSTRAINT_COMPARISON_TYPE');
    expect(flagOf(v138, 'color').defaultVariant).toBeUndefined();

    const v147 = (await get('default', { 'x-flipt-accept-server-version': '1.47.0' })).body;
    expect(vipType(v147)).toBe('ENTITY_ID_CONSTRAINT_COMPARISON_TYPE');
    expect(flagOf(v147, 'color').defaultVariant.key).toBe('blue');

    const garbage = (await get('default', { 'x-flipt-accept-server-version': 'latest' })).body;
    expect(vipType(garbage)).toBe('UNKNOWN_CONSTRAINT_COMPARISON_TYPE');
  });

  it('unknown namespace: 200 with no flags and no ETag', async () => {
    const res = await get('nowhere');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ namespace: { key: 'nowhere' }, flags: [] });
    expect(res.etag).toBeNull();
  });
});

describe('ETag and If-None-Match', () => {
  it('is the SHA-1 of the namespace version, answers 304 when equal and moves on a write', async () => {
    const first = await get('default');
    expect(first.etag).toMatch(/^[0-9a-f]{40}$/);
    // The version is a counter bumped by every write: find it, then expect the next one.
    const version = Array.from({ length: 10_000 }, (_, i) => i).find(
      (v) => sha1(String(v)) === first.etag,
    );
    expect(version).toBeDefined();

    const again = await get('default', { 'x-flipt-accept-server-version': '1.47.0' });
    expect(again.etag).toBe(first.etag);

    const notModified = await fetch(`${vexil.baseUrl}${ROUTE}/default`, {
      headers: { 'if-none-match': first.etag ?? '' },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(first.etag);
    expect(await notModified.text()).toBe('');

    // Quoted and weak validators are not the ETag Flipt sends.
    for (const validator of [`"${first.etag}"`, `W/"${first.etag}"`, 'other']) {
      const res = await get('default', { 'if-none-match': validator });
      expect(res.status).toBe(200);
      expect(res.etag).toBe(first.etag);
    }

    await api(vexil.baseUrl, 'PUT', '/api/v1/namespaces/default/flags/kill-switch', {
      name: 'kill-switch',
      enabled: false,
    });
    const changed = await get('default', { 'if-none-match': first.etag ?? '' });
    expect(changed.status).toBe(200);
    expect(changed.etag).toBe(sha1(String((version ?? 0) + 1)));
    expect(flagOf(changed.body, 'kill-switch').enabled).toBe(false);

    const stable = await fetch(`${vexil.baseUrl}${ROUTE}/default`, {
      headers: { 'if-none-match': changed.etag ?? '' },
    });
    expect(stable.status).toBe(304);
  });
});
