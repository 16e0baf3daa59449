import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI, runCli } from '../support/vexil-process';

const FIXTURES = resolve(__dirname, '../fixtures/documents');

describe('vexil validate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vexil-validate-'));

  it('accepts good documents without a database and says what they hold', async () => {
    const json = join(dir, 'good.json');
    writeFileSync(json, '{"namespace":"a","flags":[{"key":"f","name":"F"}]}{"namespace":"b"}\n');
    const run = await runCli(['validate', join(FIXTURES, 'reference-example.yml'), json]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      `${join(FIXTURES, 'reference-example.yml')}: ok (1 document, 2 flags, 3 segments)\n` +
        `${json}: ok (2 documents, 1 flag, 0 segments)\n`,
    );
    expect(run.code).toBe(0);
  });

  it('exits 1 naming the file, the document, the item and the reason', async () => {
    const bad = join(dir, 'bad.yml');
    writeFileSync(
      bad,
      'version: "1.4"\nflags:\n  - key: f\n    name: F\n    rules:\n      - segment: missing\n',
    );
    const good = join(FIXTURES, 'reference-example.yml');
    const run = await runCli(['validate', bad, good, join(dir, 'absent.yml')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `${bad}: document 1: default/flags/f/rules/1/segment: segment "default/missing" not found\n` +
        `${join(dir, 'absent.yml')}: ENOENT\n`,
    );
    expect(run.stdout).toContain(`${good}: ok`);
  });

  it('reads standard input for "-"', () => {
    const run = spawnSync(process.execPath, [CLI, 'validate', '-'], {
      input: '{"flags":[{"key":"f","name":"F","enabled":"no"}]}',
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('-: document 1: default/flags/f/enabled: must be true or false\n');
    expect(run.status).toBe(1);
  });

  it('needs a file', async () => {
    const run = await runCli(['validate']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("missing required argument 'file'");
  });
});
