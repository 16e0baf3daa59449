import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { EvaluationService } from '../../../domain/services/evaluation';
import { ClientSnapshotDocuments, DEFAULT_SNAPSHOT_MAX_BYTES } from '../../snapshot';
import { drained } from '../response-drain';
import type { HttpRoute } from '../route-table';

/** The snapshot ETag: hex SHA-1 of the namespace version, unquoted, as Flipt sends it. */
export const snapshotEtag = (version: number): string =>
  createHash('sha1').update(String(version)).digest('hex');

/** Bodies smaller than this go out uncompressed: gzip would not pay for itself. */
const GZIP_MIN_BYTES = 1024;

/** Whether an Accept-Encoding header admits gzip (by name or `*`, with a non-zero q). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  let star = false;
  for (const part of text.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (name.trim() === 'gzip') return accepted;
    if (name.trim() === '*') star = accepted;
  }
  return star;
}

/** Writes the pieces in order, waiting whenever the socket's buffer is full. */
async function writePieces(res: ServerResponse, pieces: readonly Buffer[]): Promise<void> {
  for (const piece of pieces) {
    if (res.destroyed) return;
    if (!res.write(piece)) await drained(res);
  }
  res.end();
}

/**
 * GET /internal/v1/evaluation/snapshot/namespace/{key}: the client-side SDK snapshot, with
 * ETag / If-None-Match, gzipped when the client accepts it. The document comes from
 * `documents`, built once per namespace version and shared by all requests.
 */
export function snapshotRoute(
  evaluation: Pick<EvaluationService, 'clientSnapshot'>,
  documents: ClientSnapshotDocuments = new ClientSnapshotDocuments({
    maxBytes: DEFAULT_SNAPSHOT_MAX_BYTES,
  }),
): HttpRoute {
  return {
    method: 'GET',
    pattern: '/internal/v1/evaluation/snapshot/namespace/:key',
    handle: async (x) => {
      const key = x.params['key'] ?? '';
      const { version, data } = await evaluation.clientSnapshot(key);
      if (version !== undefined && data !== undefined) {
        const etag = snapshotEtag(version);
        x.res.setHeader('ETag', etag);
        if (x.req.headers['if-none-match'] === etag) {
          x.res.statusCode = 304;
          x.res.end();
          return;
        }
      }
      const header = x.req.headers['x-flipt-accept-server-version'];
      const document = documents.get(
        key,
        version,
        data,
        Array.isArray(header) ? header[0] : header,
      );
      const gzip =
        document.byteLength >= GZIP_MIN_BYTES && acceptsGzip(x.req.headers['accept-encoding']);
      const body = gzip ? await document.gzip() : document;
      x.res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': body.byteLength,
        Vary: 'Accept-Encoding',
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      });
      await writePieces(x.res, body.pieces);
    },
  };
}
