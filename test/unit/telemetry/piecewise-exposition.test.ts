import { Counter, Registry, type Metric } from 'prom-client';
import {
  AccumulatedCounter,
  AccumulatedHistogram,
  type Accumulated,
} from '../../../src/adapters/telemetry/accumulated-metrics';
import { createMetrics } from '../../../src/adapters/telemetry/metrics';
import { piecewiseExposition } from '../../../src/adapters/telemetry/piecewise-exposition';
import { parseExposition, samplesOf } from './exposition-parser';

/*
 * The per-flag series are written a few thousand lines at a time, with turns of the event loop
 * in between: the text must be exactly what prom-client writes for the same values in one go.
 */

/** prom-client's text for the whole of `metric` at once. */
async function whole(metric: Accumulated): Promise<string> {
  const [all] = [...metric.pieces(Number.MAX_SAFE_INTEGER)];
  const registry = new Registry();
  registry.registerMetric({ ...all, get: () => Promise.resolve(all) } as unknown as Metric);
  return registry.getSingleMetricAsString(metric.name);
}

async function collect(pieces: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of pieces) out.push(piece);
  return out;
}

describe('metrics written in pieces', () => {
  const registry = new Registry();
  new Counter({ name: 'other_total', help: 'a prom-client counter', registers: [registry] }).inc(3);
  const latency = new AccumulatedHistogram('latency_ms', 'per "flag"\nlatency', [1, 5, 10]);
  const requests = new AccumulatedCounter('requests_total', 'per flag \\ requests');
  const unused = new AccumulatedCounter('unused_total', 'never touched');
  // Label values that need escaping, and more values than one piece holds.
  for (let i = 0; i < 1500; i++) {
    const labels = { namespace: 'ns', flag: `f${i} "q" \\ \n` };
    const h = latency.series(labels);
    h.observe(i % 12);
    h.observe(0.5);
    requests.series(labels).value = i;
  }
  const metrics = [latency, requests, unused];

  it('is the text prom-client writes for the same values at once', async () => {
    const pieces = await collect(piecewiseExposition(registry, metrics));
    const expected =
      (await registry.metrics()).replace(/\n$/, '') +
      '\n\n' +
      (await whole(latency)) +
      '\n\n' +
      (await whole(requests)) +
      '\n\n' +
      (await whole(unused)) +
      '\n';
    expect(pieces.join('')).toBe(expected);
    // 1 500 series of 7 values make several pieces.
    expect(pieces.length).toBeGreaterThan(6);
    const parsed = parseExposition(pieces.join(''));
    expect(samplesOf(parsed, 'requests_total')).toHaveLength(1500);
    expect(samplesOf(parsed, 'latency_ms_count')[1499]?.labels.flag).toBe('f1499 "q" \\ \n');
    expect(parsed.types.get('unused_total')).toBe('counter');
  });

  it('lets other work run between pieces', async () => {
    let turns = 0;
    let done = false;
    const tick = (): void => {
      turns += 1;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    await collect(piecewiseExposition(registry, metrics));
    done = true;
    expect(turns).toBeGreaterThan(5);
  });

  it('is what the metrics adapter renders, whole or in pieces', async () => {
    const adapter = createMetrics({ enabled: true, processMetrics: false });
    for (let i = 0; i < 300; i++) {
      adapter.evaluated({ namespaceKey: 'ns', flagKey: `f${i}`, durationMs: 1 });
    }
    const text = await adapter.render();
    expect((await collect(adapter.renderPieces())).join('')).toBe(text);
    const parsed = parseExposition(text);
    expect(samplesOf(parsed, 'flipt_evaluations_requests_total')).toHaveLength(300);
    adapter.close();
  });
});
