import { InvalidArgumentError, NotFoundError, ValidationError } from '../../errors';
import { goQuote } from '../../validation';

/*
 * Flipt's storage errors, word for word, decided here once for every storage adapter.
 * Flipt formats names with Go's %q; some messages quote two names at once, as Flipt does.
 */

const path = (namespaceKey: string, key: string): string => goQuote(`${namespaceKey}/${key}`);

export const namespaceNotFound = (key: string): NotFoundError =>
  new NotFoundError(`namespace ${goQuote(key)} not found`);
export const namespaceNotUnique = (key: string): InvalidArgumentError =>
  new InvalidArgumentError(`namespace ${goQuote(key)} is not unique`);
export const namespaceProtected = (key: string): InvalidArgumentError =>
  new InvalidArgumentError(`namespace ${goQuote(key)} is protected`);
export const namespaceHasFlags = (key: string): InvalidArgumentError =>
  new InvalidArgumentError(
    `namespace ${goQuote(key)} cannot be deleted; flags must be deleted first`,
  );

export const flagNotFound = (namespaceKey: string, key: string): NotFoundError =>
  new NotFoundError(`flag ${path(namespaceKey, key)} not found`);
export const flagNotUnique = (namespaceKey: string, key: string): InvalidArgumentError =>
  new InvalidArgumentError(`flag ${path(namespaceKey, key)} is not unique`);
export const defaultVariantNotFound = (
  namespaceKey: string,
  flagKey: string,
  variantId: string,
): InvalidArgumentError =>
  new InvalidArgumentError(
    `variant ${goQuote(variantId)} not found for flag ${path(namespaceKey, flagKey)}`,
  );

/** Flipt names the requested key, not the id, when a variant to update is missing. */
export const variantNotFound = (key: string): NotFoundError =>
  new NotFoundError(`variant ${goQuote(key)} not found`);
export const variantNotUnique = (
  namespaceKey: string,
  flagKey: string,
  key: string,
): InvalidArgumentError =>
  new InvalidArgumentError(
    `variant ${goQuote(key)} is not unique for flag ${path(namespaceKey, flagKey)}`,
  );

export const segmentNotFound = (namespaceKey: string, key: string): NotFoundError =>
  new NotFoundError(`segment ${path(namespaceKey, key)} not found`);
export const segmentNotUnique = (namespaceKey: string, key: string): InvalidArgumentError =>
  new InvalidArgumentError(`segment ${path(namespaceKey, key)} is not unique`);
export const segmentInUse = (namespaceKey: string, key: string): InvalidArgumentError =>
  new InvalidArgumentError(`segment ${path(namespaceKey, key)} is in use`);

export const constraintNotFound = (id: string): NotFoundError =>
  new NotFoundError(`constraint ${goQuote(id)} not found`);

export const ruleNotFound = (namespaceKey: string, id: string): NotFoundError =>
  new NotFoundError(`rule ${path(namespaceKey, id)} not found`);
/** `segmentKey` is the deprecated single field as sent ("" when `segmentKeys` was used). */
export const ruleRefsNotFound = (
  namespaceKey: string,
  flagKey: string,
  segmentKey: string,
): NotFoundError =>
  new NotFoundError(
    `flag ${path(namespaceKey, flagKey)} or segment ${path(namespaceKey, segmentKey)} not found`,
  );

export const distributionNotFound = (id: string): NotFoundError =>
  new NotFoundError(`distribution ${goQuote(id)} not found`);
export const distributionRefsNotFound = (ref: {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly ruleId: string;
  readonly variantId: string;
}): NotFoundError =>
  new NotFoundError(
    `variant ${goQuote(ref.variantId)}, rule ${goQuote(ref.ruleId)}, flag ${goQuote(ref.flagKey)} in namespace ${goQuote(ref.namespaceKey)} not found`,
  );

export const rolloutNotFound = (namespaceKey: string, id: string): NotFoundError =>
  new NotFoundError(`rollout ${path(namespaceKey, id)} not found`);
export const rolloutRankTaken = (rank: number): InvalidArgumentError =>
  new InvalidArgumentError(`rank number: ${rank} already exists`);
export const rolloutRuleMissing = (): InvalidArgumentError =>
  new InvalidArgumentError('rollout rule is missing');
export const rolloutRuleInvalid = (): ValidationError =>
  new ValidationError('rule', 'invalid rollout rule type');
/** Flipt's quoting, verbatim: one pair of quotes around both names, the segment unqualified. */
export const rolloutSegmentRefsNotFound = (
  namespaceKey: string,
  flagKey: string,
  segmentKey: string,
): NotFoundError =>
  new NotFoundError(`flag "${namespaceKey}/${flagKey} or segment ${segmentKey}" not found`);
export const rolloutTypeChange = (have: string, attempted: string): InvalidArgumentError =>
  new InvalidArgumentError(
    `cannot change type of rollout: have ${goQuote(have)} attempted ${goQuote(attempted)}`,
  );
