import { InternalError, InvalidArgumentError, NotFoundError } from '../errors';

export const flagNotFound = (namespaceKey: string, flagKey: string): NotFoundError =>
  new NotFoundError(
    `flag "${namespaceKey === '' ? 'default' : namespaceKey}/${flagKey}" not found`,
  );

export const flagTypeInvalid = (type: string): InvalidArgumentError =>
  new InvalidArgumentError(`flag type ${type} invalid`);

export const unknownConstraintType = (): InvalidArgumentError =>
  new InvalidArgumentError('unknown constraint type');

export const ruleRankOutOfOrder = (rank: number): InvalidArgumentError =>
  new InvalidArgumentError(`rule rank: ${rank} detected out of order`);

/** Flipt returns a plain error here, which its transport reports as Internal. */
export const rolloutRankOutOfOrder = (rank: number): InternalError =>
  new InternalError(`rollout rank: ${rank} detected out of order`);
