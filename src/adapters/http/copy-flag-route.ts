import { tokenNamespace } from '../../domain/auth';
import { UnauthenticatedError } from '../../domain/errors';
import type { Authentication } from '../../domain/model';
import type { ManagementApi } from '../../domain/services/api';
import { invalidArgument, sendJson } from './http-error';
import { presentFlag } from './presenters';
import type { HttpRoute } from './route-table';

const field = (body: unknown, name: string): string => {
  if (body === undefined || body === null) return '';
  if (typeof body !== 'object' || Array.isArray(body))
    throw invalidArgument('invalid request body');
  const value = (body as Record<string, unknown>)[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalidArgument(`invalid field ${name}: must be a string`);
  return value;
};

/**
 * POST /api/v1/namespaces/{namespaceKey}/flags/{key}/copy (Vexil's own; Flipt has no such
 * route): body `{"targetNamespaceKey", "targetKey"?}`, answers the copied flag as GetFlag
 * would. The guard has checked a namespace-scoped caller against the source namespace; the
 * target, named in the body, is checked here.
 */
export function copyFlagRoute(management: ManagementApi): HttpRoute {
  return {
    method: 'POST',
    pattern: '/api/v1/namespaces/:namespaceKey/flags/:key/copy',
    handle: async ({ res, params, ctx, readJson }) => {
      const body = await readJson();
      const targetNamespaceKey = field(body, 'targetNamespaceKey');
      const principal = ctx.principal as Authentication | undefined;
      const scope = principal === undefined ? undefined : tokenNamespace(principal);
      if (scope !== undefined && targetNamespaceKey !== scope) throw new UnauthenticatedError();
      const flag = await management.copyFlag({
        namespaceKey: params['namespaceKey'] ?? '',
        key: params['key'] ?? '',
        targetNamespaceKey,
        targetKey: field(body, 'targetKey'),
      });
      sendJson(res, 200, presentFlag(flag));
    },
  };
}
