import { InvalidArgumentError, ValidationError } from '../errors';
import type { ListRequest } from '../model';

/** Keys of flags, segments and namespaces, checked on create only (Flipt never rechecks). */
export const KEY_PATTERN = /^[-_,A-Za-z0-9]+$/;

export function requireField(value: string, field: string): void {
  if (value === '') throw new ValidationError(field, 'must not be empty');
}

export function requireKeyFormat(key: string): void {
  if (!KEY_PATTERN.test(key)) throw new ValidationError('key', 'contains invalid characters');
}

/** Flags, segments and rules lists refuse a page position without a page size. */
export function requireLimitWithPosition(req: ListRequest): void {
  if (req.limit === 0 && (req.offset > 0 || req.pageToken !== '')) {
    throw new InvalidArgumentError('limit must be set when offset or pageToken is set');
  }
}
