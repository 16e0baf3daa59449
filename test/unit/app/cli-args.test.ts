import { parseCliArgs, UsageError } from '../../../src/app/cli-args';

describe('command-line arguments', () => {
  it('defaults to no command and no flags', () => {
    expect(parseCliArgs([])).toEqual({
      command: undefined,
      help: false,
      version: false,
      configFile: undefined,
      flags: {},
    });
  });

  it('reads the command, the config file and key flags in both forms', () => {
    const a = parseCliArgs([
      'serve',
      '--config',
      'c.yml',
      '--server.http_port=8081',
      '--db.url',
      'x.db',
    ]);
    expect(a.command).toBe('serve');
    expect(a.configFile).toBe('c.yml');
    expect(a.flags).toEqual({ 'server.http_port': '8081', 'db.url': 'x.db' });
  });

  it('keeps = signs inside values', () => {
    expect(parseCliArgs(['--db.url=postgres://u:p@h/d?a=b']).flags['db.url']).toBe(
      'postgres://u:p@h/d?a=b',
    );
  });

  it.each([['-h'], ['--help']])('recognises %s', (flag) =>
    expect(parseCliArgs([flag]).help).toBe(true),
  );
  it.each([['-v'], ['--version']])('recognises %s', (flag) =>
    expect(parseCliArgs([flag]).version).toBe(true),
  );

  it.each([
    [['--nope=1'], 'unknown flag --nope'],
    [['--server.http_port'], 'needs a value'],
    [['serve', 'extra'], 'unexpected argument'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    expect(() => parseCliArgs(argv)).toThrow(message);
  });
});
