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
  (await import('../event-loop-report')).startEventLoopReport(context.env);
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

/**
 * GET over HTTPS without checking the certificate: for the local health check only, whose
 * certificate names the server's public host rather than the loopback address, and which
 * sends no secret.
 */
async function unverifiedGet(target: string): Promise<{ status: number; text: string }> {
  const { get } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = get(target, { rejectUnauthorized: false, timeout: 3000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/** Asks a running server for /health; resolves when it is SERVING, throws otherwise. */
async function health(context: CliContext, url: string | undefined): Promise<void> {
  let target = url;
  let local = false;
  if (target === undefined) {
    const { server } = context.loadConfig();
    local = server.protocol === 'https';
    target = local
      ? `https://${localAddress(server.host)}:${server.https_port}/health`
      : `http://${localAddress(server.host)}:${server.http_port}/health`;
  }
  let answer: { status: number; text: string };
  try {
    if (local) answer = await unverifiedGet(target);
    else {
      const res = await fetch(target, { signal: AbortSignal.timeout(3000) });
      answer = { status: res.status, text: await res.text() };
    }
  } catch (err) {
    const cause = ((err as { cause?: unknown }).cause ?? err) as {
      code?: string;
      message?: string;
    };
    throw new Error(`${target}: ${cause.code ?? cause.message ?? (err as Error).message}`, {
      cause: err,
    });
  }
  let body: { status?: string; detail?: string } = {};
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    // Not JSON: the HTTP status is reported instead.
  }
  const status = body.status ?? `HTTP ${answer.status}`;
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
      .option(
        '--show-origin',
        'print each value with where it came from (default, file, env VEXIL_*/FLIPT_*, flag)',
      )
      .action(async (options: { showOrigin?: boolean }) => {
        const { describeOrigin, redactedConfig } = await import('../config');
        const { config, warnings, origins } = context.loadConfigWithSources();
        for (const w of warnings) context.stderr.write(`vexil: configuration: ${w}\n`);
        const printable: Record<string, unknown> = redactedConfig(config);
        if (options.showOrigin === true) {
          for (const [path, value] of Object.entries(printable)) {
            const origin = origins.get(path) ?? { source: 'default' as const };
            printable[path] = { value, from: describeOrigin(path, origin) };
          }
        }
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
