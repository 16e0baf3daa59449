import type { DocumentEncoding } from '../../adapters/yaml/document-text';
import type { ExportRequest, ImportSummary } from '../../domain/services/transfer';
import { ImportRejectedError, type TransferProblem } from '../../domain/transfer';

interface ErrorBody {
  readonly message?: string;
  readonly details?: ReadonlyArray<{
    readonly fieldViolations?: ReadonlyArray<{ field: string; description: string }>;
  }>;
}

/** The problems of a refused import, back from the BadRequest detail the server sends. */
function problemsOf(body: ErrorBody): TransferProblem[] | undefined {
  const violations = body.details?.flatMap((d) => d.fieldViolations ?? []) ?? [];
  if (violations.length === 0) return undefined;
  return violations.map((v) => {
    const m = /^document (\d+)(?:: (.*))?$/.exec(v.field);
    return { document: Number(m?.[1] ?? 1), path: m?.[2] ?? '', reason: v.description };
  });
}

/** Import and export against a running server's /api/v1 transfer routes. */
export class RemoteTransfer {
  private readonly base: string;

  constructor(
    address: string,
    private readonly token: string | undefined,
  ) {
    this.base = (/^https?:\/\//.test(address) ? address : `http://${address}`).replace(/\/+$/, '');
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.token === undefined || this.token === ''
      ? extra
      : { ...extra, authorization: `Bearer ${this.token}` };
  }

  private async fail(res: Response): Promise<never> {
    const text = await res.text();
    let body: ErrorBody = {};
    try {
      body = JSON.parse(text) as ErrorBody;
    } catch {
      // not Flipt's error shape
    }
    const problems = res.status === 400 ? problemsOf(body) : undefined;
    if (problems !== undefined) throw new ImportRejectedError(problems);
    throw new Error(`${this.base} answered ${res.status}: ${body.message ?? text}`);
  }

  async exportText(req: ExportRequest, encoding: DocumentEncoding): Promise<string> {
    const query = new URLSearchParams({ format: encoding });
    if (req.namespaces === 'all') query.set('allNamespaces', 'true');
    else query.set('namespaces', req.namespaces.join(','));
    if (req.sortByKey) query.set('sortByKey', 'true');
    const res = await fetch(`${this.base}/api/v1/export?${query}`, { headers: this.headers() });
    if (!res.ok) return this.fail(res);
    return res.text();
  }

  async importText(
    text: string,
    encoding: DocumentEncoding,
    options: { drop: boolean; skipExisting: boolean; dryRun: boolean; namespace?: string },
  ): Promise<ImportSummary> {
    const query = new URLSearchParams();
    if (options.drop) query.set('drop', 'true');
    if (options.skipExisting) query.set('skipExisting', 'true');
    if (options.dryRun) query.set('dryRun', 'true');
    const path =
      options.namespace === undefined
        ? '/api/v1/import'
        : `/api/v1/namespaces/${encodeURIComponent(options.namespace)}/import`;
    const res = await fetch(`${this.base}${path}?${query}`, {
      method: 'POST',
      headers: this.headers({
        'content-type': encoding === 'json' ? 'application/json' : 'application/yaml',
      }),
      body: text,
    });
    if (!res.ok) return this.fail(res);
    return (await res.json()) as ImportSummary;
  }
}
