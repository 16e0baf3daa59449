import type { LabelValues } from 'prom-client';

/*
 * Counters and histograms for the request path, written out by prom-client at scrape time.
 *
 * A prom-client Counter or Histogram finds its series on every call by building a key from the
 * label values and validating them: about 5 µs of CPU for the five updates of one HTTP
 * evaluation, a fifth of what the whole request costs. Here the caller holds the series
 * (resolved once per label set), an update is a field increment, and `pieces()` hands
 * prom-client the values in its own format a few thousand lines at a time (see
 * piecewise-exposition.ts), so exposition, escaping and content type stay the library's.
 */

export type Labels = LabelValues<string>;

/** What a prom-client metric's `get()` gives its registry, for the fields the registry reads. */
export interface Exported {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  readonly values: ReadonlyArray<ExportedValue>;
}

interface ExportedValue {
  readonly labels: Labels;
  readonly value: number;
  readonly metricName?: string;
}

interface Series {
  readonly labels: Labels;
}

export class CounterSeries implements Series {
  value = 0;
  constructor(readonly labels: Labels) {}
}

export class HistogramSeries implements Series {
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    (this.counts as number[])[i]! += 1;
    this.sum += value;
    this.count++;
  }
}

export abstract class Accumulated<S extends Series = Series> {
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';
  protected readonly all = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The series of a label set (values in a fixed key order), created on first use. */
  series(labels: Labels): S {
    const key = Object.values(labels).join('\u0000');
    let s = this.all.get(key);
    if (s === undefined) {
      s = this.create(labels);
      this.all.set(key, s);
    }
    return s;
  }

  reset(): void {
    this.all.clear();
  }

  /**
   * The values in prom-client's format, about `maxValues` at a time (a series is never split);
   * one piece without values when there is no series.
   */
  *pieces(maxValues: number): Iterable<Exported> {
    let values: ExportedValue[] = [];
    let yielded = false;
    for (const s of this.all.values()) {
      this.valuesOf(s, values);
      if (values.length >= maxValues) {
        yield this.exported(values);
        values = [];
        yielded = true;
      }
    }
    if (values.length > 0 || !yielded) yield this.exported(values);
  }

  protected abstract create(labels: Labels): S;

  protected abstract valuesOf(series: S, into: ExportedValue[]): void;

  private exported(values: readonly ExportedValue[]): Exported {
    const { name, help, type, aggregator } = this;
    return { name, help, type, aggregator, values };
  }
}

export class AccumulatedCounter extends Accumulated<CounterSeries> {
  readonly type = 'counter' as const;

  protected create(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }

  protected valuesOf(s: CounterSeries, into: ExportedValue[]): void {
    into.push({ labels: s.labels, value: s.value });
  }
}

export class AccumulatedHistogram extends Accumulated<HistogramSeries> {
  readonly type = 'histogram' as const;

  constructor(
    name: string,
    help: string,
    private readonly bounds: readonly number[],
  ) {
    super(name, help);
  }

  protected create(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.bounds);
  }

  protected valuesOf(s: HistogramSeries, into: ExportedValue[]): void {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    this.bounds.forEach((bound, i) => {
      cumulative += s.counts[i] ?? 0;
      into.push({ metricName: bucket, labels: { ...s.labels, le: bound }, value: cumulative });
    });
    into.push(
      { metricName: bucket, labels: { ...s.labels, le: '+Inf' }, value: s.count },
      { metricName: `${this.name}_sum`, labels: s.labels, value: s.sum },
      { metricName: `${this.name}_count`, labels: s.labels, value: s.count },
    );
  }
}
