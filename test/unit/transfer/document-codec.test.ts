import { parse as parseYaml } from 'yaml';
import { fixture, plan, problemsOf, roundTrip } from './transfer-support';

describe('portable documents: reading and writing', () => {
  it('reads the reference example into the resources it describes', () => {
    const outcome = plan(fixture('reference-example.yml'));
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.problems));
    const [ns] = outcome.plan.namespaces;
    expect(ns?.key).toBe('default');
    expect(ns?.segments.map((s) => s.segment.key)).toEqual([
      'segment1',
      'segment2',
      'internal_users',
    ]);
    const [flag1, flag2] = ns?.flags ?? [];
    expect(flag1?.defaultVariantKey).toBe('variant1');
    expect(flag1?.variants[0]?.attachment).toBe(
      '{"answer":{"everything":42},"happy":true,"list":[1,0,2],"name":"Niels","pi":3.141}',
    );
    expect(flag1?.rules).toEqual([
      {
        segmentKeys: ['segment1'],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        rank: 1,
        distributions: [{ variantKey: 'variant1', rollout: 100 }],
      },
      {
        segmentKeys: ['segment1', 'segment2'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        rank: 2,
        distributions: [],
      },
    ]);
    expect(flag2?.flag.type).toBe('BOOLEAN_FLAG_TYPE');
    expect(flag2?.rollouts).toEqual([
      {
        rank: 1,
        description: 'internal users',
        segment: {
          segmentKeys: ['internal_users'],
          segmentOperator: 'OR_SEGMENT_OPERATOR',
          value: true,
        },
      },
      { rank: 2, description: '', threshold: { percentage: 50, value: true } },
    ]);
    // A no-value operator is stored with an empty value, as the API does.
    expect(ns?.segments[2]?.constraints[0]).toMatchObject({ operator: 'true', value: '' });
  });

  it('writes the reference example in the format order, keys of values sorted', () => {
    expect(roundTrip(fixture('reference-example.yml'))).toBe(
      fixture('reference-example.export.yml'),
    );
  });

  it('an export imported and exported again gives the same bytes', () => {
    const once = roundTrip(fixture('reference-example.yml'));
    const twice = roundTrip(once);
    expect(twice).toBe(once);
    expect(roundTrip(twice)).toBe(once);
  });

  it('JSON documents round-trip the same way', () => {
    const yamlExport = roundTrip(fixture('reference-example.yml'));
    const asJson = `${JSON.stringify(parseYaml(yamlExport))}\n`;
    const once = roundTrip(asJson, 'json');
    expect(once.startsWith('{\n  "version": "1.4",\n  "namespace": {')).toBe(true);
    expect(roundTrip(once, 'json')).toBe(once);
  });

  it('reads a multi-document stream, one namespace per document', () => {
    const text = [
      'version: "1.4"\nnamespace: a\nflags:\n  - key: f\n    name: F\n',
      'namespace: b\nsegments:\n  - key: s\n    name: S\n',
    ].join('---\n');
    const outcome = plan(text);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.problems));
    expect(outcome.plan.namespaces.map((n) => [n.key, n.create?.name])).toEqual([
      ['a', 'a'],
      ['b', 'b'],
    ]);
    expect(roundTrip(text)).toBe(
      'version: "1.4"\nnamespace:\n  key: a\n  name: a\nflags:\n  - key: f\n    name: F\n' +
        '    type: VARIANT_FLAG_TYPE\n    enabled: false\n---\nnamespace:\n  key: b\n  name: b\n' +
        'segments:\n  - key: s\n    name: S\n    match_type: ALL_MATCH_TYPE\n',
    );
  });

  it('reads a JSON stream of objects one after another, after a # comment line', () => {
    const text =
      '# exported by hand\n{"namespace":"a","flags":[{"key":"f","name":"F"}]}\n{"namespace":"b"}';
    const outcome = plan(text, 'json');
    expect(outcome.ok && outcome.plan.namespaces.map((n) => n.key)).toEqual(['a', 'b']);
  });

  it('reads YAML merge keys, and keeps timestamp-like values as text', () => {
    const outcome = plan(
      'x-base: &base {type: STRING_COMPARISON_TYPE, property: p, operator: eq}\n' +
        'segments:\n  - key: s\n    name: S\n    constraints:\n' +
        '      - {<<: *base, value: 2024-01-02T03:04:05Z}\n',
    );
    expect(outcome.ok).toBe(false);
    const ok = plan(
      'segments:\n  - key: s\n    name: S\n    constraints:\n' +
        '      - &c {type: STRING_COMPARISON_TYPE, property: p, operator: eq, value: 2024-01-02T03:04:05Z}\n' +
        '      - {<<: *c, property: q}\n',
    );
    if (!ok.ok) throw new Error(JSON.stringify(ok.problems));
    expect(
      ok.plan.namespaces[0]?.segments[0]?.constraints.map((c) => [c.property, c.value]),
    ).toEqual([
      ['p', '2024-01-02T03:04:05Z'],
      ['q', '2024-01-02T03:04:05Z'],
    ]);
  });

  it('reads every accepted version, and a version written as a number', () => {
    for (const version of ['1.0', '1.1', '1.2', '1.3', '1.4']) {
      const outcome = plan(
        `version: "${version}"\nflags:\n  - key: f\n    name: F\n    rules:\n` +
          `      - segment: s\n        rank: 1\nsegments:\n  - key: s\n    name: S\n`,
      );
      expect(outcome.ok).toBe(true);
    }
    expect(plan('version: 1.2\nflags: []\n').ok).toBe(true);
    expect(plan('version: 1\nflags: []\n').ok).toBe(true);
  });

  it('refuses a version it does not know', () => {
    expect(problemsOf('version: "2.0"\nflags: []\n')).toEqual([
      '1 version: unsupported version "2.0" (supported: 1.0, 1.1, 1.2, 1.3, 1.4)',
    ]);
  });

  it('refuses fields newer than the document version', () => {
    const text =
      'version: "1.0"\nflags:\n  - key: f\n    name: F\n    type: BOOLEAN_FLAG_TYPE\n' +
      '    rollouts:\n      - threshold: {percentage: 5}\n';
    expect(problemsOf(text)).toEqual([
      '1 default/flags/f: flag.type is supported in version >=1.1, found 1.0',
      '1 default/flags/f: flag.rollouts is supported in version >=1.1, found 1.0',
    ]);
    expect(
      problemsOf(
        'version: "1.2"\nflags:\n  - key: f\n    name: F\n    variants:\n      - key: v\n        default: true\n',
      ),
    ).toEqual([
      '1 default/flags/f/variants/v: flag.variants.default is supported in version >=1.3, found 1.2',
    ]);
    expect(
      problemsOf(
        'version: "1.1"\nflags:\n  - key: f\n    name: F\n    rules:\n      - segment: {keys: [a, b]}\n',
      )[0],
    ).toBe(
      '1 default/flags/f/rules/1/segment: flag.rules.segment.keys is supported in version >=1.2, found 1.1',
    );
    expect(problemsOf('version: "1.3"\nnamespace: {key: a, name: A}\n')).toEqual([
      '1 namespace: namespace.name is supported in version >=1.4, found 1.3',
    ]);
  });

  it('in version 1.0 a rule needs its rank; later versions take it from the position', () => {
    const rules = 'flags:\n  - key: f\n    name: F\n    rules:\n      - segment: s\n';
    const segments = 'segments:\n  - key: s\n    name: S\n';
    expect(problemsOf(`version: "1.0"\n${rules}${segments}`)).toEqual([
      '1 default/flags/f/rules/1: invalid field rank: must be greater than 0',
    ]);
    const outcome = plan(`version: "1.1"\n${rules}${segments}`);
    expect(outcome.ok && outcome.plan.namespaces[0]?.flags[0]?.rules[0]?.rank).toBe(1);
  });
});
