import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatDocumentStream } from '../../src/adapters/yaml/document-text';
import { benchmarkDocument } from './generate';

/*
 * Import and export speed (issue 22, point 9): 10 000 flags with 5 rules each import in under
 * 10 s on SQLite, export in under 3 s, and no process goes above 500 MB.
 *
 * Runs the real CLI in fresh processes, each ROUNDS times:
 *   validate  the same document read and checked without a database (the baseline: process
 *             start, YAML parsing and the checks every import makes),
 *   import    into a new SQLite file (migrations included), one transaction,
 *   export    of that file to YAML.
 * Prints wall times (min of the rounds), peak RSS, and each time as a ratio of the baseline.
 *   npm run bench:import-export        (BENCH_FLAGS=1000 for a quick run)
 */

const FLAGS = Number(process.env['BENCH_FLAGS'] ?? 10_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const TARGETS = { importMs: 10_000, exportMs: 3_000, rssMb: 500 };
const CLI = resolve(__dirname, '../../src/app/cli.js');
const USAGE = resolve(__dirname, '../../../bench/import-export/report-usage.js');

interface Run {
  readonly ms: number;
  /** CPU time of the process (user + system): much less moved by other load than wall time. */
  readonly cpuMs: number;
  readonly rssMb: number;
}

function measure(args: readonly string[], env: Record<string, string>): Run {
  const started = performance.now();
  const out = spawnSync(process.execPath, ['--require', USAGE, CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  if (out.status !== 0) {
    throw new Error(`vexil ${args.join(' ')} exited ${out.status}:\n${out.stderr}`);
  }
  const kb = Number(/BENCH_MAX_RSS_KB=(\d+)/.exec(out.stderr)?.[1] ?? NaN);
  const cpu = Number(/BENCH_CPU_US=(\d+)/.exec(out.stderr)?.[1] ?? NaN);
  return { ms, cpuMs: cpu / 1000, rssMb: kb / 1024 };
}

const best = (runs: readonly Run[]): Run => ({
  ms: Math.min(...runs.map((r) => r.ms)),
  cpuMs: Math.min(...runs.map((r) => r.cpuMs)),
  rssMb: Math.max(...runs.map((r) => r.rssMb)),
});

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'vexil-bench-transfer-'));
  try {
    const document = join(dir, 'flags.yaml');
    writeFileSync(document, formatDocumentStream([benchmarkDocument(FLAGS)], 'yaml'));
    console.log(
      `load average at start: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const rows = { flags: FLAGS, rules: FLAGS * 5, distributions: FLAGS * 10 };
    console.log(
      `document: ${rows.flags} flags, ${rows.rules} rules, ${rows.distributions} distributions, ` +
        `${(statSync(document).size / 1024 / 1024).toFixed(1)} MB of YAML`,
    );
    const validate: Run[] = [];
    const imports: Run[] = [];
    const exports: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      validate.push(measure(['validate', document], {}));
      const db = join(dir, `round-${round}.db`);
      const env = { VEXIL_DB_URL: `file:${db}`, VEXIL_LOG_LEVEL: 'warn' };
      imports.push(measure(['import', document], env));
      exports.push(measure(['export', '-o', join(dir, `round-${round}.yaml`)], env));
    }
    const base = best(validate);
    const report = (name: string, runs: readonly Run[], targetMs?: number) => {
      const b = best(runs);
      console.log(
        `${name.padEnd(9)} ${b.ms.toFixed(0).padStart(6)} ms  ${(b.ms / base.ms).toFixed(2).padStart(5)}x baseline` +
          `  CPU ${b.cpuMs.toFixed(0).padStart(6)} ms (${(b.cpuMs / base.cpuMs).toFixed(2)}x)` +
          `  peak RSS ${b.rssMb.toFixed(0)} MB` +
          (targetMs === undefined
            ? ''
            : `  target < ${targetMs} ms: ${b.ms < targetMs ? 'met' : 'MISSED'}`) +
          `  (rounds: ${runs.map((r) => r.ms.toFixed(0)).join(', ')})`,
      );
      return b;
    };
    report('validate', validate);
    const i = report('import', imports, TARGETS.importMs);
    const e = report('export', exports, TARGETS.exportMs);
    console.log(
      `load average at end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const rss = Math.max(base.rssMb, i.rssMb, e.rssMb);
    console.log(
      `peak RSS of any process: ${rss.toFixed(0)} MB, target < ${TARGETS.rssMb} MB: ${rss < TARGETS.rssMb ? 'met' : 'MISSED'}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
