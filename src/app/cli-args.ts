export interface CliArgs {
  readonly command: string | undefined;
  readonly help: boolean;
  readonly version: boolean;
  readonly configFile: string | undefined;
  /** Configuration overrides: key path -> raw text. */
  readonly flags: Record<string, string>;
}

export class UsageError extends Error {}

/**
 * Parses `vexil [command] [--config FILE] [--<key>=<value> | --<key> <value>]...`.
 * Any flag with a dot in its name is a configuration key (e.g. --server.http_port=8081).
 */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let command: string | undefined;
  let help = false;
  let version = false;
  let configFile: string | undefined;
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') help = true;
    else if (arg === '-v' || arg === '--version') version = true;
    else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      let value = eq === -1 ? undefined : arg.slice(eq + 1);
      if (value === undefined) {
        const next = argv[i + 1];
        if (next === undefined || next.startsWith('--')) {
          throw new UsageError(`flag --${name} needs a value`);
        }
        value = next;
        i++;
      }
      if (name === 'config') configFile = value;
      else if (name.includes('.')) flags[name] = value;
      else throw new UsageError(`unknown flag --${name}`);
    } else if (command === undefined) command = arg;
    else throw new UsageError(`unexpected argument "${arg}"`);
  }
  return { command, help, version, configFile, flags };
}

export const USAGE = `Usage: vexil [command] [--config FILE] [--<key>=<value>]...

Vexil: a feature-flag service with Flipt v1's API and evaluation results.

Commands:
  serve             Serve HTTP and gRPC (the default command)
  migrate           Apply the database migrations and exit
  config            Print the effective configuration (secrets masked) and exit
  config-reference  Print the table of every configuration key (docs/configuration.md)

Options:
  --config FILE     YAML or JSON configuration file
  --<key>=<value>   Set any configuration key, e.g. --server.http_port=8081 --db.url=...
  -h, --help        Show this help
  -v, --version     Show the version

Precedence: defaults < config file < environment (VEXIL_<KEY>, e.g. VEXIL_DB_URL) < flags.
`;
