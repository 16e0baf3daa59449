import type { IncomingMessage } from 'node:http';
import { UnavailableError } from '../../domain/errors';
import type { ExportRequest, ImportRequest, ImportSummary } from '../../domain/services/transfer';
import { ImportRejectedError, MAX_LISTED_PROBLEMS } from '../../domain/transfer';
import { boundedMessage, GrpcCode } from '../status';
import {
  formatDocumentStream,
  parseDocumentStream,
  sniffEncoding,
  type DocumentEncoding,
} from '../yaml/document-text';
import { invalidArgument, sendJson } from './http-error';
import { readBody } from './read-body';
import type { HttpExchange, HttpRoute } from './route-table';

/** What the routes call: the transfer use cases. */
export interface TransferApi {
  importDocuments(req: ImportRequest): Promise<ImportSummary>;
  exportDocuments(req: ExportRequest): Promise<Array<Record<string, unknown>>>;
}

export interface TransferRoutesDeps {
  readonly transfer: TransferApi;
  /** Largest import body accepted (413 beyond, before parsing). */
  readonly maxImportBytes: number;
  /** server.mode read-only: imports are refused like every other write. */
  readonly readOnly: boolean;
}

/** A query flag: absent, "", "false" or "0" is false; "true" or "1" is true. */
function flag(query: URLSearchParams, ...names: string[]): boolean {
  for (const name of names) {
    const value = query.get(name);
    if (value === null) continue;
    if (value === '' || value === 'true' || value === '1') return value !== '';
    if (value === 'false' || value === '0') return false;
    throw invalidArgument(`${name}: must be true or false, got ${JSON.stringify(value)}`);
  }
  return false;
}

/** ?format=json|yaml, else the Accept header: JSON only when asked for. */
function exportEncoding(x: HttpExchange): DocumentEncoding {
  const format = x.query.get('format');
  if (format === 'json' || format === 'yaml') return format;
  if (format !== null) throw invalidArgument('format: must be yaml or json');
  const accept = x.req.headers.accept ?? '';
  return /application\/json/.test(accept) && !/yaml/.test(accept) ? 'json' : 'yaml';
}

function importEncoding(req: IncomingMessage, text: string): DocumentEncoding {
  const type = req.headers['content-type'] ?? '';
  if (/json/i.test(type)) return 'json';
  if (/yaml/i.test(type)) return 'yaml';
  return sniffEncoding(text);
}

async function sendExport(x: HttpExchange, transfer: TransferApi, req: ExportRequest) {
  const encoding = exportEncoding(x);
  const text = formatDocumentStream(await transfer.exportDocuments(req), encoding);
  const name = req.namespaces === 'all' ? 'export' : req.namespaces.join('_');
  x.res.writeHead(200, [
    'Content-Type',
    encoding === 'json' ? 'application/json' : 'application/yaml; charset=utf-8',
    'Content-Disposition',
    `attachment; filename="${name.replace(/[^-_,A-Za-z0-9]/g, '_')}.${encoding === 'json' ? 'json' : 'yaml'}"`,
    'Content-Length',
    Buffer.byteLength(text),
  ]);
  x.res.end(text);
}

/**
 * A refused import: 400 with Flipt's error shape, the first problems in the message and every
 * problem listed (up to the usual cap) as a google.rpc.BadRequest detail for programs.
 */
function sendRejected(x: HttpExchange, err: ImportRejectedError): void {
  sendJson(x.res, 400, {
    code: GrpcCode.INVALID_ARGUMENT,
    message: boundedMessage(err.message),
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: err.problems.slice(0, MAX_LISTED_PROBLEMS).map((p) => ({
          field: `document ${p.document}${p.path === '' ? '' : `: ${p.path}`}`,
          description: p.reason,
        })),
      },
    ],
  });
}

function importHandler(deps: TransferRoutesDeps) {
  return async (x: HttpExchange): Promise<void> => {
    const dryRun = flag(x.query, 'dryRun', 'dry_run');
    const drop = flag(x.query, 'drop');
    const skipExisting = flag(x.query, 'skipExisting', 'skip_existing');
    if (deps.readOnly && !dryRun) {
      throw new UnavailableError(
        'this instance is read-only (server.mode: read-only): send writes to a read-write instance',
      );
    }
    const text = (await readBody(x.req, deps.maxImportBytes)).toString('utf8');
    const parsed = parseDocumentStream(text, importEncoding(x.req, text));
    const namespace = x.params['namespaceKey'];
    try {
      const summary = await deps.transfer.importDocuments({
        documents: parsed.values,
        parseProblems: parsed.problems,
        drop,
        skipExisting,
        dryRun,
        ...(namespace === undefined ? {} : { namespace }),
      });
      sendJson(x.res, 200, summary);
    } catch (err) {
      if (err instanceof ImportRejectedError) sendRejected(x, err);
      else throw err;
    }
  };
}

/**
 * Export and import of the portable document format over HTTP, with the management API's
 * authentication (a namespace-scoped token may use the per-namespace routes of its namespace):
 *
 *   GET  /api/v1/export                               ?namespaces=a,b | ?allNamespaces=true
 *   GET  /api/v1/namespaces/{namespaceKey}/export
 *   POST /api/v1/import                               ?drop ?skipExisting ?dryRun
 *   POST /api/v1/namespaces/{namespaceKey}/import     (documents naming no namespace go to it)
 *
 * Exports are YAML unless ?format=json or Accept: application/json; `sortByKey=true` orders
 * flags and segments by key. Imports read YAML or JSON (Content-Type, else the first byte).
 */
export function createTransferRoutes(deps: TransferRoutesDeps): HttpRoute[] {
  const { transfer } = deps;
  return [
    {
      method: 'GET',
      pattern: '/api/v1/export',
      handle: (x) => {
        const all = flag(x.query, 'allNamespaces', 'all_namespaces');
        const listed = x.query
          .getAll('namespaces')
          .flatMap((v) => v.split(','))
          .map((v) => v.trim())
          .filter((v) => v !== '');
        if (all && listed.length > 0) {
          throw invalidArgument('namespaces and allNamespaces: give one or the other');
        }
        return sendExport(x, transfer, {
          namespaces: all ? 'all' : listed.length > 0 ? listed : ['default'],
          sortByKey: flag(x.query, 'sortByKey', 'sort_by_key'),
        });
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/namespaces/:namespaceKey/export',
      handle: (x) =>
        sendExport(x, transfer, {
          namespaces: [x.params['namespaceKey'] ?? 'default'],
          sortByKey: flag(x.query, 'sortByKey', 'sort_by_key'),
        }),
    },
    { method: 'POST', pattern: '/api/v1/import', handle: importHandler(deps) },
    {
      method: 'POST',
      pattern: '/api/v1/namespaces/:namespaceKey/import',
      handle: importHandler(deps),
    },
  ];
}
