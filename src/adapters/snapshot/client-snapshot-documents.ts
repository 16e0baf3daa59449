import { LRUCache } from 'lru-cache';
import { ResourceExhaustedError } from '../../domain/errors';
import { buildClientSnapshot, clientSnapshotProfile } from '../../domain/evaluation';
import type { NamespaceData } from '../../domain/model';
import { gzipPieces, type GzipPieces } from './gzip-pieces';
import { jsonPieces } from './json-pieces';

/** evaluation.snapshot_max_bytes by default: far above any real namespace's document. */
export const DEFAULT_SNAPSHOT_MAX_BYTES = 32 * 1024 * 1024;

/** A client snapshot document, built once per namespace version and client profile. */
export interface ClientSnapshotDocument {
  /** The JSON text, as pieces sharing repeated segments (json-pieces.ts). */
  readonly pieces: readonly Buffer[];
  readonly byteLength: number;
  /** The same text gzipped, built on first use and then kept. */
  gzip(): Promise<GzipPieces>;
  /** The document as an object graph (segments shared), for encoders other than JSON. */
  readonly object: object;
}

export interface ClientSnapshotDocumentsOptions {
  /** evaluation.snapshot_max_bytes: a larger document is refused. */
  readonly maxBytes: number;
  /** Most bytes of distinct pieces held across namespaces (default 256 MiB). */
  readonly cacheBytes?: number;
}

interface Entry {
  readonly version: number;
  readonly document?: ClientSnapshotDocument;
  /** Set instead of `document` when the document is over the limit. */
  readonly tooLarge?: ResourceExhaustedError;
  readonly heldBytes: number;
}

/**
 * The documents the client snapshot route (HTTP and gRPC) serves. A document is built once
 * per namespace version and client profile and shared by every request for it; the cost in
 * memory and time follows the namespace's distinct content, not the size of the text,
 * where each segment appears once per rule naming it. A document over the limit answers a
 * clear RESOURCE_EXHAUSTED error (HTTP 429), decided without building its whole text.
 */
export class ClientSnapshotDocuments {
  private readonly cache: LRUCache<string, Entry>;

  constructor(private readonly options: ClientSnapshotDocumentsOptions) {
    const maxSize = Math.max(1, options.cacheBytes ?? 256 * 1024 * 1024);
    this.cache = new LRUCache<string, Entry>({
      max: 1000,
      maxSize,
      maxEntrySize: maxSize,
      sizeCalculation: (entry) => Math.max(1, entry.heldBytes),
    });
  }

  /**
   * The document of `namespaceKey` (as requested) at `version`, for a client sending
   * `clientVersion` (x-flipt-accept-server-version). `data` undefined: no such namespace.
   * Throws ResourceExhaustedError when the document is over the limit.
   */
  get(
    namespaceKey: string,
    version: number | undefined,
    data: NamespaceData | undefined,
    clientVersion: string | undefined,
  ): ClientSnapshotDocument {
    if (version === undefined || data === undefined) {
      return this.build(namespaceKey, data, clientVersion).document as ClientSnapshotDocument;
    }
    const key = `${namespaceKey}\u0000${clientSnapshotProfile(clientVersion)}`;
    let entry = this.cache.get(key);
    if (entry?.version !== version) {
      entry = { version, ...this.build(namespaceKey, data, clientVersion) };
      this.cache.set(key, entry);
    }
    if (entry.tooLarge !== undefined) throw entry.tooLarge;
    return entry.document as ClientSnapshotDocument;
  }

  private build(
    namespaceKey: string,
    data: NamespaceData | undefined,
    clientVersion: string | undefined,
  ): Omit<Entry, 'version'> {
    const object = buildClientSnapshot(namespaceKey, data, clientVersion);
    const { pieces, byteLength, heldBytes } = jsonPieces(object);
    if (byteLength > this.options.maxBytes) {
      return {
        heldBytes: 0,
        tooLarge: new ResourceExhaustedError(
          `the snapshot of namespace "${namespaceKey}" would be ${byteLength} bytes, ` +
            `more than the limit of ${this.options.maxBytes} (evaluation.snapshot_max_bytes)`,
        ),
      };
    }
    let gzipped: Promise<GzipPieces> | undefined;
    const document: ClientSnapshotDocument = {
      pieces,
      byteLength,
      object,
      gzip: () => {
        gzipped ??= gzipPieces(pieces).catch((err: unknown) => {
          gzipped = undefined;
          throw err;
        });
        return gzipped;
      },
    };
    return { document, heldBytes };
  }
}
