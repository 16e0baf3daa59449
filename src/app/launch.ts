import { setFlagsFromString } from 'node:v8';
import { isSea } from 'node:sea';

/*
 * Imported first by the entry point, for its effect. Vexil's V8 flags (docs/operations.md,
 * "Running") are given on node's command line everywhere but in the single executable, which
 * takes no node options on its command line. It sets at start those V8 reads as it goes; the
 * semi-space size is fixed when the heap is made and the V8 thread pool when Node starts, so
 * they come from NODE_OPTIONS (NODE_OPTIONS="--max-semi-space-size=4 --v8-pool-size=1", as the
 * container image sets it).
 */
export const RUNTIME_V8_FLAGS = [
  '--max-inlined-bytecode-size-cumulative=3000',
  '--no-memory-reducer',
  '--heap-growing-percent=100',
];

if (isSea()) for (const flag of RUNTIME_V8_FLAGS) setFlagsFromString(flag);
