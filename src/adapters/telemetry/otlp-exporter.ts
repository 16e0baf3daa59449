import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AttributeValue, Attributes, HrTime, SpanContext } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * OTLP/HTTP trace export with the JSON encoding: spans are written straight to the
 * ExportTraceServiceRequest JSON a collector's `/v1/traces` accepts, and posted over a
 * kept-alive connection. Retryable answers (429, 502, 503, 504, connection errors) are tried
 * again with backoff, honouring Retry-After, within the export timeout.
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

export class OtlpJsonExporter implements SpanExporter {
  private readonly url: URL;
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private readonly headers: Record<string, string>;
  private readonly timeoutMillis: number;
  private readonly retryDelayMillis: number;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private readonly onFailure: (error: Error, failedExports: number) => void;
  private failuresUnreported = 0;
  private lastReportAt = -Infinity;

  constructor(options: OtlpJsonExporterOptions) {
    this.url = new URL(options.url);
    const https = this.url.protocol === 'https:';
    if (!https && this.url.protocol !== 'http:') {
      throw new Error(`tracing endpoint must be http:// or https://, got ${this.url.protocol}`);
    }
    this.agent = https
      ? new HttpsAgent({ keepAlive: true, maxSockets: 2 })
      : new HttpAgent({ keepAlive: true, maxSockets: 2 });
    this.send = https ? httpsRequest : httpRequest;
    this.headers = {
      'user-agent': options.userAgent,
      ...lowerCaseKeys(options.headers),
      'content-type': 'application/json',
    };
    this.timeoutMillis = options.timeoutMillis ?? 10_000;
    this.retryDelayMillis = options.retryDelayMillis ?? 1000;
    this.onFailure = options.onFailure ?? (() => undefined);
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('exporter is shut down') });
      return;
    }
    if (spans.length === 0) {
      resultCallback({ code: ExportResultCode.SUCCESS });
      return;
    }
    const body = Buffer.from(encodeOtlpJson(spans), 'utf8');
    const done = this.deliver(body).then(
      () => {
        this.lastReportAt = -Infinity;
        resultCallback({ code: ExportResultCode.SUCCESS });
      },
      (error: Error) => {
        this.reportFailure(error);
        resultCallback({ code: ExportResultCode.FAILED, error });
      },
    );
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.forceFlush();
    this.agent.destroy();
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

  private async deliver(body: Buffer): Promise<void> {
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

  private post(body: Buffer, timeoutMillis: number): Promise<PostOutcome> {
    return new Promise((resolve) => {
      const req = this.send(this.url, {
        method: 'POST',
        agent: this.agent,
        headers: { ...this.headers, 'content-length': String(body.length) },
        timeout: Math.max(1, timeoutMillis),
      });
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('error', () => undefined);
        res.on('end', () => resolve(outcomeOf(res, Buffer.concat(chunks))));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMillis} ms`)));
      req.on('error', (err) =>
        resolve({
          ok: false,
          retryable: true,
          error: new Error(`OTLP export to ${this.url.origin} failed: ${err.message}`),
        }),
      );
      req.end(body);
    });
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

function outcomeOf(res: IncomingMessage, body: Buffer): PostOutcome {
  const status = res.statusCode ?? 0;
  if (status >= 200 && status < 300) return { ok: true };
  const text = body.toString('utf8').slice(0, 200).trim();
  return {
    ok: false,
    retryable: RETRYABLE_STATUS.has(status),
    error: new Error(`OTLP collector answered ${status}${text === '' ? '' : `: ${text}`}`),
    retryAfterMillis: retryAfterMillis(res.headers['retry-after']),
  };
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMillis(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Between half and all of `millis`, so exporters that failed together do not retry together. */
function jitter(millis: number): number {
  return millis * (0.5 + Math.random() / 2);
}

function lowerCaseKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) out[key.toLowerCase()] = value;
  return out;
}

// ---- OTLP/JSON encoding --------------------------------------------------------------

/**
 * The ExportTraceServiceRequest for `spans` in OTLP's JSON encoding: ids as lower-case hex,
 * enums as numbers, 64-bit integers as decimal strings. Spans are grouped by resource and
 * instrumentation scope.
 */
export function encodeOtlpJson(spans: readonly ReadableSpan[]): string {
  const byResource = new Map<ReadableSpan['resource'], Map<string, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = byResource.get(span.resource);
    if (scopes === undefined) byResource.set(span.resource, (scopes = new Map()));
    const scope = span.instrumentationScope;
    const key = `${scope.name}\u0000${scope.version ?? ''}\u0000${scope.schemaUrl ?? ''}`;
    const list = scopes.get(key);
    if (list === undefined) scopes.set(key, [span]);
    else list.push(span);
  }
  const resourceSpans: unknown[] = [];
  for (const [resource, scopes] of byResource) {
    const scopeSpans: unknown[] = [];
    for (const list of scopes.values()) {
      const scope = list[0]!.instrumentationScope;
      scopeSpans.push({
        scope: { name: scope.name, version: scope.version ?? '' },
        spans: list.map(encodeSpan),
        ...(scope.schemaUrl === undefined ? {} : { schemaUrl: scope.schemaUrl }),
      });
    }
    resourceSpans.push({
      resource: { attributes: encodeAttributes(resource.attributes), droppedAttributesCount: 0 },
      scopeSpans,
      ...(resource.schemaUrl === undefined ? {} : { schemaUrl: resource.schemaUrl }),
    });
  }
  return JSON.stringify({ resourceSpans });
}

/** OTLP span flags: the W3C trace flags, plus whether the parent is known to be remote. */
const FLAG_HAS_IS_REMOTE = 0x100;
const FLAG_IS_REMOTE = 0x200;

function encodeSpan(span: ReadableSpan): unknown {
  const ctx = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    traceState: ctx.traceState?.serialize() ?? '',
    parentSpanId: parent?.spanId ?? '',
    flags: spanFlags(ctx, parent),
    name: span.name,
    // The API's SpanKind counts from INTERNAL = 0; OTLP's from UNSPECIFIED = 0.
    kind: span.kind + 1,
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    attributes: encodeAttributes(span.attributes),
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map((event) => ({
      timeUnixNano: nanos(event.time),
      name: event.name,
      attributes: encodeAttributes(event.attributes ?? {}),
      droppedAttributesCount: event.droppedAttributesCount ?? 0,
    })),
    droppedEventsCount: span.droppedEventsCount,
    links: span.links.map((link) => ({
      traceId: link.context.traceId,
      spanId: link.context.spanId,
      traceState: link.context.traceState?.serialize() ?? '',
      attributes: encodeAttributes(link.attributes ?? {}),
      droppedAttributesCount: link.droppedAttributesCount ?? 0,
      flags: spanFlags(link.context, undefined),
    })),
    droppedLinksCount: span.droppedLinksCount,
    status: {
      code: span.status.code,
      ...(span.status.message === undefined ? {} : { message: span.status.message }),
    },
  };
}

function spanFlags(ctx: SpanContext, parent: SpanContext | undefined): number {
  const flags = ctx.traceFlags & 0xff;
  if (parent === undefined) return flags;
  return flags | FLAG_HAS_IS_REMOTE | (parent.isRemote === true ? FLAG_IS_REMOTE : 0);
}

/** [seconds, nanoseconds] as the decimal count of nanoseconds since the epoch. */
export function nanos(time: HrTime): string {
  if (time[0] === 0) return String(time[1]);
  const fraction = String(time[1]);
  return `${time[0]}${'000000000'.slice(fraction.length)}${fraction}`;
}

function encodeAttributes(attributes: Attributes): unknown[] {
  const out: unknown[] = [];
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (value !== undefined) out.push({ key, value: encodeValue(value) });
  }
  return out;
}

function encodeValue(value: AttributeValue | null | undefined): unknown {
  switch (typeof value) {
    case 'string':
      return { stringValue: value };
    case 'boolean':
      return { boolValue: value };
    case 'number':
      if (Number.isSafeInteger(value)) return { intValue: String(value) };
      // JSON has no NaN or infinities; the protobuf JSON mapping spells them as strings.
      return { doubleValue: Number.isFinite(value) ? value : String(value) };
    default:
      if (Array.isArray(value)) {
        return {
          arrayValue: { values: (value as unknown[]).map((v) => encodeValue(v as AttributeValue)) },
        };
      }
      return {};
  }
}
