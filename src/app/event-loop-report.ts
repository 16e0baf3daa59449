import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * For benchmarks only (bench/writes): with BENCH_EVENT_LOOP_MS set, the serving process writes
 * a JSON line to stdout at that interval with the longest event-loop delay seen since the last
 * line and the resident set size, so a benchmark can tell how long a single piece of work held
 * the loop while it measured. Not a configuration key: nothing in a deployment should depend on it.
 */
export function startEventLoopReport(env: NodeJS.ProcessEnv): void {
  const intervalMs = Number(env['BENCH_EVENT_LOOP_MS'] ?? '');
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) return;
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const timer = setInterval(() => {
    const line = {
      benchEventLoop: true,
      maxDelayMs: Math.round((histogram.max / 1e6) * 10) / 10,
      p99DelayMs: Math.round((histogram.percentile(99) / 1e6) * 10) / 10,
      rssMB: Math.round(process.memoryUsage.rss() / 1024 / 1024),
    };
    histogram.reset();
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }, intervalMs);
  timer.unref();
}
