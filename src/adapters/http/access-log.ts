import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../ports';
import { finishHttpServerSpan, traceIdOf } from '../telemetry/tracing';
import { requestContext, UNMATCHED_ROUTE, type RequestContext } from './request-context';

/** Where per-request figures go (the metrics registry). */
export interface HttpRecorder {
  recordHttp(method: string, route: string | undefined, status: number, seconds: number): void;
}

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
  const durationMs = performance.now() - ctx.startedAt;
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
 * What happens once per request when its response is done (or the client went away): the
 * metrics, the end of the server span, and the access line. The listener is made once per
 * handler, not per request, and only 'close' is listened to, since a response emits it once,
 * after 'finish' when it completed (then `writableFinished` is true) or alone when the client
 * went away. Returns undefined when there is nothing to do. The request's context is the one
 * createRequestContext registered for `res.req`.
 */
export function requestFinisher(options: {
  /** undefined: no access line (the logger's level would drop it). */
  readonly logger?: Logger;
  readonly recorder?: HttpRecorder;
  readonly tracing: boolean;
}): ((res: ServerResponse) => void) | undefined {
  const { logger, recorder, tracing } = options;
  if (logger === undefined && recorder === undefined && !tracing) return undefined;
  function onClose(this: ServerResponse): void {
    const req = this.req;
    const ctx = requestContext(req);
    if (ctx === undefined) return;
    const method = req.method ?? '';
    const status = this.statusCode;
    const durationMs = performance.now() - ctx.startedAt;
    recorder?.recordHttp(
      method,
      ctx.route === UNMATCHED_ROUTE ? undefined : ctx.route,
      status,
      durationMs / 1000,
    );
    let traceId = ctx.callerTraceId;
    if (ctx.span !== undefined) {
      traceId = traceIdOf(ctx.span);
      finishHttpServerSpan(ctx.span, method, ctx.route, status);
    }
    logger?.info('http request', {
      method,
      route: ctx.route,
      status,
      durationMs: Math.round(durationMs * 1000) / 1000,
      requestId: ctx.requestId,
      traceId,
      aborted: !this.writableFinished || undefined,
    });
  }
  return (res) => void res.on('close', onClose);
}
