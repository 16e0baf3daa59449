import { readdirSync, readFileSync } from 'node:fs';
import {
  constants as perfConstants,
  monitorEventLoopDelay,
  PerformanceObserver,
  type IntervalHistogram,
} from 'node:perf_hooks';
import type { PrometheusRegistry } from './prometheus-registry';

const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];

const GC_KINDS: Readonly<Record<number, string>> = {
  [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/** The `kind` label of a GC performance entry's `detail.kind` (node's perf_hooks constants). */
export const gcKindName = (kind: number | undefined): string => GC_KINDS[kind ?? 0] ?? 'unknown';

/**
 * Registers the usual process_* and nodejs_* metrics (names as prom-client uses them, so
 * stock Node.js dashboards work). Everything is read at scrape time except event-loop
 * delay and, with `gcDuration`, GC pauses, which need a sampler; the returned function
 * stops those.
 *
 * GC pauses are opt-in because node delivers each collection to a PerformanceObserver
 * through two immediates and a freshly built entry: with the young generation capped at
 * 4 MB, a server under load collects over a hundred times a second, and observing that cost
 * 2 to 3 % of its throughput (docs/performance.md, "Ninth pass"). Long pauses still show in
 * the event-loop delay figures.
 */
export function registerProcessMetrics(
  registry: PrometheusRegistry,
  options: { readonly gcDuration?: boolean } = {},
): () => void {
  const startTimeSeconds = Math.round((Date.now() - process.uptime() * 1000) / 1000);
  const one = (value: number) => [{ labels: [], value }];

  registry.collected(
    'process_cpu_user_seconds_total',
    'Total user CPU time spent in seconds.',
    'counter',
    [],
    () => one(process.cpuUsage().user / 1e6),
  );
  registry.collected(
    'process_cpu_system_seconds_total',
    'Total system CPU time spent in seconds.',
    'counter',
    [],
    () => one(process.cpuUsage().system / 1e6),
  );
  registry.collected(
    'process_cpu_seconds_total',
    'Total user and system CPU time spent in seconds.',
    'counter',
    [],
    () => {
      const cpu = process.cpuUsage();
      return one((cpu.user + cpu.system) / 1e6);
    },
  );
  registry.collected(
    'process_start_time_seconds',
    'Start time of the process since unix epoch in seconds.',
    'gauge',
    [],
    () => one(startTimeSeconds),
  );
  registry.collected(
    'process_resident_memory_bytes',
    'Resident memory size in bytes.',
    'gauge',
    [],
    () => one(process.memoryUsage.rss()),
  );
  if (process.platform === 'linux') {
    const maxFds = readMaxFds();
    registry.collected('process_open_fds', 'Number of open file descriptors.', 'gauge', [], () =>
      one(readdirSync('/proc/self/fd').length - 1),
    );
    if (maxFds !== undefined) {
      registry.collected(
        'process_max_fds',
        'Maximum number of open file descriptors.',
        'gauge',
        [],
        () => one(maxFds),
      );
    }
  }

  registry.collected(
    'nodejs_heap_size_total_bytes',
    'Process heap size from Node.js in bytes.',
    'gauge',
    [],
    () => one(process.memoryUsage().heapTotal),
  );
  registry.collected(
    'nodejs_heap_size_used_bytes',
    'Process heap size used from Node.js in bytes.',
    'gauge',
    [],
    () => one(process.memoryUsage().heapUsed),
  );
  registry.collected(
    'nodejs_external_memory_bytes',
    'Node.js external memory size in bytes.',
    'gauge',
    [],
    () => one(process.memoryUsage().external),
  );
  registry.collected(
    'nodejs_active_resources_total',
    'Number of active resources keeping the event loop alive.',
    'gauge',
    [],
    () => one(process.getActiveResourcesInfo().length),
  );
  const [major = '0', minor = '0', patch = '0'] = process.versions.node.split('.');
  registry.collected(
    'nodejs_version_info',
    'Node.js version info.',
    'gauge',
    ['version', 'major', 'minor', 'patch'],
    () => [{ labels: [process.version, major, minor, patch], value: 1 }],
  );

  const delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const delaySeconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
  registry.collected(
    'nodejs_eventloop_lag_seconds',
    'Mean event loop delay in seconds since the previous scrape.',
    'gauge',
    [],
    () => {
      const value = delay.count > 0 ? delaySeconds(delay.mean) : 0;
      return one(value);
    },
  );
  registry.collected(
    'nodejs_eventloop_lag_p99_seconds',
    'The 99th percentile of event loop delay in seconds since the previous scrape.',
    'gauge',
    [],
    () => {
      const value = delay.count > 0 ? delaySeconds(delay.percentile(99)) : 0;
      return one(value);
    },
  );
  registry.collected(
    'nodejs_eventloop_lag_max_seconds',
    'Maximum event loop delay in seconds since the previous scrape.',
    'gauge',
    [],
    () => {
      const value = delay.count > 0 ? delaySeconds(delay.max) : 0;
      // The window restarts at each scrape so the figures describe the last interval.
      delay.reset();
      return one(value);
    },
  );

  const stopGc = options.gcDuration === true ? observeGcDurations(registry) : undefined;
  return () => {
    delay.disable();
    stopGc?.();
  };
}

function observeGcDurations(registry: PrometheusRegistry): () => void {
  const gc = registry.histogram(
    'nodejs_gc_duration_seconds',
    'Garbage collection duration by kind.',
    ['kind'],
    GC_BUCKETS,
  );
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as { detail?: { kind?: number } }).detail;
      gc.observe(entry.duration / 1000, gcKindName(detail?.kind));
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

function readMaxFds(): number | undefined {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const match = /Max open files\s+(\d+)/.exec(limits);
    return match?.[1] === undefined ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}
