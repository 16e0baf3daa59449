import {
  PROMETHEUS_CONTENT_TYPE,
  PrometheusRegistry,
  type Counter,
  type CounterSeries,
  type Histogram,
  type HistogramSeries,
} from './prometheus-registry';
import { registerProcessMetrics } from './process-metrics';

/**
 * What the evaluation service reports per flag evaluated. Structurally the event of the
 * domain's `EvaluationObserver.evaluated`, restricted to the fields metrics read.
 */
export interface EvaluatedEvent {
  readonly namespaceKey: string;
  readonly flagKey: string;
  readonly durationMs: number;
  readonly boolean?: { readonly enabled: boolean; readonly reason: string };
  readonly variant?: {
    readonly match: boolean;
    readonly legacyReason: string;
    readonly segmentKeys: readonly string[];
    readonly variantKey: string;
  };
  readonly error?: unknown;
}

export type CacheOutcome = 'hit' | 'miss' | 'error';

export interface DbPoolStats {
  /** Configured maximum of open connections (0 or undefined: unlimited / unknown). */
  readonly maxOpen?: number;
  readonly inUse?: number;
  readonly idle?: number;
  /** Callers waiting for a connection. */
  readonly waiting?: number;
}

export interface GaugeSample {
  /** Label values in the order of the gauge's label names. */
  readonly labels: readonly string[];
  readonly value: number;
}

/**
 * Recording surface for every transport and the composition root. Implements the
 * domain's EvaluationObserver (`evaluated`) and SnapshotObserver (`rebuilt`,
 * `servedStale`) structurally. When metrics are disabled every method is a no-op and
 * `render` returns ''.
 */
export interface Metrics {
  readonly enabled: boolean;
  /** Content-Type for GET /metrics. */
  readonly contentType: string;
  evaluated(event: EvaluatedEvent): void;
  rebuilt(namespaceKey: string, durationMs: number): void;
  servedStale(namespaceKey: string, error: Error): void;
  /**
   * `route` is the matched route pattern, never the raw path; undefined when none matched.
   * A status >= 400 on a matched route also counts in flipt_server_errors_total.
   */
  recordHttp(method: string, route: string | undefined, status: number, seconds: number): void;
  /** `code` is the numeric gRPC status or its Go name (`OK`, `NotFound`, ...). */
  recordGrpc(service: string, method: string, code: number | string, seconds: number): void;
  recordCache(backend: string, outcome: CacheOutcome): void;
  recordDbError(dialect: string): void;
  /** An RPC failed in a way not seen by recordHttp/recordGrpc (counted in flipt_server_errors_total). */
  recordServerError(): void;
  /** A gauge whose samples `collect` produces at each scrape. Names must be unique. */
  registerGauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    collect: () => Iterable<GaugeSample>,
  ): void;
  /** vexil_snapshot_age_seconds{namespace}, read from the snapshot cache at scrape time. */
  observeSnapshotAges(ages: () => Iterable<{ namespaceKey: string; ageMs: number }>): void;
  /** Connection-pool gauges for one database (Flipt's db_sql_connection_* names, label driver). */
  registerDbPool(dialect: string, stats: () => DbPoolStats): void;
  render(): string;
  /** Stops the process samplers (event-loop delay, GC observer when on). */
  close(): void;
}

export interface MetricsOptions {
  readonly enabled: boolean;
  /** Distinct label sets per metric before folding into an `other` series. */
  readonly maxSeries?: number;
  /** Register process_* and nodejs_* metrics (default true). */
  readonly processMetrics?: boolean;
  /** Among those, observe every garbage collection for nodejs_gc_duration_seconds (default false). */
  readonly gcDuration?: boolean;
}

/** OpenTelemetry default histogram buckets, which Flipt's latency histogram uses (ms). */
export const FLIPT_LATENCY_BUCKETS_MS = [
  0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000,
] as const;

/** Prometheus client default buckets (seconds), as go-grpc-prometheus uses them. */
export const DEFAULT_SECONDS_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
] as const;

const SNAPSHOT_REBUILD_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Flipt exports through OpenTelemetry, which adds this label; dashboards may filter on it. */
const FLIPT_SCOPE = { constLabels: { otel_scope_name: 'github.com/flipt-io/flipt' } };

/** grpc-go's `codes.Code.String()`, which go-grpc-prometheus puts in grpc_code. */
const GRPC_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
] as const;

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export const UNMATCHED_ROUTE_LABEL = 'unmatched';

const NOOP = (): void => undefined;

const disabledMetrics: Metrics = {
  enabled: false,
  contentType: PROMETHEUS_CONTENT_TYPE,
  evaluated: NOOP,
  rebuilt: NOOP,
  servedStale: NOOP,
  recordHttp: NOOP,
  recordGrpc: NOOP,
  recordCache: NOOP,
  recordDbError: NOOP,
  recordServerError: NOOP,
  registerGauge: NOOP,
  observeSnapshotAges: NOOP,
  registerDbPool: NOOP,
  render: () => '',
  close: NOOP,
};

export function createMetrics(options: MetricsOptions): Metrics {
  return options.enabled ? new PrometheusMetrics(options) : disabledMetrics;
}

/** The series one flag's evaluations touch on every call, resolved once per (namespace, flag). */
interface FlagSeries {
  readonly namespace: string;
  readonly flag: string;
  readonly requests: CounterSeries;
  readonly latency: HistogramSeries;
  errors: CounterSeries | undefined;
  /** Boolean results keyed by reason, one map per value. */
  readonly booleanTrue: Map<string, CounterSeries>;
  readonly booleanFalse: Map<string, CounterSeries>;
}

/** The two series one HTTP request updates. */
interface HttpSeries {
  readonly requests: CounterSeries;
  readonly duration: HistogramSeries;
  /** False for requests that matched no route (not counted as server errors). */
  readonly matched: boolean;
}

class PrometheusMetrics implements Metrics {
  readonly enabled = true;
  readonly contentType = PROMETHEUS_CONTENT_TYPE;

  private readonly registry: PrometheusRegistry;
  private readonly maxSeries: number;
  private readonly stopProcess: () => void;

  private readonly evalRequests: Counter;
  private readonly evalBooleanResults: Counter;
  private readonly evalVariantResults: Counter;
  private readonly evalErrors: Counter;
  private readonly evalLatency: Histogram;
  private readonly serverErrors: CounterSeries;
  private readonly cacheHit: Counter;
  private readonly cacheMiss: Counter;
  private readonly cacheError: Counter;
  private readonly httpRequests: Counter;
  private readonly httpDuration: Histogram;
  private readonly grpcHandled: Counter;
  private readonly grpcHandling: Histogram;
  private readonly snapshotRebuild: Histogram;
  private readonly snapshotStale: Counter;
  private readonly dbErrors: Counter;

  private readonly flags = new Map<string, Map<string, FlagSeries>>();
  private flagCount = 0;
  private overflowFlag: FlagSeries | undefined;
  private readonly statusText = new Map<number, string>();
  /** HTTP series by route label, request method and status code. */
  private readonly httpSeries = new Map<string, Map<string, Map<number, HttpSeries>>>();
  private lastHttp: HttpSeries | undefined;
  private lastHttpRoute: string | undefined;
  private lastHttpMethod = '';
  private lastHttpStatus = 0;
  /** The series of the flag evaluated last, reused while the same flag repeats. */
  private lastFlag: FlagSeries | undefined;
  private lastFlagNs = '';
  private lastFlagKey = '';
  private readonly pools = new Map<string, () => DbPoolStats>();

  constructor(options: MetricsOptions) {
    this.maxSeries = options.maxSeries ?? 10_000;
    const r = (this.registry = new PrometheusRegistry({ maxSeries: this.maxSeries }));

    this.evalRequests = r.counter(
      'flipt_evaluations_requests_total',
      'The total number of requested evaluations',
      ['namespace', 'flag'],
      FLIPT_SCOPE,
    );
    this.evalBooleanResults = r.counter(
      'flipt_evaluations_results_total',
      'The total number of evaluation results',
      ['namespace', 'flag', 'value', 'reason', 'type'],
      FLIPT_SCOPE,
    );
    this.evalVariantResults = r.counter(
      'flipt_evaluations_results_total',
      'The total number of evaluation results',
      ['namespace', 'flag', 'match', 'segment', 'reason', 'value', 'type'],
      FLIPT_SCOPE,
    );
    this.evalErrors = r.counter(
      'flipt_evaluations_errors_total',
      'The total number of requested evaluations that resulted in an error',
      ['namespace', 'flag'],
      FLIPT_SCOPE,
    );
    this.evalLatency = r.histogram(
      'flipt_evaluations_latency_milliseconds',
      'The latency of individual evaluations in milliseconds',
      ['namespace', 'flag'],
      FLIPT_LATENCY_BUCKETS_MS,
      FLIPT_SCOPE,
    );
    this.serverErrors = r
      .counter('flipt_server_errors_total', 'The total number of server errors', [], FLIPT_SCOPE)
      .labels();
    this.cacheHit = r.counter(
      'flipt_cache_hit_total',
      'The number of cache hits',
      ['cache'],
      FLIPT_SCOPE,
    );
    this.cacheMiss = r.counter(
      'flipt_cache_miss_total',
      'The number of cache misses',
      ['cache'],
      FLIPT_SCOPE,
    );
    this.cacheError = r.counter(
      'flipt_cache_error_total',
      'The number of times an error occurred reading or writing to the cache',
      ['cache'],
      FLIPT_SCOPE,
    );

    this.httpRequests = r.counter(
      'vexil_http_requests_total',
      'HTTP requests completed, by method, route pattern and status code.',
      ['method', 'route', 'status'],
    );
    this.httpDuration = r.histogram(
      'vexil_http_request_duration_seconds',
      'HTTP request duration in seconds, by method, route pattern and status code.',
      ['method', 'route', 'status'],
      DEFAULT_SECONDS_BUCKETS,
    );
    this.grpcHandled = r.counter(
      'grpc_server_handled_total',
      'Total number of RPCs completed on the server, regardless of success or failure.',
      ['grpc_type', 'grpc_service', 'grpc_method', 'grpc_code'],
    );
    this.grpcHandling = r.histogram(
      'grpc_server_handling_seconds',
      'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.',
      ['grpc_type', 'grpc_service', 'grpc_method'],
      DEFAULT_SECONDS_BUCKETS,
    );
    this.snapshotRebuild = r.histogram(
      'vexil_snapshot_rebuild_seconds',
      'Time to compile a namespace snapshot for evaluation, in seconds.',
      ['namespace'],
      SNAPSHOT_REBUILD_BUCKETS,
    );
    this.snapshotStale = r.counter(
      'vexil_snapshot_stale_served_total',
      'Reads answered from the last known good snapshot because the database was unreachable.',
      ['namespace'],
    );
    this.dbErrors = r.counter(
      'vexil_db_errors_total',
      'Database operations that failed, by dialect.',
      ['dialect'],
    );
    r.collected(
      'db_sql_connection_max_open',
      'Maximum number of open connections to the database',
      'gauge',
      ['driver'],
      () => this.poolSamples((s) => s.maxOpen),
    );
    r.collected(
      'db_sql_connection_open',
      'The number of established connections both in use and idle',
      'gauge',
      ['driver', 'status'],
      () => this.poolStatusSamples(),
    );
    r.collected(
      'vexil_db_pool_waiting',
      'Callers waiting for a database connection.',
      'gauge',
      ['driver'],
      () => this.poolSamples((s) => s.waiting),
    );

    this.stopProcess =
      options.processMetrics === false
        ? NOOP
        : registerProcessMetrics(r, { gcDuration: options.gcDuration === true });
  }

  evaluated(event: EvaluatedEvent): void {
    const f = this.flagSeries(event.namespaceKey, event.flagKey);
    f.requests.value++;
    this.evalLatency.observeSeries(f.latency, event.durationMs);
    if (event.error !== undefined) {
      (f.errors ??= this.evalErrors.labels(f.namespace, f.flag)).value++;
      return;
    }
    const b = event.boolean;
    if (b !== undefined) {
      const byReason = b.enabled ? f.booleanTrue : f.booleanFalse;
      let series = byReason.get(b.reason);
      if (series === undefined) {
        series = this.evalBooleanResults.labels(
          f.namespace,
          f.flag,
          b.enabled ? 'true' : 'false',
          b.reason,
          'boolean',
        );
        if (byReason.size < 32) byReason.set(b.reason, series);
      }
      series.value++;
      return;
    }
    const v = event.variant;
    if (v !== undefined) {
      this.evalVariantResults.labels(
        f.namespace,
        f.flag,
        v.match ? 'true' : 'false',
        v.segmentKeys[0] ?? '',
        v.legacyReason,
        v.variantKey,
        'variant',
      ).value++;
    }
  }

  rebuilt(namespaceKey: string, durationMs: number): void {
    this.snapshotRebuild.observe(durationMs / 1000, namespaceKey);
  }

  servedStale(namespaceKey: string): void {
    this.snapshotStale.labels(namespaceKey).value++;
  }

  recordHttp(method: string, route: string | undefined, status: number, seconds: number): void {
    // Under load most requests repeat the previous one's route, method and status (the
    // same string objects, so the comparisons are cheap): its series are reused as they are.
    let series = this.lastHttp;
    if (
      series === undefined ||
      route !== this.lastHttpRoute ||
      method !== this.lastHttpMethod ||
      status !== this.lastHttpStatus
    ) {
      series = this.httpSeriesOf(method, route, status);
      this.lastHttp = series;
      this.lastHttpRoute = route;
      this.lastHttpMethod = method;
      this.lastHttpStatus = status;
    }
    series.requests.value++;
    this.httpDuration.observeSeries(series.duration, seconds);
    // Flipt counts every failed API call (its HTTP gateway runs through the gRPC
    // interceptors); requests that matched no route never reached an API there.
    if (status >= 400 && series.matched) this.serverErrors.value++;
  }

  private httpSeriesOf(method: string, route: string | undefined, status: number): HttpSeries {
    const routeLabel = route === undefined || route === '' ? UNMATCHED_ROUTE_LABEL : route;
    // Found by three map lookups on the raw values (route, method, status) instead of the
    // label trees with their argument arrays.
    let byMethod = this.httpSeries.get(routeLabel);
    if (byMethod === undefined) {
      byMethod = new Map();
      if (this.httpSeries.size < this.maxSeries) this.httpSeries.set(routeLabel, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      if (byMethod.size <= HTTP_METHODS.size) byMethod.set(method, byStatus);
    }
    let series = byStatus.get(status);
    if (series === undefined) {
      series = this.httpSeriesFor(method, routeLabel, status);
      if (byStatus.size < 600) byStatus.set(status, series);
    }
    return series;
  }

  private httpSeriesFor(method: string, routeLabel: string, status: number): HttpSeries {
    const m = HTTP_METHODS.has(method) ? method : 'other';
    let statusLabel = this.statusText.get(status);
    if (statusLabel === undefined) {
      statusLabel =
        Number.isInteger(status) && status >= 100 && status < 600 ? String(status) : 'other';
      if (this.statusText.size < 600) this.statusText.set(status, statusLabel);
    }
    return {
      requests: this.httpRequests.labels(m, routeLabel, statusLabel),
      duration: this.httpDuration.labels(m, routeLabel, statusLabel),
      matched: routeLabel !== UNMATCHED_ROUTE_LABEL,
    };
  }

  recordGrpc(service: string, method: string, code: number | string, seconds: number): void {
    const codeName = typeof code === 'number' ? (GRPC_CODE_NAMES[code] ?? 'Unknown') : code;
    this.grpcHandled.labels('unary', service, method, codeName).value++;
    this.grpcHandling.observe(seconds, 'unary', service, method);
    if (codeName !== 'OK') this.serverErrors.value++;
  }

  recordCache(backend: string, outcome: CacheOutcome): void {
    const counter =
      outcome === 'hit' ? this.cacheHit : outcome === 'miss' ? this.cacheMiss : this.cacheError;
    counter.labels(backend).value++;
  }

  recordDbError(dialect: string): void {
    this.dbErrors.labels(dialect).value++;
  }

  recordServerError(): void {
    this.serverErrors.value++;
  }

  registerGauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    collect: () => Iterable<GaugeSample>,
  ): void {
    this.registry.collected(name, help, 'gauge', labelNames, collect);
  }

  observeSnapshotAges(ages: () => Iterable<{ namespaceKey: string; ageMs: number }>): void {
    this.registry.collected(
      'vexil_snapshot_age_seconds',
      'Age of the cached evaluation snapshot of each namespace, in seconds.',
      'gauge',
      ['namespace'],
      function* () {
        for (const a of ages()) yield { labels: [a.namespaceKey], value: a.ageMs / 1000 };
      },
    );
  }

  registerDbPool(dialect: string, stats: () => DbPoolStats): void {
    this.pools.set(dialect, stats);
  }

  render(): string {
    return this.registry.render();
  }

  close(): void {
    this.stopProcess();
  }

  private flagSeries(namespaceKey: string, flagKey: string): FlagSeries {
    const last = this.lastFlag;
    if (last !== undefined && flagKey === this.lastFlagKey && namespaceKey === this.lastFlagNs) {
      return last;
    }
    const f = this.lookUpFlagSeries(namespaceKey, flagKey);
    this.lastFlag = f;
    this.lastFlagNs = namespaceKey;
    this.lastFlagKey = flagKey;
    return f;
  }

  private lookUpFlagSeries(namespaceKey: string, flagKey: string): FlagSeries {
    const found = this.flags.get(namespaceKey)?.get(flagKey);
    if (found !== undefined) return found;
    if (this.flagCount >= this.maxSeries) {
      return (this.overflowFlag ??= this.makeFlagSeries('other', 'other'));
    }
    const f = this.makeFlagSeries(namespaceKey, flagKey);
    let byFlag = this.flags.get(namespaceKey);
    if (byFlag === undefined) {
      byFlag = new Map();
      this.flags.set(namespaceKey, byFlag);
    }
    byFlag.set(flagKey, f);
    this.flagCount++;
    return f;
  }

  private makeFlagSeries(namespace: string, flag: string): FlagSeries {
    return {
      namespace,
      flag,
      requests: this.evalRequests.labels(namespace, flag),
      latency: this.evalLatency.labels(namespace, flag),
      errors: undefined,
      booleanTrue: new Map(),
      booleanFalse: new Map(),
    };
  }

  private *poolSamples(pick: (s: DbPoolStats) => number | undefined): Iterable<GaugeSample> {
    for (const [driver, stats] of this.pools) {
      const value = pick(stats());
      if (value !== undefined) yield { labels: [driver], value };
    }
  }

  private *poolStatusSamples(): Iterable<GaugeSample> {
    for (const [driver, stats] of this.pools) {
      const s = stats();
      if (s.idle !== undefined) yield { labels: [driver, 'idle'], value: s.idle };
      if (s.inUse !== undefined) yield { labels: [driver, 'inuse'], value: s.inUse };
    }
  }
}
