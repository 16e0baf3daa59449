import { scopeEvaluationRoutes } from '../../../src/adapters/auth/transport-guards';
import type { JsonRoute } from '../../../src/adapters/http/http-handler';
import type { RequestContext } from '../../../src/adapters/http/request-context';
import { TOKEN_NAMESPACE_KEY } from '../../../src/domain/auth';
import { UnauthenticatedError } from '../../../src/domain/errors';
import type { Authentication } from '../../../src/domain/model';

const caller = (namespace?: string): Authentication => ({
  id: 'a',
  method: 'METHOD_TOKEN',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  metadata: namespace === undefined ? {} : { [TOKEN_NAMESPACE_KEY]: namespace },
});
const ctx = (principal?: Authentication): RequestContext => ({
  requestId: 'r',
  startedAt: 0,
  route: '/evaluate/v1/boolean',
  ...(principal === undefined ? {} : { principal }),
});

function scoped(pattern = '/evaluate/v1/boolean'): { route: JsonRoute; answer: jest.Mock } {
  const answer = jest.fn(() => 'answer');
  const [route] = scopeEvaluationRoutes(
    [{ method: 'POST', pattern, answer, handle: jest.fn() } as JsonRoute],
    new Set(),
  );
  return { route: route as JsonRoute, answer };
}

describe('scopeEvaluationRoutes on the JSON fast path', () => {
  it('keeps answer and hands it the body, params and context', () => {
    const { route, answer } = scoped();
    const c = ctx(caller());
    expect(typeof route.answer).toBe('function');
    expect(route.answer({ flagKey: 'f' }, {}, c)).toBe('answer');
    expect(answer).toHaveBeenCalledWith({ flagKey: 'f' }, {}, c);
  });

  it('lets a scoped caller evaluate in its namespace and refuses another', () => {
    const { route, answer } = scoped();
    expect(route.answer({ namespaceKey: 'team' }, {}, ctx(caller('team')))).toBe('answer');
    expect(() => route.answer({ namespaceKey: 'other' }, {}, ctx(caller('team')))).toThrow(
      UnauthenticatedError,
    );
    // No namespace in the body means the default namespace.
    expect(() => route.answer({}, {}, ctx(caller('team')))).toThrow(UnauthenticatedError);
    expect(answer).toHaveBeenCalledTimes(1);
  });

  it('checks the path namespace and every batch item', () => {
    const { route } = scoped('/evaluate/v1/namespaces/:namespaceKey/batch');
    const team = ctx(caller('team'));
    const params = { namespaceKey: 'team' };
    expect(route.answer({ requests: [{ namespaceKey: 'team' }] }, params, team)).toBe('answer');
    expect(() => route.answer({ requests: [{ namespaceKey: 'team' }, {}] }, params, team)).toThrow(
      UnauthenticatedError,
    );
    expect(() => route.answer({}, { namespaceKey: 'other' }, team)).toThrow(UnauthenticatedError);
  });

  it('refuses a request that reached the route without a caller', () => {
    const { route, answer } = scoped();
    expect(() => route.answer({}, {}, ctx())).toThrow(UnauthenticatedError);
    expect(answer).not.toHaveBeenCalled();
  });

  it('adds no answer to a route that has none', () => {
    const [route] = scopeEvaluationRoutes(
      [
        {
          method: 'GET',
          pattern: '/internal/v1/evaluation/snapshot/namespace/:key',
          handle: jest.fn(),
        },
      ],
      new Set(),
    );
    expect('answer' in (route as object)).toBe(false);
  });
});
