import {
  authorizeNamespace,
  isAuthenticationExempt,
  requestNamespaceKeys,
  serviceOfGrpcPath,
  tokenNamespace,
} from '../../../src/domain/auth';
import { UnauthenticatedError } from '../../../src/domain/errors';
import type { Authentication } from '../../../src/domain/model';

const auth = (namespace?: string): Authentication => ({
  id: 'id',
  method: 'METHOD_TOKEN',
  createdAt: '2030-01-01T00:00:00.000000Z',
  updatedAt: '2030-01-01T00:00:00.000000Z',
  metadata: {
    'io.flipt.auth.token.name': 'n',
    ...(namespace === undefined ? {} : { 'io.flipt.auth.token.namespace': namespace }),
  },
});

const FLIPT = 'flipt.Flipt';
const EVAL = 'flipt.evaluation.EvaluationService';
const DATA = 'flipt.evaluation.DataService';
const AUTHN = 'flipt.auth.AuthenticationService';
const TOKENS = 'flipt.auth.AuthenticationMethodTokenService';
const META = 'flipt.meta.MetadataService';
const OFREP = 'flipt.ofrep.OFREPService';

describe('authorizeNamespace', () => {
  it.each<[string, string | undefined, string, readonly string[] | undefined, boolean]>([
    // unscoped tokens pass everything
    ['unscoped, auth service', undefined, AUTHN, undefined, true],
    ['unscoped, other namespace', undefined, FLIPT, ['prod'], true],
    ['blank scope is unscoped', '  ', AUTHN, undefined, true],
    ['empty scope is unscoped', '', META, undefined, true],
    // scoped: matching namespace on each scoped service
    ['management, same namespace', 'prod', FLIPT, ['prod'], true],
    ['evaluation, same namespace', 'prod', EVAL, ['prod'], true],
    ['snapshot, same namespace', 'prod', DATA, ['prod'], true],
    ['empty namespace means default', 'default', EVAL, [''], true],
    ['empty namespace is not prod', 'prod', EVAL, [''], false],
    ['other namespace', 'prod', FLIPT, ['staging'], false],
    ['case matters', 'prod', FLIPT, ['Prod'], false],
    // batches
    ['batch, all items match', 'prod', EVAL, ['prod', 'prod', 'prod'], true],
    ['batch, one item differs', 'prod', EVAL, ['prod', 'staging'], false],
    ['batch, default via empty keys', 'default', EVAL, ['', 'default', ''], true],
    ['batch, empty key among prod', 'prod', EVAL, ['prod', ''], false],
    ['empty batch stands for default', 'default', EVAL, [], true],
    ['empty batch with prod scope', 'prod', EVAL, [], false],
    // no namespace notion
    ['ListNamespaces (no namespace)', 'prod', FLIPT, undefined, false],
    // services without namespace scoping
    ['auth service', 'prod', AUTHN, ['prod'], false],
    ['token creation', 'prod', TOKENS, ['prod'], false],
    ['meta', 'prod', META, ['prod'], false],
    ['ofrep', 'prod', OFREP, ['prod'], false],
  ])('%s', (_name, scope, service, keys, allowed) => {
    const call = () => authorizeNamespace(auth(scope), service, keys);
    if (allowed) expect(call).not.toThrow();
    else {
      expect(call).toThrow(UnauthenticatedError);
      expect(call).toThrow('request was not authenticated');
    }
  });

  it('reads the scope from metadata', () => {
    expect(tokenNamespace(auth('prod'))).toBe('prod');
    expect(tokenNamespace(auth())).toBeUndefined();
    expect(tokenNamespace(auth(' '))).toBeUndefined();
  });
});

describe('requestNamespaceKeys', () => {
  it.each<[string, string, Record<string, unknown>, string[] | undefined]>([
    [FLIPT, 'GetFlag', { namespaceKey: 'prod', key: 'f' }, ['prod']],
    [FLIPT, 'ListFlags', {}, ['']],
    [FLIPT, 'GetNamespace', { key: 'prod' }, ['prod']],
    [FLIPT, 'DeleteNamespace', { key: 'prod' }, ['prod']],
    [FLIPT, 'ListNamespaces', {}, undefined],
    [FLIPT, 'BatchEvaluate', { namespaceKey: 'prod', requests: [{ namespaceKey: 'x' }] }, ['prod']],
    [EVAL, 'Boolean', { namespaceKey: 'prod' }, ['prod']],
    [
      EVAL,
      'Batch',
      { requests: [{ namespaceKey: 'prod' }, {}, { namespaceKey: 'x' }] },
      ['prod', '', 'x'],
    ],
    [EVAL, 'Batch', {}, []],
    [DATA, 'EvaluationSnapshotNamespace', { key: 'prod' }, ['prod']],
    [AUTHN, 'GetAuthenticationSelf', {}, undefined],
  ])('%s/%s %j', (service, method, request, expected) => {
    expect(requestNamespaceKeys(service, method, request)).toEqual(expected);
  });

  it('splits gRPC paths and knows the exempt services', () => {
    expect(serviceOfGrpcPath('/flipt.Flipt/GetFlag')).toEqual({
      service: 'flipt.Flipt',
      method: 'GetFlag',
    });
    expect(isAuthenticationExempt('grpc.health.v1.Health')).toBe(true);
    expect(isAuthenticationExempt('flipt.auth.PublicAuthenticationService')).toBe(true);
    expect(isAuthenticationExempt('flipt.auth.AuthenticationService')).toBe(false);
    expect(isAuthenticationExempt('flipt.Flipt')).toBe(false);
  });
});
