import {
  OVERFLOW_LABEL_VALUE,
  PrometheusRegistry,
  escapeLabelValue,
} from '../../../src/adapters/telemetry/prometheus-registry';
import { parseExposition, samplesOf } from './exposition-parser';

describe('Prometheus registry exposition', () => {
  it('writes one HELP and TYPE line per metric and a sample per label set', () => {
    const r = new PrometheusRegistry();
    const c = r.counter('requests_total', 'Requests seen.', ['route']);
    c.labels('/a').value += 2;
    c.inc(1, '/b');
    c.inc(3, '/a');
    const parsed = parseExposition(r.render());
    expect(parsed.help.get('requests_total')).toBe('Requests seen.');
    expect(parsed.types.get('requests_total')).toBe('counter');
    expect(samplesOf(parsed, 'requests_total')).toEqual([
      { name: 'requests_total', labels: { route: '/a' }, value: 5 },
      { name: 'requests_total', labels: { route: '/b' }, value: 1 },
    ]);
  });

  it('escapes backslashes, quotes and newlines in label values and help text', () => {
    const r = new PrometheusRegistry();
    const nasty = 'a\\b"c\nd';
    r.counter('odd_total', 'Help with \\ and\nnewline.', ['v']).inc(1, nasty);
    const text = r.render();
    expect(text).toContain('odd_total{v="a\\\\b\\"c\\nd"} 1');
    expect(text).toContain('# HELP odd_total Help with \\\\ and\\nnewline.');
    const parsed = parseExposition(text);
    expect(samplesOf(parsed, 'odd_total')[0]?.labels.v).toBe(nasty);
    expect(parsed.help.get('odd_total')).toBe('Help with \\ and\nnewline.');
    expect(escapeLabelValue('plain')).toBe('plain');
  });

  it('renders histograms as cumulative _bucket series ending at le="+Inf", with _sum and _count', () => {
    const r = new PrometheusRegistry();
    const h = r.histogram('latency_ms', 'Latency.', ['op'], [10, 0, 5]);
    for (const v of [0, 3, 5, 7, 10, 11, 1000]) h.observe(v, 'read');
    const parsed = parseExposition(r.render());
    expect(parsed.types.get('latency_ms')).toBe('histogram');
    const buckets = samplesOf(parsed, 'latency_ms_bucket');
    expect(buckets.map((b) => [b.labels.le, b.value])).toEqual([
      ['0', 1],
      ['5', 3],
      ['10', 5],
      ['+Inf', 7],
    ]);
    expect(buckets.every((b) => b.labels.op === 'read')).toBe(true);
    expect(samplesOf(parsed, 'latency_ms_sum')[0]?.value).toBe(1036);
    expect(samplesOf(parsed, 'latency_ms_count')[0]?.value).toBe(7);
    const values = buckets.map((b) => b.value);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
  });

  it('puts bucket bounds in the +Inf bucket only when above every bound (upper bounds inclusive)', () => {
    const r = new PrometheusRegistry();
    const h = r.histogram('h', 'H.', [], [1]);
    h.observe(1);
    h.observe(1.0001);
    const buckets = samplesOf(parseExposition(r.render()), 'h_bucket');
    expect(buckets.map((b) => b.value)).toEqual([1, 2]);
  });

  it('renders unlabelled counters at zero before anything is counted', () => {
    const r = new PrometheusRegistry();
    r.counter('errors_total', 'Errors.');
    r.counter('by_kind_total', 'By kind.', ['kind']);
    const parsed = parseExposition(r.render());
    expect(samplesOf(parsed, 'errors_total')).toEqual([
      { name: 'errors_total', labels: {}, value: 0 },
    ]);
    expect(samplesOf(parsed, 'by_kind_total')).toEqual([]);
  });

  it('adds constant labels to every series', () => {
    const r = new PrometheusRegistry();
    r.counter('c_total', 'C.', ['a'], { constLabels: { otel_scope_name: 'scope' } }).inc(1, 'x');
    r.histogram('h', 'H.', [], [1], { constLabels: { otel_scope_name: 'scope' } }).observe(0);
    const parsed = parseExposition(r.render());
    expect(samplesOf(parsed, 'c_total')[0]?.labels).toEqual({ a: 'x', otel_scope_name: 'scope' });
    for (const s of [...samplesOf(parsed, 'h_bucket'), ...samplesOf(parsed, 'h_sum')]) {
      expect(s.labels.otel_scope_name).toBe('scope');
    }
  });

  it('renders metrics sharing a name under one header, with their own label sets', () => {
    const r = new PrometheusRegistry();
    r.counter('results_total', 'Results.', ['value', 'type']).inc(1, 'true', 'boolean');
    r.counter('results_total', 'Results.', ['match', 'type']).inc(1, 'false', 'variant');
    const text = r.render();
    expect(text.match(/# TYPE results_total/g)).toHaveLength(1);
    expect(samplesOf(parseExposition(text), 'results_total').map((s) => s.labels)).toEqual([
      { value: 'true', type: 'boolean' },
      { match: 'false', type: 'variant' },
    ]);
    expect(() => r.gauge('results_total', 'x')).toThrow(/already registered as a counter/);
  });

  it('folds label sets beyond the cap into one "other" series', () => {
    const r = new PrometheusRegistry({ maxSeries: 3 });
    const c = r.counter('flags_total', 'Flags.', ['namespace', 'flag']);
    for (let i = 0; i < 10; i++) c.inc(1, 'ns', `flag-${i}`);
    c.inc(5, 'ns', 'flag-0');
    const samples = samplesOf(parseExposition(r.render()), 'flags_total');
    expect(samples).toHaveLength(4);
    expect(samples.slice(0, 3).map((s) => [s.labels.flag, s.value])).toEqual([
      ['flag-0', 6],
      ['flag-1', 1],
      ['flag-2', 1],
    ]);
    expect(samples[3]).toEqual({
      name: 'flags_total',
      labels: { namespace: OVERFLOW_LABEL_VALUE, flag: OVERFLOW_LABEL_VALUE },
      value: 7,
    });
    expect(c.size).toBe(4);
  });

  it('does not grow once the cap is reached, however many new label sets arrive', () => {
    const r = new PrometheusRegistry({ maxSeries: 2 });
    const h = r.histogram('h', 'H.', ['k'], [1]);
    for (let i = 0; i < 1000; i++) h.observe(0.5, `k${i}`);
    expect(h.size).toBe(3);
  });

  it('samples collectors at render time and leaves a failing collector out', () => {
    const r = new PrometheusRegistry();
    let n = 0;
    r.collected('ticks', 'Ticks.', 'gauge', ['k'], () => [{ labels: ['a'], value: ++n }]);
    r.collected('broken', 'Broken.', 'gauge', [], () => {
      throw new Error('boom');
    });
    expect(samplesOf(parseExposition(r.render()), 'ticks')[0]?.value).toBe(1);
    const second = parseExposition(r.render());
    expect(samplesOf(second, 'ticks')[0]?.value).toBe(2);
    expect(second.types.has('broken')).toBe(false);
  });

  it('formats special values as Prometheus expects', () => {
    const r = new PrometheusRegistry();
    const g = r.gauge('g', 'G.', ['k']);
    g.set(Infinity, 'inf');
    g.set(-Infinity, 'ninf');
    g.set(NaN, 'nan');
    g.set(1e21, 'big');
    g.set(0.000001, 'small');
    const text = r.render();
    expect(text).toContain('g{k="inf"} +Inf');
    expect(text).toContain('g{k="ninf"} -Inf');
    expect(text).toContain('g{k="nan"} NaN');
    const parsed = parseExposition(text);
    expect(samplesOf(parsed, 'g').find((s) => s.labels.k === 'big')?.value).toBe(1e21);
    expect(samplesOf(parsed, 'g').find((s) => s.labels.k === 'small')?.value).toBe(0.000001);
  });

  it('refuses invalid metric and label names and a wrong number of label values', () => {
    const r = new PrometheusRegistry();
    expect(() => r.counter('bad-name', 'x')).toThrow(/invalid metric name/);
    expect(() => r.counter('ok_total', 'x', ['__reserved'])).toThrow(/invalid label name/);
    expect(() => r.histogram('h2', 'x', ['le'], [1])).toThrow(/reserved/);
    const c = r.counter('two_total', 'x', ['a', 'b']);
    expect(() => c.labels('only-one')).toThrow(/takes 2 label values/);
  });
});
