import { ValidationError } from '../errors';
import type {
  CreateFlagRequest,
  CreateVariantRequest,
  DeleteFlagRequest,
  DeleteVariantRequest,
  GetFlagRequest,
  ListFlagsRequest,
  UpdateFlagRequest,
  UpdateVariantRequest,
} from '../model';
import { requireField, requireKeyFormat, requireLimitWithPosition } from './field-checks';
import { compactJson, utf8Length } from './json-text';
import { requireKeyLength, requireNameLength, requireTextSize } from './limits';

/** Flipt's limit: 1000 KiB of UTF-8. */
export const MAX_ATTACHMENT_BYTES = 1000 * 1024;

export function validateListFlags(req: ListFlagsRequest): void {
  requireLimitWithPosition(req);
}

export function validateGetFlag(req: GetFlagRequest): void {
  requireField(req.key, 'key');
}

export function validateCreateFlag(req: CreateFlagRequest): void {
  requireField(req.key, 'key');
  requireKeyFormat(req.key);
  requireField(req.name, 'name');
  requireKeyLength(req.key);
  requireNameLength(req.name);
  requireTextSize(req.description);
}

export function validateUpdateFlag(req: UpdateFlagRequest): void {
  requireField(req.key, 'key');
  requireField(req.name, 'name');
  requireNameLength(req.name);
  requireTextSize(req.description);
}

export function validateDeleteFlag(req: DeleteFlagRequest): void {
  requireField(req.key, 'key');
}

/**
 * Checks an attachment and returns it as Flipt stores it: compacted with every token kept
 * as written, "" for none. Validity is checked before size, as in Flipt.
 */
export function validateAttachment(attachment: string): string {
  if (attachment === '') return '';
  const compact = compactJson(attachment);
  if (compact === undefined) throw new ValidationError('attachment', 'must be a json string');
  if (utf8Length(attachment) > MAX_ATTACHMENT_BYTES) {
    throw new ValidationError('attachment', 'must be less than 1000 KB');
  }
  return compact;
}

/** Returns the request with its attachment compacted. */
export function validateCreateVariant(req: CreateVariantRequest): CreateVariantRequest {
  requireField(req.flagKey, 'flagKey');
  requireField(req.key, 'key');
  const attachment = validateAttachment(req.attachment);
  requireVariantSizes(req);
  return { ...req, attachment };
}

function requireVariantSizes(req: CreateVariantRequest): void {
  requireKeyLength(req.key);
  requireNameLength(req.name);
  requireTextSize(req.description);
}

/** Returns the request with its attachment compacted. */
export function validateUpdateVariant(req: UpdateVariantRequest): UpdateVariantRequest {
  requireField(req.id, 'id');
  requireField(req.flagKey, 'flagKey');
  requireField(req.key, 'key');
  const attachment = validateAttachment(req.attachment);
  requireVariantSizes(req);
  return { ...req, attachment };
}

export function validateDeleteVariant(req: DeleteVariantRequest): void {
  requireField(req.id, 'id');
  requireField(req.flagKey, 'flagKey');
}
