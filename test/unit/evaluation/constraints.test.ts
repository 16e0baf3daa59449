import { compileConstraint, matchConstraint } from '../../../src/domain/evaluation/constraint';
import { constraintOf, type ShortType } from './fixtures';

/** [operator, constraint value, context value (undefined: key absent), expected] */
type Row = readonly [string, string, string | undefined, boolean];

function matches(type: ShortType, operator: string, value: string, v: string | undefined): boolean {
  const c = compileConstraint(constraintOf('default', 's', [type, 'p', operator, value]));
  return matchConstraint(c, v === undefined ? {} : { p: v }, 'the-entity');
}

const table = (type: ShortType, rows: readonly Row[]) =>
  it.each(rows)(`${type} %s %j against %j is %p`, (operator, value, v, expected) => {
    expect(matches(type, operator, value, v)).toBe(expected);
  });

describe('STRING constraints', () => {
  table('STRING', [
    ['eq', 'foo', 'foo', true],
    ['eq', 'foo', 'Foo', false],
    ['eq', 'foo', ' foo', false],
    ['eq', '', '', false],
    ['eq', 'foo', undefined, false],
    ['neq', 'foo', 'bar', true],
    ['neq', 'foo', 'foo', false],
    ['neq', 'foo', undefined, false],
    ['neq', 'foo', '', false],
    ['empty', '', undefined, true],
    ['empty', '', '', true],
    ['empty', '', ' \t\n', true],
    ['empty', '', '\u3000\u0085', true],
    ['empty', '', '\ufeff', false],
    ['empty', '', 'x', false],
    ['notempty', '', 'x', true],
    ['notempty', '', '  ', false],
    ['notempty', '', undefined, false],
    ['prefix', 'foo', 'foobar', true],
    ['prefix', 'foo', '  foobar', true],
    ['prefix', 'foo', 'barfoo', false],
    ['prefix', ' foo', ' foobar', false],
    ['prefix', '', 'x', true],
    ['prefix', '', '  ', true],
    ['prefix', 'foo', 'fo', false],
    ['prefix', 'foo', undefined, false],
    ['suffix', 'bar', 'foobar', true],
    ['suffix', 'bar', 'foobar\n ', true],
    ['suffix', 'bar', 'barfoo', false],
    ['suffix', 'bar ', 'foobar ', false],
    ['suffix', 'ab', ' b', false],
    ['suffix', 'bar', undefined, false],
    ['contains', 'oba', 'foobar', true],
    ['contains', 'xyz', 'foobar', false],
    ['contains', '', 'foobar', true],
    ['contains', '', undefined, false],
    ['notcontains', 'xyz', 'foobar', true],
    ['notcontains', 'oba', 'foobar', false],
    ['notcontains', 'xyz', undefined, false],
    ['isoneof', '["a","b"]', 'b', true],
    ['isoneof', '["a","b"]', 'c', false],
    ['isoneof', '["a","b"]', ' a', false],
    ['isoneof', '["a",null]', 'a', true],
    ['isoneof', '["a",null]', '', false],
    ['isoneof', 'null', 'a', false],
    ['isoneof', '["bar", 5]', 'bar', false],
    ['isoneof', 'not json', 'a', false],
    ['isnotoneof', '["a","b"]', 'c', true],
    ['isnotoneof', '["a","b"]', 'a', false],
    ['isnotoneof', 'null', 'a', true],
    ['isnotoneof', 'not json', 'a', false],
    ['isnotoneof', '["bar", 5]', 'x', false],
    ['isnotoneof', '["a"]', undefined, false],
    ['EQ', 'foo', 'foo', false],
    ['lt', 'b', 'a', false],
    ['true', '', 'true', false],
    ['present', '', 'x', false],
  ]);
});

describe('NUMBER constraints', () => {
  table('NUMBER', [
    ['eq', '3', '3', true],
    ['eq', '3', '3.0', true],
    ['eq', '3', '0x1.8p1', true],
    ['eq', '1000', '1_000', true],
    ['eq', '3', '3.5', false],
    ['eq', '3', ' 3', false],
    ['eq', '3', 'three', false],
    ['eq', 'three', '3', false],
    ['eq', '3', undefined, false],
    ['neq', '3', '4', true],
    ['neq', '3', '3', false],
    ['neq', '3', undefined, false],
    ['neq', '3', 'x', false],
    ['neq', '3', 'nan', true],
    ['eq', 'nan', 'nan', false],
    ['lt', '10', '9.99', true],
    ['lt', '10', '10', false],
    ['lt', '10', 'nan', false],
    ['lte', '10', '10', true],
    ['lte', '10', '10.01', false],
    ['gt', '10', '1e2', true],
    ['gt', '10', '10', false],
    ['gt', '10', 'inf', true],
    ['gte', '10', '10', true],
    ['gte', '10', '-inf', false],
    ['gte', '10', '1e400', false],
    ['lt', '-0', '0', false],
    ['present', '', '1', true],
    ['present', '', 'abc', true],
    ['present', '', ' ', false],
    ['present', '', undefined, false],
    ['notpresent', '', undefined, true],
    ['notpresent', '', ' \t', true],
    ['notpresent', '', '1', false],
    ['isoneof', '[1, 2.5, 3]', '2.5', true],
    ['isoneof', '[1, 2.5, 3]', '2.50', true],
    ['isoneof', '[1, 2.5, 3]', '4', false],
    ['isoneof', '[1, null]', '0', true],
    ['isoneof', '[1, "2"]', '1', false],
    ['isoneof', 'null', '1', false],
    ['isoneof', '[1]', 'x', false],
    ['isnotoneof', '[1, 2]', '3', true],
    ['isnotoneof', '[1, 2]', '2', false],
    ['isnotoneof', '[1, "2"]', '3', false],
    ['isnotoneof', 'null', '3', true],
    ['isnotoneof', '[1]', 'nan', true],
    ['isnotoneof', '[1]', undefined, false],
    ['prefix', '1', '12', false],
    ['empty', '', undefined, false],
  ]);
});

describe('BOOLEAN constraints', () => {
  table('BOOLEAN', [
    ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((v): Row => ['true', '', v, true]),
    ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((v): Row => ['false', '', v, false]),
    ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((v): Row => ['false', '', v, true]),
    ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((v): Row => ['true', '', v, false]),
    ['true', '', 'yes', false],
    ['false', '', 'no', false],
    ['true', '', ' true', false],
    ['true', '', 'tRuE', false],
    ['true', '', undefined, false],
    ['false', '', undefined, false],
    ['true', 'false', 'true', true],
    ['present', '', 'anything', true],
    ['present', '', '', false],
    ['notpresent', '', undefined, true],
    ['notpresent', '', 'false', false],
    ['eq', 'true', 'true', false],
  ]);
});

describe('DATETIME constraints', () => {
  table('DATETIME', [
    ['eq', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z', true],
    ['eq', '2024-01-02T03:04:05Z', '2024-01-02T05:04:05+02:00', true],
    ['eq', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000001Z', false],
    ['neq', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000000001Z', true],
    ['neq', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z', false],
    ['eq', '2024-01-02', '2024-01-02T00:00:00Z', true],
    ['eq', '2024-01-02T00:00:00Z', '2024-01-02', true],
    ['lt', '2024-01-02', '2024-01-01T23:59:59.999999999Z', true],
    ['lt', '2024-01-02', '2024-01-02', false],
    ['lte', '2024-01-02', '2024-01-02', true],
    ['lte', '2024-01-02', '2024-01-02T00:00:00.000000001Z', false],
    ['gt', '2024-01-02T03:04:05.5Z', '2024-01-02T03:04:05.500000001Z', true],
    ['gt', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z', false],
    ['gte', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z', true],
    ['gte', '2024-01-02T03:04:05Z', '2024-01-02T03:04:04Z', false],
    ['gt', '2024-01-02T03:04:05Z', '2024-01-02T5:04:05Z', true],
    ['eq', '2024-01-02T03:04:05Z', 'not a date', false],
    ['neq', '2024-01-02T03:04:05Z', 'not a date', false],
    ['neq', 'not a date', '2024-01-02T03:04:05Z', false],
    ['eq', '2024-01-02T03:04:05Z', '2024-01-02t03:04:05Z', false],
    ['lt', '2024-01-02', undefined, false],
    ['neq', '2024-01-02', undefined, false],
    ['present', '', '2024-01-02', true],
    ['present', '', 'garbage', true],
    ['notpresent', '', undefined, true],
    ['notpresent', '', '2024', false],
    ['isoneof', '["2024-01-02"]', '2024-01-02', false],
  ]);
});

describe('ENTITY_ID constraints', () => {
  const entity = (operator: string, value: string, entityId: string) => {
    const c = compileConstraint(
      constraintOf('default', 's', ['ENTITY_ID', 'ignored', operator, value]),
    );
    return matchConstraint(c, { ignored: 'user-1', entityId: 'user-1' }, entityId);
  };
  it.each<[string, string, string, boolean]>([
    ['eq', 'user-1', 'user-1', true],
    ['eq', 'user-1', 'user-2', false],
    ['neq', 'user-1', 'user-2', true],
    ['neq', 'user-1', '', false],
    ['contains', 'ser', 'user-2', true],
    ['notcontains', 'ser', 'user-2', false],
    ['isoneof', '["user-1","user-3"]', 'user-3', true],
    ['isnotoneof', '["user-1","user-3"]', 'user-2', true],
    ['prefix', 'user', '  user-9', true],
    ['empty', '', '', true],
    ['eq', '', '', false],
  ])('entity id %s %j against entity %j is %p (property ignored)', (op, value, id, expected) => {
    expect(entity(op, value, id)).toBe(expected);
  });
});

describe('context lookup', () => {
  it('reads inherited and non-string properties as missing', () => {
    const c = compileConstraint(constraintOf('default', 's', ['STRING', 'constructor', 'empty']));
    expect(matchConstraint(c, {}, 'e')).toBe(true);
    const d = compileConstraint(constraintOf('default', 's', ['STRING', 'p', 'empty']));
    expect(matchConstraint(d, { p: null } as unknown as Record<string, string>, 'e')).toBe(true);
    const proto = compileConstraint(
      constraintOf('default', 's', ['STRING', '__proto__', 'eq', 'x']),
    );
    expect(
      matchConstraint(proto, JSON.parse('{"__proto__":"x"}') as Record<string, string>, 'e'),
    ).toBe(true);
  });
});
