#!/usr/bin/env -S node --max-semi-space-size=4 --max-inlined-bytecode-size-cumulative=3000 --no-memory-reducer --heap-growing-percent=100 --v8-pool-size=1
import './launch';
import { COMMANDS } from './cli/commands';
import { runCli } from './cli/program';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const VERSION: string = (require('../../../package.json') as { version: string }).version;

runCli(process.argv.slice(2), {
  version: VERSION,
  commands: COMMANDS,
  defaultCommand: 'serve',
}).then(
  (code) => {
    // serve keeps running on its listeners; every other command is done.
    if (code !== 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
