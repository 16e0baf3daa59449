import { RouteTable, splitTarget } from '../../../src/adapters/http';

const noop = (): void => undefined;

describe('RouteTable', () => {
  const table = new RouteTable([
    { method: 'POST', pattern: '/evaluate/v1/boolean', handle: noop },
    { method: 'GET', pattern: '/internal/v1/evaluation/snapshot/namespace/:key', handle: noop },
  ]);

  it('matches method and path, decoding parameters', () => {
    const m = table.match('GET', '/internal/v1/evaluation/snapshot/namespace/a%20b');
    expect(m.kind).toBe('route');
    expect(m.kind === 'route' && m.params).toEqual({ key: 'a b' });
  });

  it('treats HEAD as GET', () => {
    expect(table.match('HEAD', '/internal/v1/evaluation/snapshot/namespace/x').kind).toBe('route');
  });

  it('tells a wrong method from an unknown path', () => {
    expect(table.match('GET', '/evaluate/v1/boolean')).toEqual({
      kind: 'wrong-method',
      pattern: '/evaluate/v1/boolean',
    });
    expect(table.match('POST', '/evaluate/v1/other').kind).toBe('none');
  });
});

describe('splitTarget', () => {
  it('strips trailing slashes and separates the query', () => {
    const { path, query } = splitTarget('/api/v1/flags/?limit=2');
    expect(path).toBe('/api/v1/flags');
    expect(query.get('limit')).toBe('2');
    expect(splitTarget('/').path).toBe('/');
    expect(splitTarget(undefined).path).toBe('/');
  });
});
