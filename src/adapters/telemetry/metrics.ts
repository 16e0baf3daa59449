import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { NotFoundError } from '../../domain/errors';
import {
  AccumulatedCounter,
  AccumulatedHistogram,
  type CounterSeries,
  type HistogramSeries,
  type Labels,
} from './accumulated-metrics';

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
 * `servedStale`) structurally, on prom-client. When metrics are disabled every method is a
 * no-op and `render` returns ''.
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
  /** The exposition text for GET /metrics ('' when disabled). */
  render(): Promise<string>;
  /** Drops every series; the process metrics' samplers stop with the process. */
  close(): void;
}

export interface MetricsOptions {
  readonly enabled: boolean;
  /** Distinct label sets per metric before folding into an `other` series (default 10,000). */
  readonly maxSeries?: number;
  /** Register prom-client's default process_* and nodejs_* metrics (default true). */
  readonly processMetrics?: boolean;
}

export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** OpenTelemetry default histogram buckets, which Flipt's latency histogram uses (ms). */
export const FLIPT_LATENCY_BUCKETS_MS = [
  0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000,
];

/** Prometheus client default buckets (seconds), as go-grpc-prometheus uses them. */
export const DEFAULT_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const SNAPSHOT_REBUILD_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Flipt exports through OpenTelemetry, which adds this label; dashboards may filter on it. */
const SCOPE_LABEL = 'otel_scope_name';
const FLIPT_SCOPE = 'github.com/flipt-io/flipt';

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
/** Label value that label sets beyond the series cap fold into. */
export const OVERFLOW_LABEL_VALUE = 'other';
/**
 * The flag label of an evaluation whose flag does not exist: a caller can send any key, and
 * its raw text must not become a series. Flag keys never contain parentheses.
 */
export const UNKNOWN_FLAG_LABEL = '(unknown)';

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
  render: () => Promise.resolve(''),
  close: NOOP,
};

export function createMetrics(options: MetricsOptions): Metrics {
  return options.enabled ? new PrometheusMetrics(options) : disabledMetrics;
}

/**
 * Bounds the label sets of one metric: the first `max` distinct ones are kept, later ones
 * fold into one set whose values are all `other`, so an unbounded input cannot exhaust memory.
 */
class SeriesCap {
  private readonly seen = new Set<string>();
  constructor(private readonly max: number) {}

  labels(names: readonly string[], values: readonly string[]): Labels {
    const key = values.join('\u0000');
    if (!this.seen.has(key)) {
      if (this.seen.size >= this.max) {
        return Object.fromEntries(names.map((n) => [n, OVERFLOW_LABEL_VALUE]));
      }
      this.seen.add(key);
    }
    return Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']));
  }
}

/** A counter or histogram with its cap, taking label values in label-name order. */
class Capped<M extends Counter | Histogram> {
  private readonly cap: SeriesCap;
  constructor(
    readonly metric: M,
    private readonly names: readonly string[],
    max: number,
    private readonly scoped = false,
  ) {
    this.cap = new SeriesCap(max);
  }

  labels(...values: string[]): Labels {
    const labels = this.cap.labels(this.names, values);
    if (this.scoped) labels[SCOPE_LABEL] = FLIPT_SCOPE;
    return labels;
  }
}

/** The series one flag's evaluations touch on every call, resolved once per (namespace, flag). */
interface FlagSeries {
  readonly namespace: string;
  readonly flag: string;
  readonly labels: Labels;
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

/** The two series one gRPC call updates. */
interface GrpcSeries {
  readonly handled: CounterSeries;
  readonly handling: HistogramSeries;
}

class PrometheusMetrics implements Metrics {
  readonly enabled = true;
  readonly contentType = PROMETHEUS_CONTENT_TYPE;

  private readonly registry = new Registry();
  private readonly maxSeries: number;

  private readonly evalRequests: AccumulatedCounter;
  private readonly evalRequestsCap: SeriesCap;
  private readonly evalResults: AccumulatedCounter;
  private readonly evalResultsCap: SeriesCap;
  private readonly evalErrors: AccumulatedCounter;
  private readonly evalLatency: AccumulatedHistogram;
  private readonly serverErrors: CounterSeries;
  private readonly cacheOutcomes: Record<CacheOutcome, Capped<Counter>>;
  private readonly httpRequests: AccumulatedCounter;
  private readonly httpDuration: AccumulatedHistogram;
  private readonly httpCap: SeriesCap;
  private readonly grpcHandled: AccumulatedCounter;
  private readonly grpcHandling: AccumulatedHistogram;
  private readonly grpcCap: SeriesCap;
  private readonly grpcSeries = new Map<string, GrpcSeries>();
  private readonly snapshotRebuild: Capped<Histogram>;
  private readonly snapshotStale: Capped<Counter>;
  private readonly dbErrors: Capped<Counter>;

  private readonly flags = new Map<string, Map<string, FlagSeries>>();
  private flagCount = 0;
  private overflowFlag: FlagSeries | undefined;
  /** HTTP label sets by route label, request method and status code. */
  private readonly httpSeries = new Map<string, Map<string, Map<number, HttpSeries>>>();
  private readonly pools = new Map<string, () => DbPoolStats>();
  private readonly gaugeNames = new Set<string>();

  constructor(options: MetricsOptions) {
    const max = (this.maxSeries = options.maxSeries ?? 10_000);
    const registers = [this.registry];
    const flipt = (names: string[]) => [...names, SCOPE_LABEL];

    const r = this.registry;
    this.evalRequests = new AccumulatedCounter(
      'flipt_evaluations_requests_total',
      'The total number of requested evaluations',
      r,
    );
    this.evalRequestsCap = new SeriesCap(max);
    this.evalResults = new AccumulatedCounter(
      'flipt_evaluations_results_total',
      'The total number of evaluation results',
      r,
    );
    this.evalResultsCap = new SeriesCap(max);
    this.evalErrors = new AccumulatedCounter(
      'flipt_evaluations_errors_total',
      'The total number of requested evaluations that resulted in an error',
      r,
    );
    this.evalLatency = new AccumulatedHistogram(
      'flipt_evaluations_latency_milliseconds',
      'The latency of individual evaluations in milliseconds',
      r,
      FLIPT_LATENCY_BUCKETS_MS,
    );
    this.serverErrors = new AccumulatedCounter(
      'flipt_server_errors_total',
      'The total number of server errors',
      r,
    ).series({ [SCOPE_LABEL]: FLIPT_SCOPE });
    const cacheCounter = (name: string, help: string) =>
      new Capped(
        new Counter({ name, help, labelNames: flipt(['cache']), registers }),
        ['cache'],
        max,
        true,
      );
    this.cacheOutcomes = {
      hit: cacheCounter('flipt_cache_hit_total', 'The number of cache hits'),
      miss: cacheCounter('flipt_cache_miss_total', 'The number of cache misses'),
      error: cacheCounter(
        'flipt_cache_error_total',
        'The number of times an error occurred reading or writing to the cache',
      ),
    };

    this.httpRequests = new AccumulatedCounter(
      'vexil_http_requests_total',
      'HTTP requests completed, by method, route pattern and status code.',
      r,
    );
    this.httpDuration = new AccumulatedHistogram(
      'vexil_http_request_duration_seconds',
      'HTTP request duration in seconds, by method, route pattern and status code.',
      r,
      DEFAULT_SECONDS_BUCKETS,
    );
    this.httpCap = new SeriesCap(max);
    this.grpcHandled = new AccumulatedCounter(
      'grpc_server_handled_total',
      'Total number of RPCs completed on the server, regardless of success or failure.',
      r,
    );
    this.grpcHandling = new AccumulatedHistogram(
      'grpc_server_handling_seconds',
      'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.',
      r,
      DEFAULT_SECONDS_BUCKETS,
    );
    this.grpcCap = new SeriesCap(max);
    this.snapshotRebuild = new Capped(
      new Histogram({
        name: 'vexil_snapshot_rebuild_seconds',
        help: 'Time to compile a namespace snapshot for evaluation, in seconds.',
        labelNames: ['namespace'],
        buckets: SNAPSHOT_REBUILD_BUCKETS,
        registers,
      }),
      ['namespace'],
      max,
    );
    this.snapshotStale = new Capped(
      new Counter({
        name: 'vexil_snapshot_stale_served_total',
        help: 'Reads answered from the last known good snapshot because the database was unreachable.',
        labelNames: ['namespace'],
        registers,
      }),
      ['namespace'],
      max,
    );
    this.dbErrors = new Capped(
      new Counter({
        name: 'vexil_db_errors_total',
        help: 'Database operations that failed, by dialect.',
        labelNames: ['dialect'],
        registers,
      }),
      ['dialect'],
      max,
    );
    this.registerGauge(
      'db_sql_connection_max_open',
      'Maximum number of open connections to the database',
      ['driver'],
      () => this.poolSamples((s) => s.maxOpen),
    );
    this.registerGauge(
      'db_sql_connection_open',
      'The number of established connections both in use and idle',
      ['driver', 'status'],
      () => this.poolStatusSamples(),
    );
    this.registerGauge(
      'vexil_db_pool_waiting',
      'Callers waiting for a database connection.',
      ['driver'],
      () => this.poolSamples((s) => s.waiting),
    );

    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  evaluated(event: EvaluatedEvent): void {
    const unknownFlag = event.error instanceof NotFoundError;
    const f = this.flagSeries(event.namespaceKey, unknownFlag ? UNKNOWN_FLAG_LABEL : event.flagKey);
    f.requests.value++;
    f.latency.observe(event.durationMs);
    if (event.error !== undefined) {
      (f.errors ??= this.evalErrors.series(f.labels)).value++;
      return;
    }
    const b = event.boolean;
    if (b !== undefined) {
      const byReason = b.enabled ? f.booleanTrue : f.booleanFalse;
      let series = byReason.get(b.reason);
      if (series === undefined) {
        series = this.evalResults.series(
          this.resultLabels(f, {
            value: b.enabled ? 'true' : 'false',
            reason: b.reason,
            type: 'boolean',
          }),
        );
        if (byReason.size < 32) byReason.set(b.reason, series);
      }
      series.value++;
      return;
    }
    const v = event.variant;
    if (v !== undefined) {
      this.evalResults.series(
        this.resultLabels(f, {
          match: v.match ? 'true' : 'false',
          segment: v.segmentKeys[0] ?? '',
          reason: v.legacyReason,
          value: v.variantKey,
          type: 'variant',
        }),
      ).value++;
    }
  }

  /** Boolean and variant results share the metric with different label names, as in Flipt. */
  private resultLabels(f: FlagSeries, rest: Record<string, string>): Labels {
    const values = [f.namespace, f.flag, ...Object.values(rest)];
    const names = ['namespace', 'flag', ...Object.keys(rest)];
    const labels = this.evalResultsCap.labels(names, values);
    labels[SCOPE_LABEL] = FLIPT_SCOPE;
    return labels;
  }

  rebuilt(namespaceKey: string, durationMs: number): void {
    const h = this.snapshotRebuild;
    h.metric.observe(h.labels(namespaceKey), durationMs / 1000);
  }

  servedStale(namespaceKey: string): void {
    const c = this.snapshotStale;
    c.metric.inc(c.labels(namespaceKey));
  }

  recordHttp(method: string, route: string | undefined, status: number, seconds: number): void {
    const series = this.httpSeriesOf(method, route, status);
    series.requests.value++;
    series.duration.observe(seconds);
    // Flipt counts every failed API call (its HTTP gateway runs through the gRPC
    // interceptors); requests that matched no route never reached an API there.
    if (status >= 400 && series.matched) this.recordServerError();
  }

  private httpSeriesOf(method: string, route: string | undefined, status: number): HttpSeries {
    const routeLabel = route === undefined || route === '' ? UNMATCHED_ROUTE_LABEL : route;
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
      const m = HTTP_METHODS.has(method) ? method : OVERFLOW_LABEL_VALUE;
      const statusLabel =
        Number.isInteger(status) && status >= 100 && status < 600
          ? String(status)
          : OVERFLOW_LABEL_VALUE;
      const labels = this.httpCap.labels(
        ['method', 'route', 'status'],
        [m, routeLabel, statusLabel],
      );
      series = {
        requests: this.httpRequests.series(labels),
        duration: this.httpDuration.series(labels),
        matched: routeLabel !== UNMATCHED_ROUTE_LABEL,
      };
      if (byStatus.size < 600) byStatus.set(status, series);
    }
    return series;
  }

  recordGrpc(service: string, method: string, code: number | string, seconds: number): void {
    const codeName = typeof code === 'number' ? (GRPC_CODE_NAMES[code] ?? 'Unknown') : code;
    const key = `${service}/${method}/${codeName}`;
    let series = this.grpcSeries.get(key);
    if (series === undefined) {
      const names = ['grpc_type', 'grpc_service', 'grpc_method', 'grpc_code'];
      const handled = this.grpcCap.labels(names, ['unary', service, method, codeName]);
      const { grpc_code: _code, ...handling } = handled;
      series = {
        handled: this.grpcHandled.series(handled),
        handling: this.grpcHandling.series(handling),
      };
      if (this.grpcSeries.size < this.maxSeries) this.grpcSeries.set(key, series);
    }
    series.handled.value++;
    series.handling.observe(seconds);
    if (codeName !== 'OK') this.recordServerError();
  }

  recordCache(backend: string, outcome: CacheOutcome): void {
    const c = this.cacheOutcomes[outcome];
    c.metric.inc(c.labels(backend));
  }

  recordDbError(dialect: string): void {
    this.dbErrors.metric.inc(this.dbErrors.labels(dialect));
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
    if (this.gaugeNames.has(name)) throw new Error(`metric ${name} is already registered`);
    this.gaugeNames.add(name);
    const names = [...labelNames];
    new Gauge({
      name,
      help,
      labelNames: names,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const sample of collect()) {
          this.set(
            Object.fromEntries(names.map((n, i) => [n, sample.labels[i] ?? ''])),
            sample.value,
          );
        }
      },
    });
  }

  observeSnapshotAges(ages: () => Iterable<{ namespaceKey: string; ageMs: number }>): void {
    this.registerGauge(
      'vexil_snapshot_age_seconds',
      'Age of the cached evaluation snapshot of each namespace, in seconds.',
      ['namespace'],
      function* () {
        for (const a of ages()) yield { labels: [a.namespaceKey], value: a.ageMs / 1000 };
      },
    );
  }

  registerDbPool(dialect: string, stats: () => DbPoolStats): void {
    this.pools.set(dialect, stats);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  close(): void {
    this.registry.clear();
  }

  private flagSeries(namespaceKey: string, flagKey: string): FlagSeries {
    const found = this.flags.get(namespaceKey)?.get(flagKey);
    if (found !== undefined) return found;
    if (this.flagCount >= this.maxSeries) {
      return (this.overflowFlag ??= this.makeFlagSeries(
        OVERFLOW_LABEL_VALUE,
        OVERFLOW_LABEL_VALUE,
      ));
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
    const labels = this.evalRequestsCap.labels(['namespace', 'flag'], [namespace, flag]);
    labels[SCOPE_LABEL] = FLIPT_SCOPE;
    return {
      namespace,
      flag,
      labels,
      requests: this.evalRequests.series(labels),
      latency: this.evalLatency.series(labels),
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
