import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../ports';
import { requestContext, type RequestContext } from './request-context';

export interface AccessLogEntry {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly durationMs: number;
  readonly requestId: string;
}

export function accessLogEntry(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
): AccessLogEntry {
  const durationMs = Number(process.hrtime.bigint() - ctx.startedAt) / 1e6;
  return {
    method: req.method ?? '',
    route: ctx.route,
    status: res.statusCode,
    durationMs: Math.round(durationMs * 1000) / 1000,
    requestId: ctx.requestId,
  };
}

/** Logs one line per request once the response is done (or the client went away). */
export function logAccessOnFinish(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  logger: Logger,
): void {
  let logged = false;
  const log = (): void => {
    if (logged) return;
    logged = true;
    const entry = accessLogEntry(req, res, ctx);
    logger.info('http request', { ...entry, aborted: !res.writableFinished || undefined });
  };
  res.once('finish', log);
  res.once('close', log);
}

/**
 * logAccessOnFinish for a whole handler: the listener is made once, not per request, and
 * only 'close' is listened to, since a response emits it once, after 'finish' when it
 * completed (then `writableFinished` is true) or alone when the client went away. The
 * request's context is the one createRequestContext registered for `res.req`.
 */
export function accessLogger(logger: Logger): (res: ServerResponse) => void {
  function onClose(this: ServerResponse): void {
    const req = this.req;
    const ctx = requestContext(req);
    if (ctx === undefined) return;
    const durationMs = Number(process.hrtime.bigint() - ctx.startedAt) / 1e6;
    logger.info('http request', {
      method: req.method ?? '',
      route: ctx.route,
      status: this.statusCode,
      durationMs: Math.round(durationMs * 1000) / 1000,
      requestId: ctx.requestId,
      aborted: !this.writableFinished || undefined,
    });
  }
  return (res) => void res.on('close', onClose);
}
