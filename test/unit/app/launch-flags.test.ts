import { readFileSync } from 'node:fs';
import path from 'node:path';
import { VEXIL_NODE_FLAGS } from '../../../bench/http/processes';
import { RUNTIME_V8_FLAGS } from '../../../src/app/launch';

/*
 * Vexil's V8 flags (docs/operations.md, "Running") are given by each way of starting it: the
 * `vexil` command's shebang, `npm start`, the single executable and the container image; the
 * benchmarks start it with VEXIL_NODE_FLAGS. They must not drift apart.
 */
const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const flagsIn = (words: readonly string[]): string[] => words.filter((w) => w.startsWith('--'));

describe('the V8 flags Vexil is started with', () => {
  it('are the benchmarks’ flags: the young generation capped, a larger inlining budget, no memory reducer, the old generation let grow to twice its live size, one V8 background thread', () => {
    expect(VEXIL_NODE_FLAGS).toEqual([
      '--max-semi-space-size=4',
      '--max-inlined-bytecode-size-cumulative=3000',
      '--no-memory-reducer',
      '--heap-growing-percent=100',
      '--v8-pool-size=1',
    ]);
  });

  it('are given by the vexil command’s shebang', () => {
    const shebang = read('src/app/cli.ts').split('\n')[0] ?? '';
    expect(shebang).toBe(`#!/usr/bin/env -S node ${VEXIL_NODE_FLAGS.join(' ')}`);
  });

  it('are given by npm start', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const words = (pkg.scripts['start'] ?? '').split(/\s+/);
    expect(words[0]).toBe('node');
    expect(flagsIn(words)).toEqual(VEXIL_NODE_FLAGS);
  });

  /** Fixed before any code runs: the heap's semi-space size, and Node's V8 thread pool. */
  const atStartOnly = (f: string): boolean =>
    f.startsWith('--max-semi-space-size=') || f.startsWith('--v8-pool-size=');

  it('are set by the single executable at start, but for those fixed before it runs', () => {
    expect(RUNTIME_V8_FLAGS).toEqual(VEXIL_NODE_FLAGS.filter((f) => !atStartOnly(f)));
  });

  it('are given to the container image’s executable: those fixed before it runs through NODE_OPTIONS', () => {
    const dockerfile = read('Dockerfile');
    const entry = dockerfile.split('\n').find((l) => l.startsWith('ENTRYPOINT '));
    expect(JSON.parse((entry ?? 'ENTRYPOINT []').slice('ENTRYPOINT '.length))).toEqual(['vexil']);
    const options = /NODE_OPTIONS="([^"]*)"/.exec(dockerfile)?.[1]?.split(' ');
    expect(options).toEqual(VEXIL_NODE_FLAGS.filter(atStartOnly));
  });
});
