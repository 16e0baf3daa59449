import { UnauthenticatedError } from '../errors';
import type { Authentication } from '../model';
import { TOKEN_NAMESPACE_KEY } from './metadata-keys';

/**
 * Fully-qualified gRPC service names of the services that declare namespace-scoping support in
 * Flipt (reference §6.5). Every other service refuses a namespace-scoped token.
 */
export const NAMESPACE_SCOPED_SERVICES: ReadonlySet<string> = new Set([
  'flipt.Flipt',
  'flipt.evaluation.EvaluationService',
  'flipt.evaluation.DataService',
]);

const DEFAULT_NAMESPACE = 'default';

/** The namespace a token is bound to, or undefined when it is unscoped (absent or blank). */
export function tokenNamespace(auth: Authentication): string | undefined {
  const ns = auth.metadata[TOKEN_NAMESPACE_KEY];
  if (ns === undefined || ns.trim() === '') return undefined;
  return ns;
}

/**
 * Throws UnauthenticatedError unless `auth` may call `service` for a request touching
 * `namespaceKeys`. Call it only when authentication is required, after `authenticate`.
 *
 * - `service` is the fully-qualified gRPC service name (`flipt.Flipt`, `flipt.auth.AuthenticationService`, ...).
 * - `namespaceKeys` are the request's namespaces: the `namespaceKey` field (the `key` for namespace
 *   RPCs), every item's for a batch (the top-level one for the legacy batch). `""` means `default`.
 *   `undefined` means the request has no namespace notion (e.g. ListNamespaces), which a scoped
 *   token may not use. An empty list (an empty batch) stands for the default namespace, as Flipt
 *   reads an empty batch's namespace as "".
 *
 * An unscoped token passes everything.
 */
export function authorizeNamespace(
  auth: Authentication,
  service: string,
  namespaceKeys: readonly string[] | undefined,
): void {
  const scope = tokenNamespace(auth);
  if (scope === undefined) return;
  if (!NAMESPACE_SCOPED_SERVICES.has(service) || namespaceKeys === undefined) {
    throw new UnauthenticatedError();
  }
  const keys = namespaceKeys.length === 0 ? [''] : namespaceKeys;
  for (const key of keys) {
    if ((key === '' ? DEFAULT_NAMESPACE : key) !== scope) throw new UnauthenticatedError();
  }
}
