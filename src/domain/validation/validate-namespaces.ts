import type {
  CreateNamespaceRequest,
  DeleteNamespaceRequest,
  UpdateNamespaceRequest,
} from '../model';
import { requireField, requireKeyFormat } from './field-checks';
import { requireKeyLength, requireNameLength, requireTextSize } from './limits';

export function validateCreateNamespace(req: CreateNamespaceRequest): void {
  requireField(req.key, 'key');
  requireKeyFormat(req.key);
  requireField(req.name, 'name');
  requireKeyLength(req.key);
  requireNameLength(req.name);
  requireTextSize(req.description);
}

export function validateUpdateNamespace(req: UpdateNamespaceRequest): void {
  requireField(req.key, 'key');
  requireField(req.name, 'name');
  requireNameLength(req.name);
  requireTextSize(req.description);
}

export function validateDeleteNamespace(req: DeleteNamespaceRequest): void {
  requireField(req.key, 'key');
}
