import { Command, CommanderError } from 'commander';
import type { LoadedConfig, VexilConfig } from '../config';
import { ConfigError } from '../config/config-error';

/** A mistake on the command line: reported in one line, exit code 1. */
export class UsageError extends Error {}

/** What every command can use: the version, output, and the configuration from its sources. */
export interface CliContext {
  readonly version: string;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  /** The configuration from defaults < --config FILE < VEXIL_* < --<key>=<value>. */
  loadConfig(): VexilConfig;
  /** The same, with the warnings about ignored settings and where each value came from. */
  loadConfigWithSources(): LoadedConfig;
}

/** Ends a command with an exit code after it has said why itself. */
export class CommandFailed extends CommanderError {
  constructor(exitCode = 1) {
    super(exitCode, 'vexil.commandFailed', '');
  }
}

/**
 * Adds one subcommand to the program. A command declares its own positional arguments and
 * flags with commander (`.argument('<file...>')`, `.option('-o, --output <file>')`) and reads
 * the configuration through the context when it needs one.
 */
export type CommandDefinition = (program: Command, context: CliContext) => void;

export interface RunCliOptions {
  readonly version: string;
  readonly commands: readonly CommandDefinition[];
  /** Run when no command is given. */
  readonly defaultCommand: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
}

/**
 * `--<key>=<value>` and `--<key> <value>` with a dot in the key are configuration keys
 * (`--server.http_port=8081`); they are taken out before the command line is parsed, so they
 * can stand anywhere and every command accepts them.
 */
export function splitConfigFlags(argv: readonly string[]): {
  rest: string[];
  flags: Record<string, string>;
} {
  const rest: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (!arg.startsWith('--') || !name.includes('.')) {
      rest.push(arg);
      continue;
    }
    let value = eq === -1 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        throw new UsageError(`configuration flag --${name} needs a value (--${name}=<value>)`);
      }
      value = next;
      i++;
    }
    flags[name] = value;
  }
  return { rest, flags };
}

/** Program options that take a value: their value is not a command name. */
const VALUE_OPTIONS = new Set(['--config']);
const INFO_OPTIONS = new Set(['-h', '--help', '-v', '--version']);

/** The command line with the default command put in when none is named. */
export function withDefaultCommand(argv: readonly string[], command: string): string[] {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (INFO_OPTIONS.has(arg) || arg === '--') return [...argv];
    if (VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith('-')) return [...argv];
  }
  return [command, ...argv];
}

const EPILOGUE = `
Configuration:
  --<key>=<value>    Set any configuration key, e.g. --server.http_port=8081 --db.url=...
                     (vexil config-reference lists every key)
  Precedence: defaults < config file < environment (VEXIL_<KEY>, e.g. VEXIL_DB_URL) < flags.
`;

const oneLine = (text: string): string => text.trim().replace(/\s*\n\s*/g, ' ');

/** The command tree: global options, every command, help, version, one-line errors. */
export function createProgram(
  options: RunCliOptions,
  context: CliContext,
  stderr: NodeJS.WritableStream,
): Command {
  const program = new Command('vexil')
    .description("Vexil: a feature-flag service with Flipt v1's API and evaluation results.")
    .usage('[command] [options]')
    .option('--config <file>', 'YAML or JSON configuration file')
    .version(`vexil ${options.version}`, '-v, --version', 'show the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', EPILOGUE)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void context.stdout.write(text),
      writeErr: (text) => void stderr.write(text),
      outputError: (text, write) =>
        write(`vexil: ${oneLine(text.replace(/^error: /, ''))} (see vexil --help)\n`),
    });
  for (const define of options.commands) define(program, context);
  for (const command of program.commands) {
    command.exitOverride().configureOutput(program.configureOutput());
  }
  return program;
}

/** Parses the command line and runs the command. Resolves with the exit code. */
export async function runCli(argv: readonly string[], options: RunCliOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const env = options.env ?? process.env;
  const fail = (message: string): number => {
    stderr.write(`vexil: ${message}\n`);
    return 1;
  };
  let program: Command | undefined;
  try {
    const { rest, flags } = splitConfigFlags(argv);
    const load = (): LoadedConfig => {
      // Loaded when a command asks for it: --version and help answer without it.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { loadConfigWithSources } = require('../config') as typeof import('../config');
      return loadConfigWithSources({
        file: program?.opts<{ config?: string }>().config,
        flags,
        env,
      });
    };
    const context: CliContext = {
      version: options.version,
      stdout,
      stderr,
      env,
      loadConfig: () => load().config,
      loadConfigWithSources: load,
    };
    program = createProgram(options, context, stderr);
    await program.parseAsync(withDefaultCommand(rest, options.defaultCommand), { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof ConfigError) return fail(`configuration error: ${err.message}`);
    if (err instanceof UsageError) return fail(`${err.message} (see vexil --help)`);
    return fail(err instanceof Error ? err.message : String(err));
  }
}
