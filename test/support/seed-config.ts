/*
 * A representative configuration written through Vexil's management REST API, for the
 * end-to-end evaluation and SDK tests. Every construct the evaluators distinguish appears at
 * least once: segments of both match types with STRING, NUMBER, BOOLEAN and ENTITY_ID
 * constraints; variant flags with a default variant, without one, and disabled; a rule with two
 * segments (AND); boolean flags with segment and threshold rollouts and without any.
 *
 * Values are chosen so the Rust client engine (§12 of the evaluation reference) agrees with the
 * server: integer NUMBER values, literal true/false booleans, distributions that add up to 100
 * with bounds that do not depend on rounding.
 */

// Management responses are Flipt JSON read field by field; typing each shape adds nothing.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
    message: string,
  ) {
    super(message);
  }
}

/** One REST call; throws ApiError on a non-2xx answer. */
export async function api(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Json> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed: Json = text === '' ? {} : JSON.parse(text);
  if (res.status >= 300) {
    throw new ApiError(res.status, parsed, `${method} ${path}: ${res.status} ${text}`);
  }
  return parsed;
}

export interface SeededNamespace {
  readonly namespaceKey: string;
  /** variant ids by `<flag>/<variant>` */
  readonly variants: Record<string, string>;
  /** rule ids by `<flag>#<rank>` */
  readonly rules: Record<string, string>;
  /** rollout ids by `<flag>#<rank>` */
  readonly rollouts: Record<string, string>;
  /** distribution ids by `<flag>#<rank>/<variant>` */
  readonly distributions: Record<string, string>;
  /** constraint ids by `<segment>/<property>` */
  readonly constraints: Record<string, string>;
}

/** The flag keys `seedConfiguration` creates, with their types. */
export const SEEDED_FLAGS = {
  color: 'VARIANT_FLAG_TYPE',
  theme: 'VARIANT_FLAG_TYPE',
  'legacy-off': 'VARIANT_FLAG_TYPE',
  'new-ui': 'BOOLEAN_FLAG_TYPE',
  'kill-switch': 'BOOLEAN_FLAG_TYPE',
} as const;

export const RED_ATTACHMENT = '{"hex":"#f00","weight":1}';
export const BLUE_ATTACHMENT = '{"hex":"#00f"}';

/**
 * Seeds one namespace (created unless it is `default`):
 *
 * segments
 *   internal  ALL  email suffix "@example.com"
 *   beta      ANY  plan == "beta" | age >= 30
 *   mobile    ALL  mobile is true
 *   vip       ALL  entityId isoneof ["vip-1","vip-2"]
 * flags
 *   color       VARIANT enabled, variants red/blue/green, default variant blue
 *                 #1 internal           -> red 100
 *                 #2 beta AND mobile    -> blue 50 / green 50
 *                 #3 vip                -> green 100
 *   theme       VARIANT enabled, no default variant: #1 beta -> dark 100
 *   legacy-off  VARIANT disabled, variant on
 *   new-ui      BOOLEAN disabled: #1 internal -> true, #2 threshold 50% -> true
 *   kill-switch BOOLEAN enabled, no rollouts
 */
export async function seedConfiguration(
  baseUrl: string,
  namespaceKey = 'default',
): Promise<SeededNamespace> {
  const call = (method: string, path: string, body?: unknown) => api(baseUrl, method, path, body);
  if (namespaceKey !== 'default') {
    await call('POST', '/api/v1/namespaces', { key: namespaceKey, name: namespaceKey });
  }
  const ns = `/api/v1/namespaces/${namespaceKey}`;
  const out: SeededNamespace = {
    namespaceKey,
    variants: {},
    rules: {},
    rollouts: {},
    distributions: {},
    constraints: {},
  };

  const segment = async (
    key: string,
    matchType: string,
    constraints: Array<{ type: string; property: string; operator: string; value?: string }>,
  ) => {
    await call('POST', `${ns}/segments`, { key, name: key, matchType });
    for (const c of constraints) {
      const created = await call('POST', `${ns}/segments/${key}/constraints`, c);
      out.constraints[`${key}/${c.property}`] = created.id;
    }
  };
  await segment('internal', 'ALL_MATCH_TYPE', [
    {
      type: 'STRING_COMPARISON_TYPE',
      property: 'email',
      operator: 'suffix',
      value: '@example.com',
    },
  ]);
  await segment('beta', 'ANY_MATCH_TYPE', [
    { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'beta' },
    { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '30' },
  ]);
  await segment('mobile', 'ALL_MATCH_TYPE', [
    { type: 'BOOLEAN_COMPARISON_TYPE', property: 'mobile', operator: 'true' },
  ]);
  await segment('vip', 'ALL_MATCH_TYPE', [
    {
      type: 'ENTITY_ID_COMPARISON_TYPE',
      property: 'entityId',
      operator: 'isoneof',
      value: '["vip-1","vip-2"]',
    },
  ]);

  const flag = async (key: string, type: string, enabled: boolean) =>
    call('POST', `${ns}/flags`, { key, name: key, type, enabled, description: `${key} flag` });
  const variant = async (flagKey: string, key: string, attachment = '') => {
    const created = await call('POST', `${ns}/flags/${flagKey}/variants`, {
      key,
      name: key,
      attachment,
    });
    out.variants[`${flagKey}/${key}`] = created.id;
    return created.id as string;
  };
  const rule = async (
    flagKey: string,
    rank: number,
    segments: string[],
    dist: Array<[string, number]>,
  ) => {
    const body =
      segments.length === 1
        ? { segmentKey: segments[0], rank }
        : { segmentKeys: segments, segmentOperator: 'AND_SEGMENT_OPERATOR', rank };
    const created = await call('POST', `${ns}/flags/${flagKey}/rules`, body);
    out.rules[`${flagKey}#${rank}`] = created.id;
    for (const [variantKey, rollout] of dist) {
      const d = await call('POST', `${ns}/flags/${flagKey}/rules/${created.id}/distributions`, {
        variantId: out.variants[`${flagKey}/${variantKey}`],
        rollout,
      });
      out.distributions[`${flagKey}#${rank}/${variantKey}`] = d.id;
    }
  };

  await flag('color', 'VARIANT_FLAG_TYPE', true);
  await variant('color', 'red', RED_ATTACHMENT);
  const blue = await variant('color', 'blue', BLUE_ATTACHMENT);
  await variant('color', 'green');
  await call('PUT', `${ns}/flags/color`, {
    name: 'color',
    description: 'color flag',
    enabled: true,
    defaultVariantId: blue,
  });
  await rule('color', 1, ['internal'], [['red', 100]]);
  await rule(
    'color',
    2,
    ['beta', 'mobile'],
    [
      ['blue', 50],
      ['green', 50],
    ],
  );
  await rule('color', 3, ['vip'], [['green', 100]]);

  await flag('theme', 'VARIANT_FLAG_TYPE', true);
  await variant('theme', 'dark');
  await rule('theme', 1, ['beta'], [['dark', 100]]);

  await flag('legacy-off', 'VARIANT_FLAG_TYPE', false);
  await variant('legacy-off', 'on');

  await flag('new-ui', 'BOOLEAN_FLAG_TYPE', false);
  const r1 = await call('POST', `${ns}/flags/new-ui/rollouts`, {
    rank: 1,
    segment: { segmentKey: 'internal', value: true },
  });
  out.rollouts['new-ui#1'] = r1.id;
  const r2 = await call('POST', `${ns}/flags/new-ui/rollouts`, {
    rank: 2,
    threshold: { percentage: 50, value: true },
  });
  out.rollouts['new-ui#2'] = r2.id;

  await flag('kill-switch', 'BOOLEAN_FLAG_TYPE', true);
  return out;
}

/** Entities and contexts that exercise every rule and rollout of the seeded flags. */
export const SAMPLE_ENTITIES: ReadonlyArray<{ entityId: string; context: Record<string, string> }> =
  [
    { entityId: 'alice', context: { email: 'alice@example.com' } },
    { entityId: 'bob', context: { email: 'bob@elsewhere.org', plan: 'beta', mobile: 'true' } },
    { entityId: 'carol', context: { age: '41', mobile: 'true' } },
    { entityId: 'dave', context: { age: '29', mobile: 'true' } },
    { entityId: 'vip-1', context: {} },
    { entityId: 'vip-2', context: { mobile: 'false', plan: 'beta' } },
    ...Array.from({ length: 24 }, (_, i) => ({
      entityId: `user-${i}`,
      context: (i % 3 === 0 ? { plan: 'beta', mobile: 'true' } : { plan: 'free' }) as Record<
        string,
        string
      >,
    })),
  ];
