import { NotFoundError } from '../../errors';
import type { ListRequest } from '../../model';
import type {
  ChangeNotifier,
  Clock,
  EvaluationSource,
  IdGenerator,
  Logger,
  Repositories,
  UnitOfWork,
} from '../../../ports';
import {
  decodeDocuments,
  encodeDocument,
  ImportRejectedError,
  materializeNamespace,
  planImport,
  type ExistingConfiguration,
  type ExistingNamespace,
  type ImportPlan,
  type PortableDocument,
  type TransferProblem,
} from '../../transfer';
import { goQuote } from '../../validation';
import { summarize, type ImportSummary } from './import-summary';
import { writeNamespace } from './write-namespace';

export interface TransferServiceDeps {
  readonly unitOfWork: UnitOfWork;
  readonly evaluationSource: EvaluationSource;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Told about every namespace an import changed, after it commits. */
  readonly notifier: ChangeNotifier;
  readonly logger?: Logger;
}

export interface ImportRequest {
  /** The parsed stream: one value per document, undefined for an empty one. */
  readonly documents: readonly unknown[];
  /** What the parser could not read, reported with the rest. */
  readonly parseProblems?: readonly TransferProblem[];
  readonly drop: boolean;
  readonly skipExisting: boolean;
  /** Check and say what would change, writing nothing. */
  readonly dryRun: boolean;
  /**
   * Only this namespace: documents that name none go to it, documents naming another are
   * refused (the namespace's import route, a namespace-scoped caller).
   */
  readonly namespace?: string;
}

export interface ExportRequest {
  /** Namespace keys, in the order wanted, or every namespace. */
  readonly namespaces: readonly string[] | 'all';
  /** Flags, segments and (with 'all') namespaces by key instead of creation order. */
  readonly sortByKey: boolean;
}

const ALL: ListRequest = { limit: 0, offset: 0, pageToken: '', reference: '' };

/**
 * Import and export of the portable document format. An import is one unit of work over
 * every namespace it touches: it is checked as a whole against what is stored, inside the
 * transaction that writes it, and either all of it is written or nothing (the error names
 * every problem). An export reads each namespace as evaluation does, in one consistent read.
 */
export class TransferService {
  constructor(private readonly deps: TransferServiceDeps) {}

  async importDocuments(req: ImportRequest): Promise<ImportSummary> {
    const decoded = decodeDocuments(req.documents, req.parseProblems ?? []);
    if (decoded.problems.length > 0) throw new ImportRejectedError(decoded.problems);
    const documents = confine(decoded.documents, req.namespace);
    const options = { drop: req.drop, skipExisting: req.skipExisting };
    const named = [...new Set(documents.map((d) => d.namespace.key))];
    // What is looked at: with drop, every namespace (only its own for a namespace's import).
    const scope = (r: Repositories): Promise<readonly string[]> =>
      !req.drop
        ? Promise.resolve(named)
        : req.namespace !== undefined
          ? Promise.resolve([req.namespace])
          : namespaceKeys(r);

    if (req.dryRun) {
      return this.deps.unitOfWork.read(async (r) => {
        const existing = await loadExisting(r, await scope(r));
        return summarize(checked(planImport(documents, existing, options)), true);
      });
    }
    // With drop, every namespace is written; the list read here is read again inside.
    const keys = [...new Set([...named, ...(await this.deps.unitOfWork.read(scope))])];
    const plan = await this.deps.unitOfWork.writeNamespaces(keys, async (r) => {
      const existing = await loadExisting(r, await scope(r));
      const planned = checked(planImport(documents, existing, options));
      for (const key of planned.dropped) await dropNamespace(r, key, named.includes(key));
      for (const ns of planned.namespaces) {
        await writeNamespace(r, materializeNamespace(ns, this.deps.ids, this.deps.clock));
      }
      return planned;
    });
    const changed = new Set([...plan.dropped, ...plan.namespaces.map((n) => n.key)]);
    await Promise.all(
      [...changed].map(async (key) => {
        try {
          await this.deps.notifier.namespaceChanged(key);
        } catch (err) {
          this.deps.logger?.warn('change notice failed after the import committed', {
            namespace: key,
            err,
          });
        }
      }),
    );
    return summarize(plan, false);
  }

  async exportDocuments(req: ExportRequest): Promise<Array<Record<string, unknown>>> {
    let keys: readonly string[];
    if (req.namespaces === 'all') {
      const all = await this.deps.unitOfWork.read(namespaceKeys);
      keys = req.sortByKey ? [...all].sort() : all;
    } else keys = req.namespaces;
    const documents: Array<Record<string, unknown>> = [];
    for (const key of keys) {
      const data = await this.deps.evaluationSource.loadNamespace(key);
      if (data === undefined) throw new NotFoundError(`namespace ${goQuote(key)} not found`);
      documents.push(
        encodeDocument(data, { sortByKey: req.sortByKey, withVersion: documents.length === 0 }),
      );
    }
    return documents;
  }
}

function checked(result: ReturnType<typeof planImport>): ImportPlan {
  if (!result.ok) throw new ImportRejectedError(result.problems);
  return result.plan;
}

/** Documents of a namespace-bound import: unnamed ones get the namespace, others are refused. */
function confine(
  documents: readonly PortableDocument[],
  namespace: string | undefined,
): readonly PortableDocument[] {
  if (namespace === undefined) return documents;
  const problems: TransferProblem[] = [];
  const out = documents.map((doc) => {
    if (doc.namespace.form === 'absent') {
      return { ...doc, namespace: { ...doc.namespace, key: namespace } };
    }
    if (doc.namespace.key !== namespace) {
      problems.push({
        document: doc.index,
        path: 'namespace',
        reason: `names namespace ${goQuote(doc.namespace.key)}, but this import is for ${goQuote(namespace)}`,
      });
    }
    return doc;
  });
  if (problems.length > 0) throw new ImportRejectedError(problems);
  return out;
}

async function namespaceKeys(r: Repositories): Promise<string[]> {
  return (await r.namespaces.listNamespaces(ALL)).items.map((n) => n.key);
}

/** What the namespaces hold now. */
async function loadExisting(
  r: Repositories,
  keys: readonly string[],
): Promise<ExistingConfiguration> {
  const existing = new Map<string, ExistingNamespace>();
  for (const key of keys) {
    if ((await r.namespaces.getNamespace(key)) === undefined) continue;
    const scope = { ...ALL, namespaceKey: key };
    existing.set(key, {
      flagKeys: new Set((await r.flags.listFlags(scope)).items.map((f) => f.key)),
      segmentKeys: new Set((await r.segments.listSegments(scope)).items.map((s) => s.key)),
    });
  }
  return existing;
}

/**
 * Removes a namespace with its content. The default namespace, and one the import fills
 * again, is kept, emptied: its name, description and protection stay as they were.
 */
async function dropNamespace(r: Repositories, key: string, refilled: boolean): Promise<void> {
  const namespace = await r.namespaces.getNamespace(key);
  if (namespace === undefined) return;
  await r.namespaces.deleteNamespace(key);
  if (key === 'default' || refilled) await r.namespaces.createNamespace(namespace);
}
