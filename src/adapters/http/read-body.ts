import type { IncomingMessage } from 'node:http';
import { GrpcCode } from '../status';
import { HttpError } from './http-error';

export const bodyTooLarge = (limitBytes: number): HttpError =>
  new HttpError(
    GrpcCode.RESOURCE_EXHAUSTED,
    `request body is larger than the limit of ${limitBytes} bytes`,
    413,
  );

/**
 * Reads the whole body, refusing (413) as soon as it is known to exceed `limitBytes`: from
 * Content-Length before reading anything, otherwise while streaming. Nothing is parsed
 * before the size is known to be acceptable.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    discard(req);
    return Promise.reject(bodyTooLarge(limitBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err?: Error): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) {
        chunks.length = 0;
        discard(req);
        finish(bodyTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish();
    const onError = (err: Error): void => finish(err);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * Lets the rest of an oversized body flow into the void so the client, still uploading,
 * can read the 413 instead of a reset connection.
 */
export function discard(req: IncomingMessage): void {
  req.on('error', () => undefined);
  req.resume();
}
