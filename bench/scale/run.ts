import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedScaleDatabase } from './seed';

/*
 * Scale (issue 6, point 5): one namespace of 10 000 variant flags with 5 rules each compiles in
 * at most 200 ms and a serving process holding it stays under 300 MB RSS.
 *
 * Seeds a SQLite file (seed.ts), then starts fresh processes (serve.ts) that load the namespace
 * through the SQL evaluation source into NamespaceSnapshots and compile it, as the first evaluation request
 * does, and report: the first (cold) compile, warm recompiles, RSS and peak RSS after a full GC.
 * Each mode runs ROUNDS times; min and max are printed.
 *   npm run build && node dist/bench/scale/run.js
 * SCALE_FLAGS changes the flag count; SCALE_DB reuses (or keeps) a seeded file.
 */

const FLAGS = Number(process.env['SCALE_FLAGS'] ?? 10_000);
const ROUNDS = Number(process.env['SCALE_ROUNDS'] ?? 3);
const MODES = ['notified', 'memory'] as const;
const TARGET_COMPILE_MS = 200;
const TARGET_RSS_MB = 300;

type Report = Record<string, number | string>;

async function main(): Promise<void> {
  const keep = process.env['SCALE_DB'];
  const dir = keep === undefined ? mkdtempSync(join(tmpdir(), 'vexil-scale-')) : undefined;
  const path = keep ?? join(dir as string, 'scale.db');
  try {
    if (!existsSync(path)) {
      const started = Date.now();
      await seedScaleDatabase(path, FLAGS);
      console.log(`seeded ${FLAGS} flags into ${path} in ${Date.now() - started} ms`);
    }
    for (const mode of MODES) {
      const reports: Report[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const out = execFileSync(
          process.execPath,
          ['--expose-gc', join(__dirname, 'serve.js'), path, mode],
          { encoding: 'utf8' },
        );
        reports.push(JSON.parse(out.trim().split('\n').pop() as string) as Report);
      }
      const range = (field: string): string => {
        const values = reports.map((r) => Number(r[field])).sort((a, b) => a - b);
        const lo = values[0];
        const hi = values[values.length - 1];
        return lo === hi ? String(lo) : `${lo}–${hi}`;
      };
      const worst = (field: string): number => Math.max(...reports.map((r) => Number(r[field])));
      console.log(
        JSON.stringify({
          mode,
          flags: reports[0]?.['flags'],
          rules: reports[0]?.['rules'],
          rounds: ROUNDS,
          loadAndCompileMs: range('loadAndCompileMs'),
          compileFirstMs: range('compileFirstMs'),
          compileWarmMedianMs: range('compileWarmMedianMs'),
          firstEvaluationUs: range('firstEvaluationUs'),
          rssMB: range('rssMB'),
          peakRssMB: range('peakRssMB'),
          heapHeldByNamespaceMB: range('heapHeldByNamespaceMB'),
          baselineRssMB: range('baselineRssMB'),
          targets: { compileMs: TARGET_COMPILE_MS, rssMB: TARGET_RSS_MB },
          pass: worst('compileFirstMs') <= TARGET_COMPILE_MS && worst('peakRssMB') < TARGET_RSS_MB,
        }),
      );
    }
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
