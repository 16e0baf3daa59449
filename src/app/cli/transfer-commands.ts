import { readFileSync, writeFileSync } from 'node:fs';
import { createLogger } from '../../adapters/telemetry/logging';
import { RandomIdGenerator, SystemClock } from '../../adapters/system';
import {
  encodingOfPath,
  formatDocumentStream,
  parseDocumentStream,
  sniffEncoding,
  type DocumentEncoding,
} from '../../adapters/yaml/document-text';
import {
  describeImport,
  TransferService,
  type ImportSummary,
} from '../../domain/services/transfer';
import { formatProblem, ImportRejectedError } from '../../domain/transfer';
import type { Storage } from '../../ports';
import { openStorage } from '../storage';
import { CommandFailed, UsageError, type CliContext, type CommandDefinition } from './program';
import { RemoteTransfer } from './remote-transfer';
import { validateFiles } from './validate-command';

interface ServerOptions {
  address?: string;
  token?: string;
}

interface ExportOptions extends ServerOptions {
  output?: string;
  namespaces?: string;
  namespace?: string;
  allNamespaces?: boolean;
  sortByKey?: boolean;
}

interface ImportOptions extends ServerOptions {
  stdin?: boolean;
  drop?: boolean;
  skipExisting?: boolean;
  dryRun?: boolean;
  createNamespace?: boolean;
  namespace?: string;
}

const line = (stream: NodeJS.WritableStream) => (text: string) => void stream.write(`${text}\n`);

/** The configured database, opened (and migrated) for one command, then closed. */
async function withDatabase<T>(
  context: CliContext,
  work: (service: TransferService) => Promise<T>,
): Promise<T> {
  const { config, warnings } = context.loadConfigWithSources();
  const logger = createLogger({
    level: config.log.level === 'debug' ? 'debug' : 'warn',
    encoding: 'console',
    stream: context.stderr,
  });
  for (const warning of warnings) logger.warn(`configuration: ${warning}`);
  let storage: Storage | undefined;
  try {
    storage = await openStorage(config, logger);
    return await work(
      new TransferService({
        unitOfWork: storage.unitOfWork,
        evaluationSource: storage.evaluationSource,
        clock: new SystemClock(),
        ids: new RandomIdGenerator(),
        // A server on the same database learns of the change from the namespace versions.
        notifier: { namespaceChanged: () => undefined },
        logger,
      }),
    );
  } finally {
    await storage?.close();
    logger.close();
  }
}

function namespacesOf(options: ExportOptions): readonly string[] | 'all' {
  const listed = [options.namespaces, options.namespace]
    .filter((v): v is string => v !== undefined)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (options.allNamespaces === true) {
    if (listed.length > 0) throw new UsageError('give --namespaces or --all-namespaces, not both');
    return 'all';
  }
  return listed.length > 0 ? listed : ['default'];
}

async function runExport(context: CliContext, options: ExportOptions): Promise<void> {
  const encoding: DocumentEncoding =
    options.output === undefined ? 'yaml' : encodingOfPath(options.output);
  const request = { namespaces: namespacesOf(options), sortByKey: options.sortByKey === true };
  const text =
    options.address !== undefined
      ? await new RemoteTransfer(options.address, options.token).exportText(request, encoding)
      : formatDocumentStream(
          await withDatabase(context, (s) => s.exportDocuments(request)),
          encoding,
        );
  if (options.output === undefined) context.stdout.write(text);
  else writeFileSync(options.output, text);
}

async function runImport(
  context: CliContext,
  file: string | undefined,
  options: ImportOptions,
): Promise<void> {
  if ((file === undefined) === (options.stdin !== true)) {
    throw new UsageError('give one FILE to import, or --stdin');
  }
  let text: string;
  try {
    text = readFileSync(file ?? 0, 'utf8');
  } catch (e) {
    throw new Error(
      `cannot read ${file ?? 'standard input'}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { cause: e },
    );
  }
  const encoding = file === undefined ? sniffEncoding(text) : encodingOfPath(file);
  const flags = {
    drop: options.drop === true,
    skipExisting: options.skipExisting === true,
    dryRun: options.dryRun === true,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  };
  const out = line(context.stdout);
  const err = line(context.stderr);
  let summary: ImportSummary;
  try {
    if (options.address !== undefined) {
      summary = await new RemoteTransfer(options.address, options.token).importText(
        text,
        encoding,
        flags,
      );
    } else {
      const parsed = parseDocumentStream(text, encoding);
      summary = await withDatabase(context, (s) =>
        s.importDocuments({ documents: parsed.values, parseProblems: parsed.problems, ...flags }),
      );
    }
  } catch (e) {
    if (!(e instanceof ImportRejectedError)) throw e;
    err(`vexil: import refused, nothing written`);
    for (const p of e.problems) err(`${file ?? '-'}: ${formatProblem(p)}`);
    throw new CommandFailed(1);
  }
  for (const l of describeImport(summary)) out(l);
  if (summary.dryRun) out('dry run: nothing was written');
}

/** validate, import and export. */
export const TRANSFER_COMMANDS: readonly CommandDefinition[] = [
  (program, context) =>
    program
      .command('validate')
      .description(
        'check import documents (YAML or JSON, - for standard input) without a database; exits 1 naming every problem',
      )
      .argument('<file...>', 'documents to check')
      .action((files: string[]) => {
        const code = validateFiles(files, { out: line(context.stdout), err: line(context.stderr) });
        if (code !== 0) throw new CommandFailed(code);
      }),
  (program, context) =>
    program
      .command('export')
      .description(
        'write flags and segments as import documents (YAML, or JSON for a .json file), from the database or a running server',
      )
      .option('-o, --output <file>', 'write to this file instead of standard output')
      .option('--namespaces <keys>', 'namespaces to export, comma-separated (default: default)')
      .option('-n, --namespace <key>', 'a namespace to export (deprecated: use --namespaces)')
      .option('--all-namespaces', 'export every namespace')
      .option('--sort-by-key', 'order flags and segments by key instead of creation')
      .option(
        '-a, --address <url>',
        'a running Vexil server (http://host:8080) instead of the database',
      )
      .option('-t, --token <token>', 'client token for --address')
      .action((options: ExportOptions) => runExport(context, options)),
  (program, context) =>
    program
      .command('import')
      .description(
        'import documents (YAML or JSON) in one transaction: everything or, on any problem, nothing',
      )
      .argument('[file]', 'the documents to import (.json: JSON, else YAML)')
      .option('--stdin', 'read the documents from standard input')
      .option('--drop', 'empty the configuration first (namespaces not imported are removed)')
      .option('--skip-existing', 'leave flags and segments that exist alone')
      .option('--dry-run', 'check and print what would change, writing nothing')
      .option('--namespace <key>', 'import into this namespace only')
      .option(
        '--create-namespace',
        'accepted for older Flipt scripts: a missing namespace is always created',
      )
      .option(
        '-a, --address <url>',
        'a running Vexil server (http://host:8080) instead of the database',
      )
      .option('-t, --token <token>', 'client token for --address')
      .action((file: string | undefined, options: ImportOptions) =>
        runImport(context, file, options),
      ),
];
