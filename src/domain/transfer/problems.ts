import { InvalidArgumentError } from '../errors';

/**
 * One thing wrong with an import: which document of the stream (1-based), where in it, and
 * why. `path` starts with the namespace key and walks down by collection and item:
 * `default/flags/checkout/rules/2/distributions/1` (list positions are 1-based, as ranks are).
 */
export interface TransferProblem {
  readonly document: number;
  readonly path: string;
  readonly reason: string;
}

export const formatProblem = (p: TransferProblem): string =>
  `document ${p.document}: ${p.path === '' ? '' : `${p.path}: `}${p.reason}`;

/** Problems beyond this many are counted, not listed: one broken pattern can repeat 10 000 times. */
export const MAX_LISTED_PROBLEMS = 100;

/** An import refused as a whole: nothing was written. */
export class ImportRejectedError extends InvalidArgumentError {
  constructor(readonly problems: readonly TransferProblem[]) {
    super(ImportRejectedError.describe(problems));
    this.name = 'ImportRejectedError';
  }

  static describe(problems: readonly TransferProblem[]): string {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map(formatProblem);
    const more = problems.length - listed.length;
    const head =
      problems.length === 1
        ? 'import refused, nothing written'
        : `import refused, nothing written (${problems.length} problems)`;
    return [head, ...listed, ...(more > 0 ? [`... and ${more} more`] : [])].join('\n');
  }
}
