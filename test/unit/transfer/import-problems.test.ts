import { ImportRejectedError } from '../../../src/domain/transfer';
import { plan, problemsOf } from './transfer-support';

const segments = 'segments:\n  - key: s\n    name: S\n';

describe('portable documents: what an import refuses', () => {
  it('names the document, the item and the reason of every problem, not only the first', () => {
    const text = [
      'namespace: ok\nflags:\n  - key: fine\n    name: Fine\n',
      [
        'namespace: prod',
        'flags:',
        '  - key: checkout',
        '    name: Checkout',
        '    variants:',
        '      - key: a',
        '      - key: b',
        '    rules:',
        '      - segment: s',
        '        distributions:',
        '          - {variant: a, rollout: 70}',
        '          - {variant: b, rollout: 50}',
        '      - segment: nope',
        '      - segment: s',
        '        distributions:',
        '          - {variant: zzz, rollout: 10}',
        segments,
      ].join('\n'),
    ].join('---\n');
    expect(problemsOf(text)).toEqual([
      '2 prod/flags/checkout/rules/1/distributions: rollouts add up to 120%, more than 100%',
      '2 prod/flags/checkout/rules/3/distributions/1: variant "zzz" not found for flag "prod/checkout"',
      '2 prod/flags/checkout/rules/2/segment: segment "prod/nope" not found',
    ]);
  });

  it('refuses a constraint the API would refuse, with the API message', () => {
    const text =
      'segments:\n  - key: s\n    name: S\n    constraints:\n' +
      '      - {type: NUMBER_COMPARISON_TYPE, property: age, operator: prefix, value: "1"}\n' +
      '      - {type: DATETIME_COMPARISON_TYPE, property: at, operator: gt, value: yesterday}\n' +
      '      - {type: STRING_COMPARISON_TYPE, property: p, operator: eq}\n' +
      '      - {property: p, operator: eq, value: x}\n';
    expect(problemsOf(text)).toEqual([
      '1 default/segments/s/constraints/1: constraint operator "prefix" is not valid for type number',
      '1 default/segments/s/constraints/2: parsing datetime from "yesterday"',
      '1 default/segments/s/constraints/3: invalid field value: must not be empty',
      '1 default/segments/s/constraints/4: invalid constraint type: "UNKNOWN_COMPARISON_TYPE"',
    ]);
  });

  it('refuses duplicate keys, within a document and across documents of a namespace', () => {
    const text =
      'flags:\n  - {key: f, name: F, variants: [{key: v}, {key: v}]}\n  - {key: f, name: F2}\n' +
      `${segments}---\nsegments:\n  - {key: s, name: again}\n`;
    expect(problemsOf(text)).toEqual([
      '1 default/flags/f/variants/v: variant "v" is not unique for flag "default/f"',
      '1 default/flags/f: flag "default/f" is not unique',
      '2 default/segments/s: segment "default/s" is not unique',
    ]);
  });

  it('refuses keys the API would refuse, missing names, and out-of-range numbers', () => {
    const text =
      'namespace: "bad key"\nflags:\n  - key: "a b"\n    name: A\n  - key: n\n' +
      '  - key: t\n    name: T\n    type: BOOLEAN_FLAG_TYPE\n' +
      '    rollouts:\n      - threshold: {percentage: 101}\n      - segment: {key: a, keys: [b]}\n' +
      '      - {}\n      - {threshold: {percentage: 1}, segment: {key: s}}\n';
    expect(problemsOf(text)).toEqual([
      '1 bad key/flags/t/rollouts/2/segment: a rollout segment has key or keys, not both',
      '1 bad key/flags/t/rollouts/3: a rollout needs a segment or a threshold',
      '1 bad key/flags/t/rollouts/4: a rollout has a segment or a threshold, not both',
    ]);
    const shape =
      'namespace: "bad key"\nflags:\n  - key: "a b"\n    name: A\n  - key: n\n' +
      '  - key: t\n    name: T\n    type: BOOLEAN_FLAG_TYPE\n' +
      '    rollouts:\n      - threshold: {percentage: 101}\n';
    expect(problemsOf(shape)).toEqual([
      '1 namespace: invalid field key: contains invalid characters',
      '1 bad key/flags/a b: invalid field key: contains invalid characters',
      '1 bad key/flags/n: invalid field name: must not be empty',
      '1 bad key/flags/t/rollouts/1: invalid field threshold.percentage: must be within range [0, 100]',
    ]);
  });

  it('refuses values of the wrong kind and fields the format does not have', () => {
    const text =
      'flags:\n  - key: f\n    name: F\n    enabled: "yes"\n    enabeld: true\n' +
      '    type: ON_OFF\n    variants: {key: v}\n    rules:\n      - segment: s\n' +
      '        distributions: [{variant: v, rollout: "50"}]\n';
    expect(problemsOf(text)).toEqual([
      '1 default/flags/f/enabeld: unknown field',
      '1 default/flags/f/type: must be one of VARIANT_FLAG_TYPE, BOOLEAN_FLAG_TYPE',
      '1 default/flags/f/enabled: must be true or false',
      '1 default/flags/f/variants: must be a list',
      '1 default/flags/f/rules/1/distributions/1/rollout: must be a finite number',
    ]);
    expect(problemsOf('- a\n- b\n')).toEqual(['1 : must be a map with flags and segments']);
  });

  it('refuses text that is not YAML or JSON, naming the document and the line', () => {
    const [yamlProblem] = problemsOf('flags: []\n---\nflags:\n  - key: [unclosed\n');
    expect(yamlProblem).toBe(
      '2 : unexpected end of the stream within a flow collection at line 5, column 1',
    );
    expect(problemsOf('flags: []\nflags: []\n')).toEqual([
      '1 : duplicated mapping key at line 2, column 1',
    ]);
    expect(problemsOf('{"flags": []}\n{"flags": [}', 'json')[0]).toMatch(/^2 : line 2: /);
    expect(problemsOf('{"flags": [', 'json')).toEqual(['1 : line 1: unexpected end of JSON input']);
  });

  it('refuses an empty stream instead of importing nothing', () => {
    expect(problemsOf('')).toEqual(['1 : no document to read']);
    expect(problemsOf('# only a comment\n---\n')).toEqual(['1 : no document to read']);
    expect(problemsOf('', 'json')).toEqual(['1 : no document to read']);
  });

  it('refuses a key that exists already, or skips it when asked', () => {
    const text = `flags:\n  - {key: f, name: F}\n  - {key: g, name: G}\n${segments}`;
    const existing = new Map([
      ['default', { flagKeys: new Set(['f']), segmentKeys: new Set(['s']) }],
    ]);
    const refused = plan(text, 'yaml', existing);
    expect(!refused.ok && refused.problems.map((p) => p.reason)).toEqual([
      'segment "default/s" is not unique',
      'flag "default/f" is not unique',
    ]);
    const skipped = plan(text, 'yaml', existing, { drop: false, skipExisting: true });
    if (!skipped.ok) throw new Error('expected a plan');
    const [ns] = skipped.plan.namespaces;
    expect(ns?.create).toBeUndefined();
    expect(ns?.flags.map((f) => f.flag.key)).toEqual(['g']);
    expect([ns?.skippedFlags, ns?.skippedSegments]).toEqual([['f'], ['s']]);
  });

  it('a rule may use a segment the namespace already has', () => {
    const text = 'flags:\n  - {key: f, name: F, rules: [{segment: s}]}\n';
    const existing = new Map([
      ['default', { flagKeys: new Set<string>(), segmentKeys: new Set(['s']) }],
    ]);
    expect(plan(text, 'yaml', existing).ok).toBe(true);
    expect(plan(text, 'yaml', existing, { drop: true, skipExisting: false }).ok).toBe(false);
  });

  it('with drop, everything present goes first; named namespaces are kept, missing ones created', () => {
    const existing = new Map([
      ['default', { flagKeys: new Set(['f']), segmentKeys: new Set<string>() }],
      ['team', { flagKeys: new Set(['f']), segmentKeys: new Set<string>() }],
    ]);
    const outcome = plan(
      'namespace: team\nflags: [{key: f, name: F}]\n---\nnamespace: new\n',
      'yaml',
      existing,
      { drop: true, skipExisting: false },
    );
    if (!outcome.ok) throw new Error('expected a plan');
    expect(outcome.plan.dropped).toEqual(['default', 'team']);
    expect(outcome.plan.namespaces[0]?.create).toBeUndefined();
    expect(outcome.plan.namespaces[0]?.flags.map((f) => f.flag.key)).toEqual(['f']);
    expect(outcome.plan.namespaces[1]?.create).toEqual({
      key: 'new',
      name: 'new',
      description: '',
    });
  });

  it('an error of a refused import lists the problems, and counts what it leaves out', () => {
    const problems = Array.from({ length: 150 }, (_, i) => ({
      document: 1,
      path: `default/flags/f${i}`,
      reason: 'invalid field name: must not be empty',
    }));
    const lines = new ImportRejectedError(problems).message.split('\n');
    expect(lines[0]).toBe('import refused, nothing written (150 problems)');
    expect(lines[1]).toBe('document 1: default/flags/f0: invalid field name: must not be empty');
    expect(lines).toHaveLength(102);
    expect(lines[101]).toBe('... and 50 more');
  });
});
