/*
 * Transport-independent facts for the authentication step: which services never need a token,
 * and which namespaces a decoded request touches (the input of authorizeNamespace).
 */

/**
 * Services Flipt never authenticates (reference §6.1): health, the public method list, and the
 * server reflection service (streaming, outside Flipt's unary interceptors).
 */
export const AUTH_EXEMPT_SERVICES: ReadonlySet<string> = new Set([
  'grpc.health.v1.Health',
  'flipt.auth.PublicAuthenticationService',
  'grpc.reflection.v1.ServerReflection',
  'grpc.reflection.v1alpha.ServerReflection',
]);

/** `flipt.Flipt` from a gRPC path such as `/flipt.Flipt/GetFlag`. */
export function serviceOfGrpcPath(path: string): { service: string; method: string } {
  const [, service = '', method = ''] = /^\/?([^/]*)\/([^/]*)$/.exec(path) ?? [];
  return { service, method };
}

export function isAuthenticationExempt(service: string): boolean {
  return AUTH_EXEMPT_SERVICES.has(service);
}

/** `authentication.exclude.*`: groups of services that need no token even when one is required. */
export interface AuthenticationExclusions {
  readonly management?: boolean;
  readonly evaluation?: boolean;
  readonly ofrep?: boolean;
}

/**
 * The services a configuration exempts, as Flipt groups them (reference §6.1): management is
 * the whole flipt.Flipt service (legacy evaluation included); evaluation is the evaluation
 * service and the client snapshot's DataService.
 */
export function excludedServices(exclude: AuthenticationExclusions = {}): ReadonlySet<string> {
  const services = new Set<string>();
  if (exclude.management === true) services.add('flipt.Flipt');
  if (exclude.evaluation === true) {
    services.add('flipt.evaluation.EvaluationService');
    services.add('flipt.evaluation.DataService');
  }
  if (exclude.ofrep === true) services.add('flipt.ofrep.OFREPService');
  return services;
}

const NAMESPACE_KEYED = new Set([
  'GetNamespace',
  'CreateNamespace',
  'UpdateNamespace',
  'DeleteNamespace',
]);

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The namespaces a request touches, as `authorizeNamespace` wants them (Flipt's request
 * `Namespace()` methods): `namespaceKey`, the `key` of namespace RPCs and of the snapshot, every
 * item of a v2 batch, the top-level key of the legacy batch. Undefined for requests without a
 * namespace (ListNamespaces) and for services that have no namespace notion.
 */
export function requestNamespaceKeys(
  service: string,
  method: string,
  request: { readonly [field: string]: unknown },
): string[] | undefined {
  switch (service) {
    case 'flipt.Flipt':
      if (method === 'ListNamespaces') return undefined;
      return [text(NAMESPACE_KEYED.has(method) ? request['key'] : request['namespaceKey'])];
    case 'flipt.evaluation.EvaluationService':
      if (method === 'Batch') {
        const items = Array.isArray(request['requests']) ? (request['requests'] as unknown[]) : [];
        return items.map((item) =>
          typeof item === 'object' && item !== null
            ? text((item as Record<string, unknown>)['namespaceKey'])
            : '',
        );
      }
      return [text(request['namespaceKey'])];
    case 'flipt.evaluation.DataService':
      return [text(request['key'])];
    default:
      return undefined;
  }
}
