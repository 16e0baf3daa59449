import { ForeignKeyViolationError, UniqueViolationError } from '../../errors';
import type { Clock, IdGenerator, Repositories, UnitOfWork } from '../../../ports';

/** What the configuration use cases run on. */
export interface ConfigContext {
  readonly unitOfWork: UnitOfWork;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** Runs a repository write, naming a unique-key violation in the resource's own words. */
export async function unique<T>(write: Promise<T>, error: () => Error): Promise<T> {
  try {
    return await write;
  } catch (err) {
    throw err instanceof UniqueViolationError ? error() : err;
  }
}

/**
 * Runs a repository write, naming a foreign-key violation in the resource's own words. The
 * checks before a write find what is missing; this covers a row that vanished in between.
 */
export async function referenced<T>(write: Promise<T>, error: () => Error): Promise<T> {
  try {
    return await write;
  } catch (err) {
    throw err instanceof ForeignKeyViolationError ? error() : err;
  }
}

/** The first of `keys`, in order, that is not a segment of the namespace. */
export async function firstMissingSegment(
  repos: Repositories,
  namespaceKey: string,
  keys: readonly string[],
): Promise<string | undefined> {
  const found = new Set(await repos.segments.findSegmentKeys(namespaceKey, [...new Set(keys)]));
  return keys.find((k) => !found.has(k));
}
