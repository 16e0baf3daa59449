#!/usr/bin/env -S node --max-semi-space-size=4 --max-inlined-bytecode-size-cumulative=3000 --no-memory-reducer
import { createLogger } from '../adapters/telemetry/logging';
import { currentTraceId } from '../adapters/telemetry/tracing';
import { parseCliArgs, USAGE, UsageError, type CliArgs } from './cli-args';
import {
  ConfigError,
  loadConfig,
  redactedConfig,
  renderConfigurationTable,
  unknownEnvironmentNames,
  type VexilConfig,
} from './config';
import { startVexil } from './container';
import { openStorage } from './storage';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const VERSION: string = (require('../../../package.json') as { version: string }).version;

const fail = (message: string): never => {
  process.stderr.write(`vexil: ${message}\n`);
  process.exit(1);
};

function logging(config: VexilConfig) {
  const encoding =
    config.log.encoding === 'auto'
      ? process.stdout.isTTY
        ? 'console'
        : 'json'
      : config.log.encoding;
  return createLogger({ level: config.log.level, encoding, traceId: currentTraceId });
}

async function serve(config: VexilConfig): Promise<void> {
  const logger = logging(config);
  for (const name of unknownEnvironmentNames()) {
    logger.warn('environment variable matches no configuration key', { name });
  }
  const server = await startVexil({
    config,
    logger,
    version: VERSION,
    openStorage: () => openStorage(config, logger),
  });
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      logger.warn('second signal, exiting now', { signal });
      process.exit(1);
    }
    logger.info('shutting down', { signal });
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('shutdown failed', { error: err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function migrate(config: VexilConfig): Promise<void> {
  const logger = logging(config);
  const storage = await openStorage(config, logger);
  await storage.close();
  logger.info('database is up to date');
}

async function main(args: CliArgs): Promise<void> {
  if (args.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (args.version) {
    process.stdout.write(`vexil ${VERSION}\n`);
    return;
  }
  const command = args.command ?? 'serve';
  if (command === 'config-reference') {
    process.stdout.write(`${renderConfigurationTable()}\n`);
    return;
  }
  if (!['serve', 'migrate', 'config'].includes(command)) {
    throw new UsageError(`unknown command "${command}" (see vexil --help)`);
  }
  const config = loadConfig({ file: args.configFile, flags: args.flags, env: process.env });
  if (command === 'config') {
    process.stdout.write(`${JSON.stringify(redactedConfig(config), null, 2)}\n`);
  } else if (command === 'migrate') {
    await migrate(config);
  } else {
    await serve(config);
  }
}

let args: CliArgs;
try {
  args = parseCliArgs(process.argv.slice(2));
} catch (err) {
  fail(`${(err as Error).message}\n\n${USAGE}`);
}
main(args!).catch((err: unknown) => {
  if (err instanceof ConfigError) fail(`configuration error: ${err.message}`);
  if (err instanceof UsageError) fail(err.message);
  fail(err instanceof Error ? err.message : String(err));
});
