import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { LruSnapshotCache } from '../../src/adapters/cache/lru-snapshot-cache';
import { IntervalScheduler } from '../../src/adapters/cache/interval-scheduler';
import { createDataSource } from '../../src/adapters/storage/typeorm/data-source';
import { SqlStorage } from '../../src/adapters/storage/typeorm/sql-storage';
import { RandomIdGenerator, SystemClock } from '../../src/adapters/system';
import { compileNamespace, evaluateVariant } from '../../src/domain/evaluation';
import { NamespaceSnapshots } from '../../src/domain/services/evaluation';
import { NAMESPACE } from './seed';

/*
 * One serving process, started fresh by run.ts: it loads the scale namespace from SQLite through
 * the SQL storage's evaluation source into NamespaceSnapshots, as the evaluation service does on the first request,
 * and reports what the process then holds. Mode `notified` is caching off; `memory` is
 * `caching.backend: memory`, where the serialized snapshot also stays in the LRU.
 *   node --expose-gc dist/bench/scale/serve.js <sqlite path> <notified|memory>
 */

const [path, mode = 'notified'] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: serve.js <sqlite path> <notified|memory>');

const gc = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** Peak and current resident set of this process, from the kernel. */
function procStatus(): { hwmMB: number; rssMB: number } {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string): number => Number(/(\d+)/.exec(text.split(`${field}:`)[1] ?? '')?.[1]);
  return { hwmMB: mb(kb('VmHWM') * 1024), rssMB: mb(kb('VmRSS') * 1024) };
}

async function main(): Promise<void> {
  const dataSource = createDataSource(`file:${path}`);
  await dataSource.initialize();
  const store = new SqlStorage(dataSource, {
    clock: new SystemClock(),
    ids: new RandomIdGenerator(),
  }).evaluationSource;
  const scheduler = new IntervalScheduler();
  let compileMs = NaN;
  const snapshots = new NamespaceSnapshots(store, {
    mode: mode === 'memory' ? 'cached' : 'notified',
    stopwatch: { nowMs: () => performance.now() },
    observer: {
      rebuilt: (_ns, ms) => {
        compileMs = ms;
      },
    },
    ...(mode === 'memory'
      ? {
          caching: {
            ttlMs: 60_000,
            scheduler,
            cache: new LruSnapshotCache({ maxEntries: 1000, maxBytes: 256 * 1024 * 1024 }),
          },
        }
      : {}),
  });
  gc?.();
  const before = process.memoryUsage();

  const started = performance.now();
  const snapshot = await snapshots.get(NAMESPACE);
  const loadAndCompileMs = performance.now() - started;
  if (snapshot === undefined) throw new Error(`namespace ${NAMESPACE} not found`);
  // The cache write in 'cached' mode is asynchronous: let it land before measuring.
  await new Promise((resolve) => setTimeout(resolve, 50));

  // The first evaluation of a flag must not pay for deferred work.
  const flags = snapshot.data.flags.length;
  const evalStarted = performance.now();
  for (let f = 0; f < flags; f += 97) {
    evaluateVariant(snapshot.compiled, {
      flagKey: `flag-${f}`,
      entityId: `user-${f}`,
      context: { plan: `p${f % 50}`, age: '30' },
    });
  }
  const firstEvaluationsUs = ((performance.now() - evalStarted) * 1000) / Math.ceil(flags / 97);

  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc?.();
  const held = process.memoryUsage();
  const status = procStatus();

  // Recompiles of the same data, warm: what a refresh after a write costs.
  const times: number[] = [];
  for (let i = 0; i < 7; i += 1) {
    const t = performance.now();
    compileNamespace(snapshot.data);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);

  console.log(
    JSON.stringify({
      mode,
      flags,
      rules: snapshot.data.rules.length,
      loadAndCompileMs: Math.round(loadAndCompileMs),
      compileFirstMs: Math.round(compileMs),
      compileWarmMedianMs: Math.round(times[3] ?? NaN),
      firstEvaluationUs: Math.round(firstEvaluationsUs * 10) / 10,
      rssMB: status.rssMB,
      peakRssMB: status.hwmMB,
      heapUsedMB: mb(held.heapUsed),
      heapHeldByNamespaceMB: mb(held.heapUsed - before.heapUsed),
      externalMB: mb(held.external),
      baselineRssMB: mb(before.rss),
    }),
  );
  snapshots.close();
  await dataSource.destroy();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
