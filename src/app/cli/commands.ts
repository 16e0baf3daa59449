import type { VexilConfig } from '../config';
import type { CliContext, CommandDefinition } from './program';
import { TRANSFER_COMMANDS } from './transfer-commands';

/*
 * Each command loads what it needs when it runs (the server, storage, telemetry, the
 * configuration schema), so that --version and help answer at once.
 */

async function logging(config: VexilConfig, traceId?: () => string | undefined) {
  const { createLogger } = await import('../../adapters/telemetry/logging');
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
  const [{ startVexil }, { currentTraceId }, { openStorage }, { unknownEnvironmentNames }] =
    await Promise.all([
      import('../container'),
      import('../../adapters/telemetry/tracing'),
      import('../storage'),
      import('../config'),
    ]);
  const logger = await logging(config, currentTraceId);
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
  const logger = await logging(config);
  const { openStorage } = await import('../storage');
  for (const warning of warnings) logger.warn(`configuration: ${warning}`);
  const storage = await openStorage(config, logger);
  await storage.close();
  logger.info('database is up to date');
}

/** The address a local client reaches a listener bound to `host` at. */
function localAddress(host: string): string {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Asks a running server for /health; resolves when it is SERVING, throws otherwise. */
async function health(context: CliContext, url: string | undefined): Promise<void> {
  let target = url;
  if (target === undefined) {
    const { server } = context.loadConfig();
    target = `http://${localAddress(server.host)}:${server.http_port}/health`;
  }
  let res: Response;
  try {
    res = await fetch(target, { signal: AbortSignal.timeout(3000) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`${target}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, {
      cause: err,
    });
  }
  const body = (await res.json().catch(() => ({}))) as { status?: string; detail?: string };
  const status = body.status ?? `HTTP ${res.status}`;
  context.stdout.write(`${status}${body.detail ? `: ${body.detail}` : ''}\n`);
  if (status !== 'SERVING') throw new Error(`${target}: ${status}`);
}

/** serve, migrate, config, config-reference, health, and validate, import and export. */
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
      .action(async () => {
        const { redactedConfig } = await import('../config');
        const { config, warnings } = context.loadConfigWithSources();
        for (const w of warnings) context.stderr.write(`vexil: configuration: ${w}\n`);
        const printable = redactedConfig(config);
        context.stdout.write(`${JSON.stringify(printable, null, 2)}\n`);
      }),
  (program, context) =>
    program
      .command('config-reference')
      .description('print the table of every configuration key (docs/configuration.md)')
      .action(async () => {
        const { renderConfigurationTable } = await import('../config');
        context.stdout.write(`${renderConfigurationTable()}\n`);
      }),
  (program, context) =>
    program
      .command('health')
      .description(
        "ask the server on this host for its health and exit 0 when it is SERVING (a container's health check)",
      )
      .option('--url <url>', 'the health URL (default: http://127.0.0.1:<server.http_port>/health)')
      .action((options: { url?: string }) => health(context, options.url)),
  ...TRANSFER_COMMANDS,
];
