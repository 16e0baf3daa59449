import { startVexil, type VexilProcess } from '../support/vexil-process';

interface FlagJson {
  key: string;
  enabled: boolean;
  variants: { id: string; key: string; attachment: string }[];
  defaultVariant?: { id: string; key: string };
}

describe('copying a flag to another namespace (POST .../flags/{key}/copy)', () => {
  let vexil: VexilProcess;
  const call = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(vexil.baseUrl + path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await call<T>(method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const ns = '/api/v1/namespaces';

  beforeAll(async () => {
    vexil = await startVexil();
    await ok('POST', ns, { key: 'staging', name: 'Staging' });
    await ok('POST', ns, { key: 'prod', name: 'Prod' });
    await ok('POST', `${ns}/staging/segments`, {
      key: 'beta',
      name: 'Beta',
      matchType: 'ANY_MATCH_TYPE',
    });
    await ok('POST', `${ns}/staging/segments/beta/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'pro',
    });
    await ok('POST', `${ns}/staging/segments`, { key: 'eu', name: 'EU in staging' });
    await ok('POST', `${ns}/prod/segments`, { key: 'eu', name: 'EU in prod' });
    await ok('POST', `${ns}/staging/flags`, { key: 'pricing', name: 'Pricing', enabled: true });
    const a = await ok<{ id: string }>('POST', `${ns}/staging/flags/pricing/variants`, {
      key: 'annual',
      attachment: '{"discount":20}',
    });
    const b = await ok<{ id: string }>('POST', `${ns}/staging/flags/pricing/variants`, {
      key: 'monthly',
    });
    await ok('PUT', `${ns}/staging/flags/pricing`, {
      name: 'Pricing',
      enabled: true,
      defaultVariantId: b.id,
    });
    const rule = await ok<{ id: string }>('POST', `${ns}/staging/flags/pricing/rules`, {
      segmentKeys: ['beta', 'eu'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
      rank: 1,
    });
    await ok('POST', `${ns}/staging/flags/pricing/rules/${rule.id}/distributions`, {
      variantId: a.id,
      rollout: 70,
    });
    await ok('POST', `${ns}/staging/flags/pricing/rules/${rule.id}/distributions`, {
      variantId: b.id,
      rollout: 30,
    });
    await ok('POST', `${ns}/staging/flags`, {
      key: 'banner',
      name: 'Banner',
      type: 'BOOLEAN_FLAG_TYPE',
    });
    await ok('POST', `${ns}/staging/flags/banner/rollouts`, {
      rank: 1,
      segment: { segmentKey: 'beta', value: true },
    });
    await ok('POST', `${ns}/staging/flags/banner/rollouts`, {
      rank: 2,
      threshold: { percentage: 25, value: true },
    });
  }, 60_000);
  afterAll(() => vexil.stop());

  it('copies variants, the default variant, rules with distributions, and the missing segments', async () => {
    const copied = await ok<FlagJson>('POST', `${ns}/staging/flags/pricing/copy`, {
      targetNamespaceKey: 'prod',
    });
    expect(copied.key).toBe('pricing');
    expect(copied.variants.map((v) => [v.key, v.attachment])).toEqual([
      ['annual', '{"discount":20}'],
      ['monthly', ''],
    ]);
    expect(copied.defaultVariant?.key).toBe('monthly');
    const source = await ok<FlagJson>('GET', `${ns}/staging/flags/pricing`);
    expect(copied.variants.map((v) => v.id)).not.toEqual(source.variants.map((v) => v.id));

    const { rules } = await ok<{
      rules: {
        segmentKeys: string[];
        segmentOperator: string;
        distributions: { variantId: string; rollout: number }[];
      }[];
    }>('GET', `${ns}/prod/flags/pricing/rules`);
    expect(rules).toHaveLength(1);
    expect(rules[0]?.segmentKeys).toEqual(['beta', 'eu']);
    expect(rules[0]?.segmentOperator).toBe('AND_SEGMENT_OPERATOR');
    const byId = new Map(copied.variants.map((v) => [v.id, v.key]));
    expect(rules[0]?.distributions.map((d) => [byId.get(d.variantId), d.rollout])).toEqual([
      ['annual', 70],
      ['monthly', 30],
    ]);
    // beta was missing in prod and is copied with its constraints; eu exists there and is kept.
    const beta = await ok<{ matchType: string; constraints: { property: string }[] }>(
      'GET',
      `${ns}/prod/segments/beta`,
    );
    expect(beta.matchType).toBe('ANY_MATCH_TYPE');
    expect(beta.constraints.map((c) => c.property)).toEqual(['plan']);
    expect((await ok<{ name: string }>('GET', `${ns}/prod/segments/eu`)).name).toBe('EU in prod');

    // The copy evaluates like the original for the same entity and context.
    const req = { flagKey: 'pricing', entityId: 'user-9', context: { plan: 'pro' } };
    const there = await ok<{ variantKey: string }>('POST', '/evaluate/v1/variant', {
      ...req,
      namespaceKey: 'prod',
    });
    const here = await ok<{ variantKey: string }>('POST', '/evaluate/v1/variant', {
      ...req,
      namespaceKey: 'staging',
    });
    expect(there.variantKey).toBe(here.variantKey);
  });

  it('copies rollouts in rank order, under another key if asked', async () => {
    await ok('POST', `${ns}/staging/flags/banner/copy`, {
      targetNamespaceKey: 'prod',
      targetKey: 'banner-2',
    });
    const { rules } = await ok<{ rules: { type: string; rank: number }[] }>(
      'GET',
      `${ns}/prod/flags/banner-2/rollouts`,
    );
    expect(rules.map((r) => [r.type, r.rank])).toEqual([
      ['SEGMENT_ROLLOUT_TYPE', 1],
      ['THRESHOLD_ROLLOUT_TYPE', 2],
    ]);
  });

  it('writes nothing when the flag already exists there, and says so', async () => {
    await ok('POST', ns, { key: 'qa', name: 'QA' });
    await ok('POST', `${ns}/qa/flags`, { key: 'pricing', name: 'Already here' });
    const res = await call<{ message: string }>('POST', `${ns}/staging/flags/pricing/copy`, {
      targetNamespaceKey: 'qa',
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('flag "qa/pricing" is not unique');
    const segments = await ok<{ segments: unknown[] }>('GET', `${ns}/qa/segments`);
    expect(segments.segments).toEqual([]);
  });

  it('refuses an unknown target namespace or flag, and a missing target', async () => {
    const nowhere = await call<{ message: string }>('POST', `${ns}/staging/flags/pricing/copy`, {
      targetNamespaceKey: 'nope',
    });
    expect([nowhere.status, nowhere.body.message]).toEqual([404, 'namespace "nope" not found']);
    const noFlag = await call<{ message: string }>('POST', `${ns}/staging/flags/nope/copy`, {
      targetNamespaceKey: 'prod',
    });
    expect([noFlag.status, noFlag.body.message]).toEqual([404, 'flag "staging/nope" not found']);
    const noTarget = await call<{ message: string }>(
      'POST',
      `${ns}/staging/flags/pricing/copy`,
      {},
    );
    expect([noTarget.status, noTarget.body.message]).toEqual([
      400,
      'invalid field targetNamespaceKey: must not be empty',
    ]);
  });
});
