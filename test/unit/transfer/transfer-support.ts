import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  formatDocumentStream,
  parseDocumentStream,
  type DocumentEncoding,
} from '../../../src/adapters/yaml/document-text';
import type { Namespace } from '../../../src/domain/model';
import {
  decodeDocuments,
  encodeDocument,
  materializeNamespace,
  planImport,
  type ExistingConfiguration,
  type ImportOptions,
  type ImportPlan,
  type TransferProblem,
} from '../../../src/domain/transfer';
import type { Clock, IdGenerator } from '../../../src/ports';

export const fixture = (name: string): string =>
  readFileSync(join(__dirname, '../../fixtures/documents', name), 'utf8');

/** Increasing timestamps, one microsecond apart. */
export function steppingClock(): Clock {
  let micros = Date.UTC(2024, 4, 1) * 1000;
  return {
    now: () => {
      micros++;
      const ms = Math.floor(micros / 1000);
      return `${new Date(ms).toISOString().slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
    },
  };
}

export function countingIds(): IdGenerator {
  let n = 0;
  return { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
}

const NO_OPTIONS: ImportOptions = { drop: false, skipExisting: false };

export type Outcome =
  { ok: true; plan: ImportPlan } | { ok: false; problems: readonly TransferProblem[] };

/** Text -> parse -> decode -> plan, as an import does. */
export function plan(
  text: string,
  encoding: DocumentEncoding = 'yaml',
  existing: ExistingConfiguration = new Map(),
  options: ImportOptions = NO_OPTIONS,
): Outcome {
  const parsed = parseDocumentStream(text, encoding);
  const decoded = decodeDocuments(parsed.values, parsed.problems);
  if (decoded.problems.length > 0) return { ok: false, problems: decoded.problems };
  return planImport(decoded.documents, existing, options);
}

export function problemsOf(text: string, encoding: DocumentEncoding = 'yaml'): string[] {
  const outcome = plan(text, encoding);
  if (outcome.ok) throw new Error('expected problems, the document was accepted');
  return outcome.problems.map((p) => `${p.document} ${p.path}: ${p.reason}`);
}

/** Imports into an empty store and exports again, as text. */
export function roundTrip(text: string, encoding: DocumentEncoding = 'yaml'): string {
  const outcome = plan(text, encoding);
  if (!outcome.ok) throw new Error(outcome.problems.map((p) => p.reason).join('\n'));
  const clock = steppingClock();
  const ids = countingIds();
  const docs = outcome.plan.namespaces.map((p, i) => {
    const rows = materializeNamespace(p, ids, clock);
    const namespace: Namespace = rows.namespace ?? {
      key: p.key,
      name: 'Default',
      description: 'Default namespace',
      protected: true,
      createdAt: clock.now(),
      updatedAt: clock.now(),
    };
    return encodeDocument({ ...rows, namespace }, { sortByKey: false, withVersion: i === 0 });
  });
  return formatDocumentStream(docs, encoding);
}
