import { Worker } from 'node:worker_threads';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { encodeOtlpBody } from './otlp-json';

/**
 * OTLP/HTTP trace export with the JSON encoding: spans are written straight to the
 * ExportTraceServiceRequest JSON a collector's `/v1/traces` accepts, and posted over a
 * kept-alive connection. Retryable answers (429, 502, 503, 504, connection errors) are tried
 * again with backoff, honouring Retry-After, within the export timeout.
 *
 * The HTTP exchange runs on a worker thread. An HTTP client in the server's own thread would
 * run node:http's and net's code (shared with the server side) on client objects too, and V8
 * then keeps slower, polymorphic versions of that code for every request the server handles.
 */

export interface OtlpJsonExporterOptions {
  /** Full URL of the traces endpoint (`.../v1/traces`). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly userAgent: string;
  /** Deadline for one export, retries included (default 10 s). */
  readonly timeoutMillis?: number;
  /** First retry delay; doubles per attempt (default 1 s). */
  readonly retryDelayMillis?: number;
  /**
   * Told when an export is given up (its spans are dropped): at the first failure, then at
   * most once a minute while exports keep failing, with how many failed meanwhile.
   */
  readonly onFailure?: (error: Error, failedExports: number) => void;
}

/** Largest response body read from the collector; the rest is discarded. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const MAX_ATTEMPTS = 5;

/** What the worker is given once. */
interface WorkerSetup {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly maxResponseBytes: number;
}

/** One POST asked of the worker, and its answer. */
interface PostRequest {
  readonly id: number;
  readonly body: Uint8Array | string;
  readonly timeoutMillis: number;
}
type PostAnswer =
  | {
      readonly id: number;
      readonly status: number;
      readonly retryAfter?: string;
      readonly text: string;
    }
  | { readonly id: number; readonly error: string };

/**
 * The worker: posts each body it is sent, answers with the status (or the error). Plain
 * JavaScript, run with `eval`, so it works from the compiled build and from the sources alike.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, headers, maxResponseBytes } = workerData;
const target = new URL(url);
const http = require(target.protocol === 'https:' ? 'node:https' : 'node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
parentPort.on('message', ({ id, body, timeoutMillis }) => {
  let answered = false;
  const answer = (message) => {
    if (answered) return;
    answered = true;
    parentPort.postMessage({ id, ...message });
  };
  const req = http.request(target, {
    method: 'POST',
    agent,
    headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    timeout: timeoutMillis,
  });
  req.on('response', (res) => {
    const chunks = [];
    let size = 0;
    res.on('data', (chunk) => {
      if (size < maxResponseBytes) chunks.push(chunk);
      size += chunk.length;
    });
    res.on('error', (err) => answer({ error: err.message }));
    res.on('end', () =>
      answer({
        status: res.statusCode,
        retryAfter: res.headers['retry-after'],
        text: Buffer.concat(chunks).toString('utf8').slice(0, 200),
      }),
    );
  });
  req.on('timeout', () => req.destroy(new Error('no answer within ' + timeoutMillis + ' ms')));
  req.on('error', (err) => answer({ error: err.message }));
  req.end(body);
});
`;

export class OtlpJsonExporter implements SpanExporter {
  private readonly url: URL;
  private readonly setup: WorkerSetup;
  private readonly timeoutMillis: number;
  private readonly retryDelayMillis: number;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private readonly onFailure: (error: Error, failedExports: number) => void;
  private failuresUnreported = 0;
  private lastReportAt = -Infinity;
  private worker: Worker | undefined;
  private readonly posts = new Map<number, (outcome: PostOutcome) => void>();
  private nextPostId = 1;

  constructor(options: OtlpJsonExporterOptions) {
    this.url = new URL(options.url);
    if (this.url.protocol !== 'https:' && this.url.protocol !== 'http:') {
      throw new Error(`tracing endpoint must be http:// or https://, got ${this.url.protocol}`);
    }
    this.setup = {
      url: this.url.href,
      headers: {
        'user-agent': options.userAgent,
        ...lowerCaseKeys(options.headers),
        'content-type': 'application/json',
      },
      maxResponseBytes: MAX_RESPONSE_BYTES,
    };
    this.timeoutMillis = options.timeoutMillis ?? 10_000;
    this.retryDelayMillis = options.retryDelayMillis ?? 1000;
    this.onFailure = options.onFailure ?? (() => undefined);
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (spans.length === 0 && !this.stopped) {
      resultCallback({ code: ExportResultCode.SUCCESS });
      return;
    }
    this.send(encodeOtlpBody(spans)).then(
      () => resultCallback({ code: ExportResultCode.SUCCESS }),
      (error: Error) => resultCallback({ code: ExportResultCode.FAILED, error }),
    );
  }

  /**
   * Posts one encoded ExportTraceServiceRequest (see EncodedSpans). Resolves once the
   * collector accepted it; rejects when it is given up, after onFailure was told.
   */
  send(body: Uint8Array | string): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('exporter is shut down'));
    const done = this.deliver(body).then(
      () => {
        this.lastReportAt = -Infinity;
      },
      (error: Error) => {
        this.reportFailure(error);
        throw error;
      },
    );
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return done;
  }

  /**
   * Starts the worker now rather than at the first export. Starting one takes tens of
   * milliseconds of CPU (a new V8 isolate and Node's bootstrap); at the first export that
   * falls in the middle of serving, as a pause for every request in flight.
   */
  start(): void {
    if (!this.stopped) this.worker ??= this.startWorker();
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.forceFlush();
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private reportFailure(error: Error): void {
    this.failuresUnreported++;
    const now = Date.now();
    if (now - this.lastReportAt < 60_000) return;
    this.lastReportAt = now;
    const count = this.failuresUnreported;
    this.failuresUnreported = 0;
    this.onFailure(error, count);
  }

  private async deliver(body: Uint8Array | string): Promise<void> {
    const deadline = Date.now() + this.timeoutMillis;
    let delay = this.retryDelayMillis;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.post(body, deadline - Date.now());
      if (outcome.ok) return;
      const wait = outcome.retryAfterMillis ?? jitter(delay);
      const retry =
        outcome.retryable &&
        attempt < MAX_ATTEMPTS &&
        !this.stopped &&
        wait < deadline - Date.now();
      if (!retry) throw outcome.error;
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
      delay *= 2;
    }
  }

  /** One POST, made by the worker (started on first use, again after it dies). */
  private post(body: Uint8Array | string, timeoutMillis: number): Promise<PostOutcome> {
    const worker = (this.worker ??= this.startWorker());
    return new Promise((resolve) => {
      const id = this.nextPostId++;
      this.posts.set(id, resolve);
      // The worker keeps the process alive only while a POST is waiting for its answer.
      if (this.posts.size === 1) worker.ref();
      const request: PostRequest = { id, body, timeoutMillis: Math.max(1, timeoutMillis) };
      worker.postMessage(request);
    });
  }

  private settle(id: number, outcome: PostOutcome): void {
    const resolve = this.posts.get(id);
    if (resolve === undefined) return;
    this.posts.delete(id);
    if (this.posts.size === 0) this.worker?.unref();
    resolve(outcome);
  }

  private startWorker(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: this.setup,
      // Not the server's flags (--cpu-prof, --require, inspector): the worker only posts.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 64 },
    });
    worker.unref();
    worker.on('message', (answer: PostAnswer) => this.settle(answer.id, this.outcomeOf(answer)));
    const lost = (reason: string): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const id of [...this.posts.keys()]) {
        this.settle(id, { ok: false, retryable: true, error: this.failure(reason) });
      }
    };
    worker.on('error', (err) => lost(`export worker failed: ${err.message}`));
    worker.on('exit', (code) => lost(`export worker exited with code ${code}`));
    return worker;
  }

  private outcomeOf(answer: PostAnswer): PostOutcome {
    if ('error' in answer) return { ok: false, retryable: true, error: this.failure(answer.error) };
    const { status, text } = answer;
    if (status >= 200 && status < 300) return { ok: true };
    return {
      ok: false,
      retryable: RETRYABLE_STATUS.has(status),
      error: new Error(
        `OTLP collector answered ${status}${text.trim() === '' ? '' : `: ${text.trim()}`}`,
      ),
      retryAfterMillis: retryAfterMillis(answer.retryAfter),
    };
  }

  private failure(reason: string): Error {
    return new Error(`OTLP export to ${this.url.origin} failed: ${reason}`);
  }
}

type PostOutcome =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly retryable: boolean;
      readonly error: Error;
      readonly retryAfterMillis?: number;
    };

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMillis(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000));
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Between half and all of `millis`, so exporters that failed together do not retry together;
 * in whole milliseconds, as every timer delay should be (see retryWithBackoff).
 */
function jitter(millis: number): number {
  return Math.round(millis * (0.5 + Math.random() / 2));
}

function lowerCaseKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) out[key.toLowerCase()] = value;
  return out;
}
