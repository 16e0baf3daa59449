import { readFileSync } from 'node:fs';
import {
  encodingOfPath,
  parseDocumentStream,
  sniffEncoding,
} from '../../adapters/yaml/document-text';
import { decodeDocuments, formatProblem, planImport } from '../../domain/transfer';

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** The text of a file, or of standard input for "-". */
export function readInput(path: string): string {
  return readFileSync(path === '-' ? 0 : path, 'utf8');
}

/**
 * `vexil validate FILE...`: each file read as an import would read it, into an empty
 * configuration (a rule must find its segments in the same file). Returns the exit code.
 */
export function validateFiles(files: readonly string[], io: Output): number {
  let failed = 0;
  for (const file of files) {
    let text: string;
    try {
      text = readInput(file);
    } catch (err) {
      io.err(`${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      failed++;
      continue;
    }
    const encoding = file === '-' ? sniffEncoding(text) : encodingOfPath(file);
    const parsed = parseDocumentStream(text, encoding);
    const decoded = decodeDocuments(parsed.values, parsed.problems);
    const planned =
      decoded.problems.length > 0
        ? { ok: false as const, problems: decoded.problems }
        : planImport(decoded.documents, new Map(), { drop: false, skipExisting: false });
    if (!planned.ok) {
      for (const p of planned.problems) io.err(`${file}: ${formatProblem(p)}`);
      failed++;
      continue;
    }
    const namespaces = planned.plan.namespaces;
    const flags = namespaces.reduce((n, ns) => n + ns.flags.length, 0);
    const segments = namespaces.reduce((n, ns) => n + ns.segments.length, 0);
    io.out(
      `${file}: ok (${decoded.documents.length} document${decoded.documents.length === 1 ? '' : 's'}, ` +
        `${flags} flag${flags === 1 ? '' : 's'}, ${segments} segment${segments === 1 ? '' : 's'})`,
    );
  }
  return failed === 0 ? 0 : 1;
}
