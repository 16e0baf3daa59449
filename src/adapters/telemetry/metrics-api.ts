import { Registry } from 'prom-client';

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
  /** The same text in pieces, with turns of the event loop between them (for the route). */
  renderPieces(): AsyncIterable<string>;
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

export const SNAPSHOT_REBUILD_BUCKETS = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Flipt exports through OpenTelemetry, which adds this label; dashboards may filter on it. */
export const SCOPE_LABEL = 'otel_scope_name';
export const FLIPT_SCOPE = 'github.com/flipt-io/flipt';

/** grpc-go's `codes.Code.String()`, which go-grpc-prometheus puts in grpc_code. */
export const GRPC_CODE_NAMES = [
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

export const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export const UNMATCHED_ROUTE_LABEL = 'unmatched';
/** Label value that label sets beyond the series cap fold into. */
export const OVERFLOW_LABEL_VALUE = 'other';
/**
 * The flag label of an evaluation whose flag does not exist: a caller can send any key, and
 * its raw text must not become a series. Flag keys never contain parentheses.
 */
export const UNKNOWN_FLAG_LABEL = '(unknown)';

const NOOP = (): void => undefined;

/** What every recording call does when metrics are off. */
export const DISABLED_METRICS: Metrics = {
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
  renderPieces: async function* () {},
  close: NOOP,
};
