import { createLogger } from '../../adapters/telemetry/logging';
import {
  redactedConfig,
  renderConfigurationTable,
  unknownEnvironmentNames,
  type VexilConfig,
} from '../config';
import { openStorage } from '../storage';
import type { CliContext, CommandDefinition } from './program';
import { TRANSFER_COMMANDS } from './transfer-commands';

function logging(config: VexilConfig, traceId?: () => string | undefined) {
  const encoding =
    config.log.encoding === 'auto'
      ? process.stdout.isTTY
        ? 'console'
        : 'json'
      : config.log.encoding;
  return createLogger({ level: config.log.level, encoding, ...(traceId ? { traceId } : {}) });
}

async function serve(context: CliContext): Promise<void> {
  const { config, warnings } = context.loadConfigWithSources();
  // The server's modules (HTTP, gRPC, telemetry) load only for serve: the other commands start faster.
  const [{ startVexil }, { currentTraceId }] = await Promise.all([
    import('../container'),
    import('../../adapters/telemetry/tracing'),
  ]);
  const logger = logging(config, currentTraceId);
  for (const name of unknownEnvironmentNames(context.env)) {
    logger.warn('environment variable matches no configuration key', { name });
  }
  for (const warning of warnings) logger.warn(`configuration: ${warning}`);
  const server = await startVexil({
    config,
    logger,
    version: context.version,
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
  // Start-up retries while the database is unreachable; it gives up only on what waiting
  // cannot cure (the database does not exist), which the container has logged.
  server.ready.catch(() => {
    if (signals > 0) return;
    void server.stop().finally(() => process.exit(1));
  });
}

async function migrate(context: CliContext): Promise<void> {
  const { config, warnings } = context.loadConfigWithSources();
  const logger = logging(config);
  for (const warning of warnings) logger.warn(`configuration: ${warning}`);
  const storage = await openStorage(config, logger);
  await storage.close();
  logger.info('database is up to date');
}

/** serve, migrate, config, config-reference, and validate, import and export. */
export const COMMANDS: readonly CommandDefinition[] = [
  (program, context) =>
    program
      .command('serve')
      .description('serve HTTP and gRPC (the default command)')
      .action(() => serve(context)),
  (program, context) =>
    program
      .command('migrate')
      .description('apply the database migrations and exit')
      .action(() => migrate(context)),
  (program, context) =>
    program
      .command('config')
      .description('print the effective configuration (passwords masked) and exit')
      .action(() => {
        const { config, warnings } = context.loadConfigWithSources();
        for (const w of warnings) context.stderr.write(`vexil: configuration: ${w}\n`);
        const printable = redactedConfig(config);
        context.stdout.write(`${JSON.stringify(printable, null, 2)}\n`);
      }),
  (program, context) =>
    program
      .command('config-reference')
      .description('print the table of every configuration key (docs/configuration.md)')
      .action(() => {
        context.stdout.write(`${renderConfigurationTable()}\n`);
      }),
  ...TRANSFER_COMMANDS,
];
