/**
 * A small Prometheus text-exposition registry (format 0.0.4).
 *
 * Written for the evaluation hot path: a series is found by walking nested Maps keyed by
 * the raw label values (no key string is built per call), and its exposition text is
 * computed once when the series is created. Each metric holds at most `maxSeries` label
 * sets; further label sets fold into one series whose label values are all `other`, so
 * an unbounded input (a misbehaving client inventing flag keys) cannot exhaust memory.
 */

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Label value that over-cap label sets fold into. */
export const OVERFLOW_LABEL_VALUE = 'other';

export const DEFAULT_MAX_SERIES = 10_000;

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricOptions {
  /** Labels with fixed values added to every series, e.g. `otel_scope_name`. */
  readonly constLabels?: Readonly<Record<string, string>>;
  readonly maxSeries?: number;
}

export interface CollectedSample {
  /** Label values, in the order of the collector's label names. */
  readonly labels: readonly string[];
  readonly value: number;
}

export type Collect = () => Iterable<CollectedSample>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : '\\n'));
}

function escapeHelp(help: string): string {
  return help.replace(/[\\\n]/g, (c) => (c === '\\' ? '\\\\' : '\\n'));
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** `a="x",b="y"` (no braces), or '' without labels. */
function labelPairs(names: readonly string[], values: readonly string[]): string {
  let out = '';
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out += ',';
    out += `${names[i]}="${escapeLabelValue(values[i] ?? '')}"`;
  }
  return out;
}

function checkNames(name: string, labelNames: readonly string[], options: MetricOptions): void {
  if (!NAME.test(name)) throw new Error(`invalid metric name ${JSON.stringify(name)}`);
  const all = [...labelNames, ...Object.keys(options.constLabels ?? {})];
  for (const label of all) {
    if (!LABEL_NAME.test(label) || label.startsWith('__')) {
      throw new Error(`invalid label name ${JSON.stringify(label)} on ${name}`);
    }
  }
  if (new Set(all).size !== all.length) throw new Error(`duplicate label name on ${name}`);
}

interface Rendered {
  /** Label pairs of the series including constant labels, without braces. */
  readonly pairs: string;
}

/**
 * The label-set index shared by counters, gauges and histograms: nested Maps, one level
 * per label, leaves are series.
 */
abstract class SeriesIndex<S extends Rendered> {
  readonly labelNames: readonly string[];
  private readonly root = new Map<string, unknown>();
  private readonly maxSeries: number;
  private readonly constPairs: string;
  private readonly all: S[] = [];
  private overflow: S | undefined;
  private unlabelled: S | undefined;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    options: MetricOptions,
  ) {
    checkNames(name, labelNames, options);
    this.labelNames = [...labelNames];
    this.maxSeries = options.maxSeries ?? DEFAULT_MAX_SERIES;
    const constLabels = options.constLabels ?? {};
    this.constPairs = labelPairs(Object.keys(constLabels), Object.values(constLabels));
  }

  protected abstract createSeries(pairs: string): S;

  /** The series of these label values (in label-name order); created on first use. */
  labels(...values: string[]): S {
    return this.series(values);
  }

  series(values: readonly string[]): S {
    const depth = this.labelNames.length;
    if (depth === 0) return (this.unlabelled ??= this.make([]));
    let node = this.root;
    for (let i = 0; i < depth - 1; i++) {
      const next = node.get(values[i] as string) as Map<string, unknown> | undefined;
      if (next === undefined) return this.insert(values);
      node = next;
    }
    const found = node.get(values[depth - 1] as string) as S | undefined;
    return found ?? this.insert(values);
  }

  /** Number of distinct label sets held (the overflow series included). */
  get size(): number {
    return this.all.length;
  }

  protected get seriesList(): readonly S[] {
    return this.all;
  }

  private insert(values: readonly string[]): S {
    const depth = this.labelNames.length;
    if (values.length !== depth) {
      throw new Error(`${this.name} takes ${depth} label values, got ${values.length}`);
    }
    if (this.all.length >= this.maxSeries) return this.overflowSeries();
    let node = this.root;
    for (let i = 0; i < depth - 1; i++) {
      const key = values[i] as string;
      let next = node.get(key) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(key, next);
      }
      node = next;
    }
    const series = this.make(values);
    node.set(values[depth - 1] as string, series);
    return series;
  }

  private overflowSeries(): S {
    if (this.overflow === undefined) {
      const values = this.labelNames.map(() => OVERFLOW_LABEL_VALUE);
      // A genuine label set made only of `other` values is the same series.
      let node: Map<string, unknown> | undefined = this.root;
      for (let i = 0; i < values.length - 1 && node !== undefined; i++) {
        node = node.get(OVERFLOW_LABEL_VALUE) as Map<string, unknown> | undefined;
      }
      this.overflow = (node?.get(OVERFLOW_LABEL_VALUE) as S | undefined) ?? this.make(values);
    }
    return this.overflow;
  }

  private make(values: readonly string[]): S {
    const own = labelPairs(this.labelNames, values);
    const pairs =
      this.constPairs === '' ? own : own === '' ? this.constPairs : `${own},${this.constPairs}`;
    const series = this.createSeries(pairs);
    this.all.push(series);
    return series;
  }
}

export interface CounterSeries extends Rendered {
  value: number;
}

export class Counter extends SeriesIndex<CounterSeries> {
  readonly type = 'counter';

  protected createSeries(pairs: string): CounterSeries {
    return { pairs, value: 0 };
  }

  /** Adds to the series of these label values (for counters without labels, pass none). */
  inc(amount = 1, ...values: string[]): void {
    this.series(values).value += amount;
  }

  render(out: string[]): void {
    if (this.labelNames.length === 0 && this.size === 0) this.series([]);
    for (const s of this.seriesList) out.push(sample(this.name, s.pairs, s.value));
  }
}

export interface GaugeSeries extends Rendered {
  value: number;
}

export class Gauge extends SeriesIndex<GaugeSeries> {
  readonly type = 'gauge';

  protected createSeries(pairs: string): GaugeSeries {
    return { pairs, value: 0 };
  }

  set(value: number, ...values: string[]): void {
    this.series(values).value = value;
  }

  render(out: string[]): void {
    if (this.labelNames.length === 0 && this.size === 0) this.series([]);
    for (const s of this.seriesList) out.push(sample(this.name, s.pairs, s.value));
  }
}

export interface HistogramSeries extends Rendered {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class Histogram extends SeriesIndex<HistogramSeries> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];
  private readonly leValues: readonly string[];

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
    options: MetricOptions = {},
  ) {
    if (labelNames.includes('le')) throw new Error(`${name}: "le" is reserved for histograms`);
    super(name, help, labelNames, options);
    const sorted = [...buckets].sort((a, b) => a - b);
    if (sorted.some((b, i) => !Number.isFinite(b) || (i > 0 && b === sorted[i - 1]))) {
      throw new Error(`${name}: buckets must be finite and distinct`);
    }
    this.buckets = sorted;
    this.leValues = [...sorted.map(formatValue), '+Inf'];
  }

  protected createSeries(pairs: string): HistogramSeries {
    return { pairs, counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
  }

  observe(value: number, ...values: string[]): void {
    this.observeSeries(this.series(values), value);
  }

  /** Upper bounds are inclusive, as in every Prometheus client. */
  observeSeries(series: HistogramSeries, value: number): void {
    const b = this.buckets;
    let i = 0;
    while (i < b.length && value > (b[i] as number)) i++;
    (series.counts[i] as number)++;
    series.sum += value;
    series.count++;
  }

  render(out: string[]): void {
    if (this.labelNames.length === 0 && this.size === 0) this.series([]);
    const bucketName = `${this.name}_bucket`;
    for (const s of this.seriesList) {
      const prefix = s.pairs === '' ? '' : `${s.pairs},`;
      let cumulative = 0;
      for (let i = 0; i < this.leValues.length; i++) {
        cumulative += s.counts[i] as number;
        out.push(sample(bucketName, `${prefix}le="${this.leValues[i] as string}"`, cumulative));
      }
      out.push(sample(`${this.name}_sum`, s.pairs, s.sum));
      out.push(sample(`${this.name}_count`, s.pairs, s.count));
    }
  }
}

/** Samples produced at scrape time (process figures, pool use, snapshot ages). */
export class CollectedMetric {
  readonly labelNames: readonly string[];
  private readonly constPairs: string;
  private readonly maxSeries: number;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
    labelNames: readonly string[],
    private readonly collect: Collect,
    options: MetricOptions = {},
  ) {
    checkNames(name, labelNames, options);
    this.labelNames = [...labelNames];
    this.maxSeries = options.maxSeries ?? DEFAULT_MAX_SERIES;
    const constLabels = options.constLabels ?? {};
    this.constPairs = labelPairs(Object.keys(constLabels), Object.values(constLabels));
  }

  render(out: string[]): void {
    let n = 0;
    for (const s of this.collect()) {
      if (n++ >= this.maxSeries) break;
      const own = labelPairs(this.labelNames, s.labels);
      const pairs =
        this.constPairs === '' ? own : own === '' ? this.constPairs : `${own},${this.constPairs}`;
      out.push(sample(this.name, pairs, s.value));
    }
  }
}

function sample(name: string, pairs: string, value: number): string {
  return pairs === '' ? `${name} ${formatValue(value)}` : `${name}{${pairs}} ${formatValue(value)}`;
}

type Metric = Counter | Gauge | Histogram | CollectedMetric;

/**
 * Holds metrics and renders them. Several metrics may share a name when their types match
 * (Flipt's results counter has one label set for boolean flags and another for variant
 * flags); they are rendered under a single HELP/TYPE header.
 */
export class PrometheusRegistry {
  private readonly families = new Map<string, Metric[]>();

  constructor(private readonly defaults: { readonly maxSeries?: number } = {}) {}

  counter(
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    options: MetricOptions = {},
  ): Counter {
    return this.add(new Counter(name, help, labelNames, this.withDefaults(options)));
  }

  gauge(
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    options: MetricOptions = {},
  ): Gauge {
    return this.add(new Gauge(name, help, labelNames, this.withDefaults(options)));
  }

  histogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
    options: MetricOptions = {},
  ): Histogram {
    return this.add(new Histogram(name, help, labelNames, buckets, this.withDefaults(options)));
  }

  /** A metric whose samples are produced by `collect` at every scrape. */
  collected(
    name: string,
    help: string,
    type: 'counter' | 'gauge',
    labelNames: readonly string[],
    collect: Collect,
    options: MetricOptions = {},
  ): CollectedMetric {
    return this.add(
      new CollectedMetric(name, help, type, labelNames, collect, this.withDefaults(options)),
    );
  }

  /** The exposition text of every metric. A collector that throws is left out of this scrape. */
  render(): string {
    const out: string[] = [];
    for (const [name, metrics] of this.families) {
      const first = metrics[0];
      if (first === undefined) continue;
      const body: string[] = [];
      for (const m of metrics) {
        const mark = body.length;
        try {
          m.render(body);
        } catch {
          body.length = mark;
        }
      }
      if (body.length === 0 && first instanceof CollectedMetric) continue;
      out.push(`# HELP ${name} ${escapeHelp(first.help)}`, `# TYPE ${name} ${first.type}`);
      for (const line of body) out.push(line);
    }
    out.push('');
    return out.join('\n');
  }

  private withDefaults(options: MetricOptions): MetricOptions {
    return options.maxSeries === undefined && this.defaults.maxSeries !== undefined
      ? { ...options, maxSeries: this.defaults.maxSeries }
      : options;
  }

  private add<M extends Metric>(metric: M): M {
    const family = this.families.get(metric.name);
    if (family === undefined) {
      this.families.set(metric.name, [metric]);
    } else {
      if (family[0]?.type !== metric.type) {
        throw new Error(`${metric.name} is already registered as a ${family[0]?.type}`);
      }
      family.push(metric);
    }
    return metric;
  }
}
