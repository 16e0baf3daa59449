import type {
  CreateNamespaceRequest,
  DeleteNamespaceRequest,
  ListNamespacesRequest,
  Namespace,
  Page,
  UpdateNamespaceRequest,
} from '../../model';
import { unique, type ConfigContext } from './context';
import {
  namespaceHasFlags,
  namespaceNotFound,
  namespaceNotUnique,
  namespaceProtected,
} from './messages';

export async function getNamespace(c: ConfigContext, key: string): Promise<Namespace> {
  const namespace = await c.unitOfWork.read((r) => r.namespaces.getNamespace(key));
  if (namespace === undefined) throw namespaceNotFound(key);
  return namespace;
}

export function listNamespaces(
  c: ConfigContext,
  req: ListNamespacesRequest,
): Promise<Page<Namespace>> {
  return c.unitOfWork.read((r) => r.namespaces.listNamespaces(req));
}

export function createNamespace(c: ConfigContext, req: CreateNamespaceRequest): Promise<Namespace> {
  return c.unitOfWork.write(req.key, async (r, scope) => {
    if (scope.namespaceExists) throw namespaceNotUnique(req.key);
    const now = c.clock.now();
    const namespace: Namespace = {
      key: req.key,
      name: req.name,
      description: req.description,
      protected: false,
      createdAt: now,
      updatedAt: now,
    };
    // Two creates of one new key have no row to serialize on: the unique key decides.
    await unique(r.namespaces.createNamespace(namespace), () => namespaceNotUnique(req.key));
    return namespace;
  });
}

export function updateNamespace(c: ConfigContext, req: UpdateNamespaceRequest): Promise<Namespace> {
  return c.unitOfWork.write(req.key, async (r, scope) => {
    const before = scope.namespaceExists ? await r.namespaces.getNamespace(req.key) : undefined;
    if (before === undefined) throw namespaceNotFound(req.key);
    const update = {
      key: req.key,
      name: req.name,
      description: req.description,
      updatedAt: c.clock.now(),
    };
    await r.namespaces.updateNamespace(update);
    return { ...before, ...update };
  });
}

export function deleteNamespace(c: ConfigContext, req: DeleteNamespaceRequest): Promise<void> {
  return c.unitOfWork.write(req.key, async (r, scope) => {
    const namespace = scope.namespaceExists ? await r.namespaces.getNamespace(req.key) : undefined;
    if (namespace === undefined) throw namespaceNotFound(req.key);
    if (!req.force) {
      if (namespace.protected) throw namespaceProtected(req.key);
      if ((await r.flags.countFlags(req.key)) > 0) throw namespaceHasFlags(req.key);
    }
    await r.namespaces.deleteNamespace(req.key);
  });
}
