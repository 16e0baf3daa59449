import { TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { EncodedSpans } from './otlp-json';

/**
 * The span processor tracing uses: sampled spans are encoded to OTLP JSON at the end of the
 * turn of the event loop they ended in (at most 64 at a time), and kept as that text, UTF-8
 * bytes outside V8's heap, until their batch is sent (ADR 0007).
 *
 * The SDK's BatchSpanProcessor keeps the span objects themselves (attributes, ids, events, the
 * resource they point to) for up to the batch delay: long enough for the garbage collector to
 * promote them into the old generation, copying them on the way, and to trace them in every
 * major collection; and it then encodes the whole batch in one turn, which stalls the requests
 * waiting behind it. Here a span object dies in the turn it ended in, and the encoding work is
 * spread thinly. At the end of the turn rather than as each span ends: the spans of a traced
 * request (its evaluation, then its server span) and those of the requests served in the same
 * turn are encoded in one loop, the first of them paying for code run cold (a traced request is
 * rare) and the others running warm.
 *
 * Batching follows the SDK's defaults: a batch goes when it holds `maxBatchSpans` spans or
 * `delayMillis` after its first span, whichever comes first; at most `maxExportsInFlight`
 * batches are being sent at once; beyond `maxQueuedSpans` spans waiting, new spans are
 * dropped (and counted) rather than let memory grow while the collector is slow or away.
 */

/** Where encoded batches go: OtlpJsonExporter. */
export interface EncodedSpanSink {
  /** Resolves once the batch (JSON, as UTF-8) is delivered; rejects when it is given up. */
  send(body: Uint8Array): Promise<void>;
  shutdown(): Promise<void>;
}

export interface SpanBatcherOptions {
  /** How long the first span of a batch waits for others (default 5000 ms). */
  readonly delayMillis?: number;
  /** A batch goes as soon as it holds this many spans (default 512). */
  readonly maxBatchSpans?: number;
  /** Spans that may wait for a batch slot before new ones are dropped (default 2048). */
  readonly maxQueuedSpans?: number;
  /**
   * Ended spans are encoded together once this many wait (default 64), or else at the end of
   * the turn of the event loop they ended in.
   */
  readonly encodeChunkSpans?: number;
  /** Batches being sent at once (default 2). */
  readonly maxExportsInFlight?: number;
  /**
   * Told when spans were dropped because the queue was full: when a batch is next sent, at
   * most once a minute, with how many were dropped meanwhile.
   */
  readonly onDropped?: (count: number) => void;
}

export class EncodingSpanBatcher implements SpanProcessor {
  private readonly delayMillis: number;
  private readonly maxBatchSpans: number;
  private readonly maxQueuedSpans: number;
  private readonly maxExportsInFlight: number;
  private readonly encodeChunkSpans: number;
  private readonly onDropped: (count: number) => void;
  /** Ended spans not encoded yet. */
  private ended: ReadableSpan[] = [];
  private encodeLater: NodeJS.Immediate | undefined;
  /** Encoded spans waiting for their batch to be sent. */
  private queued = new EncodedSpans();
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private dropped = 0;
  private lastDropReportAt = -Infinity;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly sink: EncodedSpanSink,
    options: SpanBatcherOptions = {},
  ) {
    this.delayMillis = options.delayMillis ?? 5000;
    this.maxBatchSpans = options.maxBatchSpans ?? 512;
    this.maxQueuedSpans = Math.max(options.maxQueuedSpans ?? 2048, this.maxBatchSpans);
    this.maxExportsInFlight = options.maxExportsInFlight ?? 2;
    this.encodeChunkSpans = options.encodeChunkSpans ?? 64;
    this.onDropped = options.onDropped ?? (() => undefined);
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.stopped !== undefined) return;
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.queued.size + this.ended.length >= this.maxQueuedSpans) {
      this.dropped++;
      return;
    }
    this.ended.push(span);
    if (this.ended.length >= this.encodeChunkSpans) this.encodeChunk();
    else this.encodeLater ??= setImmediate(() => this.encodeChunk());
  }

  /** Sends every span ended so far and waits for all batches in flight. */
  async forceFlush(): Promise<void> {
    this.sendQueued();
    await Promise.all([...this.inFlight]);
  }

  shutdown(): Promise<void> {
    return (this.stopped ??= this.forceFlush().then(() => this.sink.shutdown()));
  }

  private encodeChunk(): void {
    this.encodeEnded();
    if (this.queued.size >= this.maxBatchSpans) this.sendWhenFree();
    else if (this.queued.size > 0) {
      this.timer ??= setTimeout(() => this.sendQueued(), this.delayMillis).unref();
    }
  }

  /** Encodes every ended span into the queue. */
  private encodeEnded(): void {
    if (this.encodeLater !== undefined) {
      clearImmediate(this.encodeLater);
      this.encodeLater = undefined;
    }
    const ended = this.ended;
    this.ended = [];
    for (const span of ended) this.queued.add(span);
  }

  /** Sends a full batch now, unless the slots are taken: a slot freed sends it then. */
  private sendWhenFree(): void {
    if (this.inFlight.size < this.maxExportsInFlight) this.sendQueued();
  }

  private sendQueued(): void {
    this.encodeEnded();
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.queued.size === 0) return;
    const body = this.queued.toBody();
    this.queued = new EncodedSpans();
    if (this.dropped > 0 && Date.now() - this.lastDropReportAt >= 60_000) {
      this.lastDropReportAt = Date.now();
      this.onDropped(this.dropped);
      this.dropped = 0;
    }
    // The sink reports its own failures; a batch given up is not tried again here.
    const sent = this.sink.send(body).then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(sent);
    void sent.then(() => {
      this.inFlight.delete(sent);
      if (this.queued.size >= this.maxBatchSpans) this.sendWhenFree();
    });
  }
}
