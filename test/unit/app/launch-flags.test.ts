import { readFileSync } from 'node:fs';
import path from 'node:path';
import { VEXIL_NODE_FLAGS } from '../../../bench/http/processes';

/*
 * Vexil's V8 flags (docs/operations.md, "Running") are given by each way of starting it: the
 * `vexil` command's shebang, `npm start` and the container image; the benchmarks start it with
 * VEXIL_NODE_FLAGS. They must not drift apart.
 */
const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const flagsIn = (words: readonly string[]): string[] => words.filter((w) => w.startsWith('--'));

describe('the V8 flags Vexil is started with', () => {
  it('are the benchmarks’ flags: the young generation capped, a larger inlining budget, no memory reducer', () => {
    expect(VEXIL_NODE_FLAGS).toEqual([
      '--max-semi-space-size=4',
      '--max-inlined-bytecode-size-cumulative=3000',
      '--no-memory-reducer',
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

  it('are given by the container image’s entry point', () => {
    const line = read('Dockerfile')
      .split('\n')
      .find((l) => l.startsWith('ENTRYPOINT '));
    const words = JSON.parse((line ?? 'ENTRYPOINT []').slice('ENTRYPOINT '.length)) as string[];
    expect(words[0]).toBe('node');
    expect(flagsIn(words)).toEqual(VEXIL_NODE_FLAGS);
    expect(words.at(-1)).toBe('dist/src/app/cli.js');
  });
});
