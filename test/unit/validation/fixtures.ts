import { InvalidArgumentError } from '../../../src/domain/errors';

/** Runs a check and returns the message it fails with, or 'ok'. */
export function outcome(check: () => unknown): string {
  try {
    check();
    return 'ok';
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidArgumentError);
    return (err as Error).message;
  }
}

/** A valid CreateVariant request, to spread and vary. */
export const variant = {
  namespaceKey: '',
  flagKey: 'f',
  key: 'v',
  name: '',
  description: '',
  attachment: '',
};
