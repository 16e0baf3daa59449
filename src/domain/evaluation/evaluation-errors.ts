import { InvalidArgumentError, NotFoundError } from '../errors';

export const flagNotFound = (namespaceKey: string, flagKey: string): NotFoundError =>
  new NotFoundError(
    `flag "${namespaceKey === '' ? 'default' : namespaceKey}/${flagKey}" not found`,
  );

export const flagTypeInvalid = (type: string): InvalidArgumentError =>
  new InvalidArgumentError(`flag type ${type} invalid`);

/**
 * Stored configuration that the evaluator cannot follow (written before the rules that now
 * refuse it, or by hand). Answered as an invalid argument with Flipt's message; a batch
 * answers an error item for that flag alone.
 */
export class UnevaluableFlagError extends InvalidArgumentError {
  constructor(message: string) {
    super(message);
    this.name = 'UnevaluableFlagError';
  }
}

export const unknownConstraintType = (): UnevaluableFlagError =>
  new UnevaluableFlagError('unknown constraint type');

export const ruleRankOutOfOrder = (rank: number): UnevaluableFlagError =>
  new UnevaluableFlagError(`rule rank: ${rank} detected out of order`);

/**
 * Flipt answers this one as Internal with its message; it is a flaw in stored data, not in
 * the server, so it is reported as its rule counterpart is.
 */
export const rolloutRankOutOfOrder = (rank: number): UnevaluableFlagError =>
  new UnevaluableFlagError(`rollout rank: ${rank} detected out of order`);
