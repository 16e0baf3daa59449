import { Writable } from 'node:stream';
import {
  runCli,
  splitConfigFlags,
  UsageError,
  withDefaultCommand,
  type CommandDefinition,
} from '../../../src/app/cli/program';

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _e, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/** Runs the parser over test commands; reports which ran, with what. */
async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const calls: Array<{ name: string; args: unknown[]; port?: number }> = [];
  const commands: CommandDefinition[] = [
    (program, context) =>
      program
        .command('serve')
        .description('serve')
        .action(() => {
          calls.push({ name: 'serve', args: [], port: context.loadConfig().server.http_port });
        }),
    (program) =>
      program
        .command('export')
        .description('a command with a positional argument and its own flags')
        .argument('<file...>', 'files')
        .option('-o, --output <file>', 'where to write')
        .option('--drop', 'drop first')
        .action((files: string[], opts: Record<string, unknown>) => {
          calls.push({ name: 'export', args: [files, opts] });
        }),
  ];
  const out = sink();
  const err = sink();
  const code = await runCli(argv, {
    version: '1.2.3',
    commands,
    defaultCommand: 'serve',
    env,
    stdout: out.stream,
    stderr: err.stream,
  });
  return { code, calls, stdout: out.text(), stderr: err.text() };
}

describe('configuration flags on the command line', () => {
  it('are taken out in both forms, wherever they stand, = signs kept inside values', () => {
    expect(
      splitConfigFlags([
        'serve',
        '--server.http_port=8081',
        '--config',
        'c.yml',
        '--db.url',
        'postgres://u:p@h/d?a=b',
      ]),
    ).toEqual({
      rest: ['serve', '--config', 'c.yml'],
      flags: { 'server.http_port': '8081', 'db.url': 'postgres://u:p@h/d?a=b' },
    });
  });

  it('need a value', () => {
    expect(() => splitConfigFlags(['--server.http_port'])).toThrow(UsageError);
    expect(() => splitConfigFlags(['--server.http_port', '--x.y=1'])).toThrow(
      'configuration flag --server.http_port needs a value',
    );
  });

  it('reach the configuration of the command', async () => {
    const r = await run(['--server.http_port=8181'], { VEXIL_SERVER_HTTP_PORT: '7000' });
    expect(r.calls).toEqual([{ name: 'serve', args: [], port: 8181 }]);
  });
});

describe('the default command', () => {
  it.each([
    [[], ['serve']],
    [
      ['--config', 'c.yml'],
      ['serve', '--config', 'c.yml'],
    ],
    [['--config=c.yml'], ['serve', '--config=c.yml']],
    [['migrate'], ['migrate']],
    [
      ['--config', 'c.yml', 'migrate'],
      ['--config', 'c.yml', 'migrate'],
    ],
    [['--help'], ['--help']],
    [['-v'], ['-v']],
  ])('%j is run as %j', (argv, expected) => {
    expect(withDefaultCommand(argv, 'serve')).toEqual(expected);
  });
});

describe('the vexil command line', () => {
  it('runs serve when no command is named', async () => {
    expect((await run([])).calls.map((c) => c.name)).toEqual(['serve']);
  });

  it('prints the version', async () => {
    const r = await run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('vexil 1.2.3\n');
    expect(r.calls).toEqual([]);
  });

  it.each([[['--help']], [['-h']], [['help']]])(
    '%j prints the help and runs nothing',
    async (argv) => {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.calls).toEqual([]);
      expect(r.stdout).toContain('Usage: vexil [command] [options]');
      expect(r.stdout).toMatch(/serve\s+serve/);
      expect(r.stdout).toContain('--config <file>');
      expect(r.stdout).toContain('--<key>=<value>');
    },
  );

  it('help of a command lists its arguments and flags, and the global ones', async () => {
    const r = await run(['help', 'export']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: vexil export [options] <file...>');
    expect(r.stdout).toContain('-o, --output <file>');
    expect(r.stdout).toContain('--config <file>');
  });

  it('hands positional arguments and command flags to the command', async () => {
    const r = await run(['export', 'a.yml', 'b.yml', '-o', 'out.yml', '--drop']);
    expect(r.code).toBe(0);
    expect(r.calls).toEqual([
      { name: 'export', args: [['a.yml', 'b.yml'], { output: 'out.yml', drop: true }] },
    ]);
  });

  it.each([
    [['--bogus'], "vexil: unknown option '--bogus'"],
    [['serve', '--bogus=1'], "vexil: unknown option '--bogus=1'"],
    [['import', 'x.yml'], "vexil: unknown command 'import'"],
    [['serve', 'extra'], 'vexil: too many arguments for'],
    [['export'], "vexil: missing required argument 'file'"],
    [['--config'], "vexil: option '--config <file>' argument missing"],
    [['--db.url'], 'vexil: configuration flag --db.url needs a value'],
  ])('%j fails with exit code 1 and one line: %s', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(1);
    expect(r.calls).toEqual([]);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('see vexil --help');
  });

  it('names the configuration key at fault', async () => {
    const r = await run(['--server.http_port=abc']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^vexil: configuration error: server\.http_port: .+\n$/);
  });

  it('suggests the command meant', async () => {
    expect((await run(['serv'])).stderr).toContain('Did you mean serve?');
  });
});
