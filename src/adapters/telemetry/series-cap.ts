import type { Counter, Histogram } from 'prom-client';
import type { Labels } from './accumulated-metrics';
import { FLIPT_SCOPE, OVERFLOW_LABEL_VALUE, SCOPE_LABEL } from './metrics-api';

/**
 * Bounds the label sets of one metric: the first `max` distinct ones are kept, later ones
 * fold into one set whose values are all `other`, so an unbounded input cannot exhaust memory.
 */
export class SeriesCap {
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
export class Capped<M extends Counter | Histogram> {
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
