import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { NotFoundError } from '../../domain/errors';
import {
  type Accumulated,
  AccumulatedCounter,
  AccumulatedHistogram,
  type CounterSeries,
  type HistogramSeries,
  type Labels,
} from './accumulated-metrics';

import { piecewiseExposition } from './piecewise-exposition';
import { SeriesCap, Capped } from './series-cap';
import {
  DISABLED_METRICS,
  DEFAULT_SECONDS_BUCKETS,
  FLIPT_LATENCY_BUCKETS_MS,
  FLIPT_SCOPE,
  GRPC_CODE_NAMES,
  HTTP_METHODS,
  OVERFLOW_LABEL_VALUE,
  PROMETHEUS_CONTENT_TYPE,
  SCOPE_LABEL,
  SNAPSHOT_REBUILD_BUCKETS,
  UNKNOWN_FLAG_LABEL,
  UNMATCHED_ROUTE_LABEL,
  type CacheOutcome,
  type DbPoolStats,
  type EvaluatedEvent,
  type GaugeSample,
  type Metrics,
  type MetricsOptions,
} from './metrics-api';

export * from './metrics-api';

export function createMetrics(options: MetricsOptions): Metrics {
  return options.enabled ? new PrometheusMetrics(options) : DISABLED_METRICS;
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

  /** Written out after the registry's metrics, in pieces (piecewise-exposition.ts). */
  private readonly accumulated: Accumulated[] = [];
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

    this.evalRequests = this.counter(
      'flipt_evaluations_requests_total',
      'The total number of requested evaluations',
    );
    this.evalRequestsCap = new SeriesCap(max);
    this.evalResults = this.counter(
      'flipt_evaluations_results_total',
      'The total number of evaluation results',
    );
    this.evalResultsCap = new SeriesCap(max);
    this.evalErrors = this.counter(
      'flipt_evaluations_errors_total',
      'The total number of requested evaluations that resulted in an error',
    );
    this.evalLatency = this.histogram(
      'flipt_evaluations_latency_milliseconds',
      'The latency of individual evaluations in milliseconds',
      FLIPT_LATENCY_BUCKETS_MS,
    );
    this.serverErrors = this.counter(
      'flipt_server_errors_total',
      'The total number of server errors',
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

    this.httpRequests = this.counter(
      'vexil_http_requests_total',
      'HTTP requests completed, by method, route pattern and status code.',
    );
    this.httpDuration = this.histogram(
      'vexil_http_request_duration_seconds',
      'HTTP request duration in seconds, by method, route pattern and status code.',
      DEFAULT_SECONDS_BUCKETS,
    );
    this.httpCap = new SeriesCap(max);
    this.grpcHandled = this.counter(
      'grpc_server_handled_total',
      'Total number of RPCs completed on the server, regardless of success or failure.',
    );
    this.grpcHandling = this.histogram(
      'grpc_server_handling_seconds',
      'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.',
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

  async render(): Promise<string> {
    let text = '';
    for await (const piece of this.renderPieces()) text += piece;
    return text;
  }

  renderPieces(): AsyncIterable<string> {
    return piecewiseExposition(this.registry, this.accumulated);
  }

  private counter(name: string, help: string): AccumulatedCounter {
    const metric = new AccumulatedCounter(name, help);
    this.accumulated.push(metric);
    return metric;
  }

  private histogram(name: string, help: string, bounds: readonly number[]): AccumulatedHistogram {
    const metric = new AccumulatedHistogram(name, help, bounds);
    this.accumulated.push(metric);
    return metric;
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
