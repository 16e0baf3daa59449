/*
 * Every route that needs a client token, with what a request to it sends, for auth-http.test.ts:
 * each is called with a good token, a token in the session cookie, a token scoped to prod,
 * and every kind of refused credential.
 */

/** Makes the keys of created resources unique across calls. */
let seq = 0;

export interface RouteCase {
  readonly name: string;
  readonly method: string;
  /** Built per call so that writes never collide. */
  readonly path: () => string;
  readonly body?: () => unknown;
  /**
   * The namespace the request touches: 'prod' ones are allowed for the prod-scoped token,
   * others (another namespace, none, or an auth route) refused.
   */
  readonly ns: 'prod' | 'other';
}

export const ROUTES: RouteCase[] = [
  // Management
  {
    name: 'ListFlags prod',
    method: 'GET',
    path: () => '/api/v1/namespaces/prod/flags',
    ns: 'prod',
  },
  {
    name: 'GetFlag prod',
    method: 'GET',
    path: () => '/api/v1/namespaces/prod/flags/on',
    ns: 'prod',
  },
  { name: 'GetNamespace prod', method: 'GET', path: () => '/api/v1/namespaces/prod', ns: 'prod' },
  {
    name: 'CreateFlag prod',
    method: 'POST',
    path: () => '/api/v1/namespaces/prod/flags',
    body: () => ({ key: `f${++seq}`, name: 'F', type: 'BOOLEAN_FLAG_TYPE' }),
    ns: 'prod',
  },
  {
    name: 'ListFlags staging',
    method: 'GET',
    path: () => '/api/v1/namespaces/staging/flags',
    ns: 'other',
  },
  { name: 'ListFlags default', method: 'GET', path: () => '/api/v1/flags', ns: 'other' },
  { name: 'ListNamespaces', method: 'GET', path: () => '/api/v1/namespaces', ns: 'other' },
  {
    name: 'ListFlags prod by query',
    method: 'GET',
    path: () => '/api/v1/flags?namespaceKey=prod',
    ns: 'prod',
  },
  {
    name: 'GetFlag staging by query',
    method: 'GET',
    path: () => '/api/v1/flags/on?namespace_key=staging',
    ns: 'other',
  },
  {
    name: 'CreateFlag staging',
    method: 'POST',
    path: () => '/api/v1/namespaces/staging/flags',
    body: () => ({ key: `f${++seq}`, name: 'F', type: 'BOOLEAN_FLAG_TYPE' }),
    ns: 'other',
  },
  // v2 evaluation
  {
    name: 'boolean prod',
    method: 'POST',
    path: () => '/evaluate/v1/boolean',
    body: () => ({ namespaceKey: 'prod', flagKey: 'on', entityId: 'e1' }),
    ns: 'prod',
  },
  {
    name: 'variant prod (namespaced route)',
    method: 'POST',
    path: () => '/evaluate/v1/namespaces/prod/variant',
    body: () => ({ flagKey: 'color', entityId: 'e1' }),
    ns: 'prod',
  },
  {
    name: 'boolean default',
    method: 'POST',
    path: () => '/evaluate/v1/boolean',
    body: () => ({ flagKey: 'on', entityId: 'e1' }),
    ns: 'other',
  },
  {
    name: 'batch all prod',
    method: 'POST',
    path: () => '/evaluate/v1/batch',
    body: () => ({
      requests: [
        { namespaceKey: 'prod', flagKey: 'on', entityId: 'e1' },
        { namespaceKey: 'prod', flagKey: 'color', entityId: 'e2' },
      ],
    }),
    ns: 'prod',
  },
  {
    name: 'batch with one staging item',
    method: 'POST',
    path: () => '/evaluate/v1/batch',
    body: () => ({
      requests: [
        { namespaceKey: 'prod', flagKey: 'on', entityId: 'e1' },
        { namespaceKey: 'staging', flagKey: 'on', entityId: 'e2' },
      ],
    }),
    ns: 'other',
  },
  {
    name: 'batch with one default item',
    method: 'POST',
    path: () => '/evaluate/v1/batch',
    body: () => ({
      requests: [
        { namespaceKey: 'prod', flagKey: 'on', entityId: 'e1' },
        { flagKey: 'on', entityId: 'e2' },
      ],
    }),
    ns: 'other',
  },
  // Legacy evaluation
  {
    name: 'legacy evaluate prod',
    method: 'POST',
    path: () => '/api/v1/namespaces/prod/evaluate',
    body: () => ({ flagKey: 'color', entityId: 'e1' }),
    ns: 'prod',
  },
  {
    name: 'legacy evaluate default',
    method: 'POST',
    path: () => '/api/v1/evaluate',
    body: () => ({ flagKey: 'color', entityId: 'e1' }),
    ns: 'other',
  },
  {
    name: 'legacy batch prod',
    method: 'POST',
    path: () => '/api/v1/namespaces/prod/batch-evaluate',
    body: () => ({ requests: [{ flagKey: 'color', entityId: 'e1' }] }),
    ns: 'prod',
  },
  {
    name: 'legacy batch staging',
    method: 'POST',
    path: () => '/api/v1/namespaces/staging/batch-evaluate',
    body: () => ({ requests: [{ flagKey: 'color', entityId: 'e1' }] }),
    ns: 'other',
  },
  // Client snapshot
  {
    name: 'snapshot prod',
    method: 'GET',
    path: () => '/internal/v1/evaluation/snapshot/namespace/prod',
    ns: 'prod',
  },
  {
    name: 'snapshot staging',
    method: 'GET',
    path: () => '/internal/v1/evaluation/snapshot/namespace/staging',
    ns: 'other',
  },
  // /auth/v1 (never open to a namespace-scoped token)
  { name: 'self', method: 'GET', path: () => '/auth/v1/self', ns: 'other' },
  { name: 'list tokens', method: 'GET', path: () => '/auth/v1/tokens', ns: 'other' },
  {
    name: 'create token',
    method: 'POST',
    path: () => '/auth/v1/method/token',
    body: () => ({ name: `t${++seq}` }),
    ns: 'other',
  },
];
