import type {
  CreateNamespaceRequest,
  DeleteNamespaceRequest,
  UpdateNamespaceRequest,
} from '../model';
import { requireField, requireKeyFormat } from './field-checks';

export function validateCreateNamespace(req: CreateNamespaceRequest): void {
  requireField(req.key, 'key');
  requireKeyFormat(req.key);
  requireField(req.name, 'name');
}

export function validateUpdateNamespace(req: UpdateNamespaceRequest): void {
  requireField(req.key, 'key');
  requireField(req.name, 'name');
}

export function validateDeleteNamespace(req: DeleteNamespaceRequest): void {
  requireField(req.key, 'key');
}
