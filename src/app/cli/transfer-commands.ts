import { CommandFailed, type CommandDefinition } from './program';
import { validateFiles } from './validate-command';

/** validate (and, with a database or a server, import and export). */
export const TRANSFER_COMMANDS: readonly CommandDefinition[] = [
  (program, context) =>
    program
      .command('validate')
      .description(
        'check import documents (YAML or JSON, - for standard input) without a database; exits 1 naming every problem',
      )
      .argument('<file...>', 'documents to check')
      .action((files: string[]) => {
        const code = validateFiles(files, {
          out: (line) => void context.stdout.write(`${line}\n`),
          err: (line) => void context.stderr.write(`${line}\n`),
        });
        if (code !== 0) throw new CommandFailed(code);
      }),
];
