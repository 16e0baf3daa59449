import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI, runCli, startVexil, type VexilProcess } from '../support/vexil-process';

const FIXTURES = resolve(__dirname, '../fixtures/documents');
const EXAMPLE = join(FIXTURES, 'reference-example.yml');
const EXPORTED = readFileSync(join(FIXTURES, 'reference-example.export.yml'), 'utf8');
const TOKEN = 'import-export-bootstrap-token';

describe('vexil import and export on the database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vexil-transfer-'));
  const env = { VEXIL_DB_URL: `file:${join(dir, 'direct.db')}` };

  it('imports a document and exports it back as written', async () => {
    const imported = await runCli(['import', EXAMPLE], env);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toBe('~ namespace default: 2 flags, 3 segments created\n');
    expect(imported.code).toBe(0);
    const exported = await runCli(['export'], env);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(EXPORTED);
    const json = join(dir, 'out.json');
    expect((await runCli(['export', '-o', json, '--namespaces', 'default'], env)).code).toBe(0);
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({
      version: '1.4',
      flags: [{ key: 'flag1' }, { key: 'flag2' }],
    });
  });

  it('refuses a broken import as a whole, naming every problem, and writes nothing', async () => {
    const bad = join(dir, 'bad.yml');
    writeFileSync(
      bad,
      'namespace: fresh\nflags: [{key: f, name: F}]\n---\n' +
        'flags:\n  - {key: g, name: G, variants: [{key: v}], rules: [{segment: segment1, ' +
        'distributions: [{variant: v, rollout: 80}, {variant: v, rollout: 30}]}]}\n' +
        '  - {key: flag1, name: again}\n',
    );
    const run = await runCli(['import', bad], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'vexil: import refused, nothing written\n' +
        `${bad}: document 2: default/flags/g/rules/1/distributions: rollouts add up to 110%, more than 100%\n` +
        `${bad}: document 2: default/flags/flag1: flag "default/flag1" is not unique\n`,
    );
    const all = await runCli(['export', '--all-namespaces'], env);
    expect(all.stdout).toBe(EXPORTED);
  });

  it('--dry-run says what would change; --skip-existing leaves existing keys alone', async () => {
    const more = join(dir, 'more.yml');
    writeFileSync(more, 'flags: [{key: flag1, name: x}, {key: flag3, name: Three}]\n');
    const dry = await runCli(['import', more, '--dry-run', '--skip-existing'], env);
    expect(dry.stdout).toBe(
      '~ namespace default: 1 flag, 0 segments to create, 1 existing key left alone\n' +
        '  + flag default/flag3\n  = flag default/flag1 (exists)\ndry run: nothing was written\n',
    );
    expect((await runCli(['export'], env)).stdout).toBe(EXPORTED);
    expect((await runCli(['import', more, '--skip-existing'], env)).code).toBe(0);
    expect((await runCli(['export'], env)).stdout).toContain('key: flag3');
  });

  it('reads standard input with --stdin, and takes --create-namespace as older Flipt did', () => {
    const run = spawnSync(process.execPath, [CLI, 'import', '--stdin', '--create-namespace'], {
      input: '{"namespace":"piped","flags":[{"key":"p","name":"P"}]}',
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('+ namespace piped (new): 1 flag, 0 segments created\n');
    expect(run.status).toBe(0);
  });

  it('needs a file or --stdin, not both', async () => {
    expect((await runCli(['import'], env)).stderr).toContain('give one FILE to import, or --stdin');
  });
});

describe('vexil import and export against a running server', () => {
  let vexil: VexilProcess;
  const dir = mkdtempSync(join(tmpdir(), 'vexil-transfer-server-'));

  beforeAll(async () => {
    vexil = await startVexil({
      VEXIL_DB_URL: `file:${join(dir, 'server.db')}`,
      VEXIL_AUTHENTICATION_REQUIRED: 'true',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: TOKEN,
      VEXIL_SERVER_MAX_IMPORT_BYTES: '20000',
    });
  });
  afterAll(async () => {
    await vexil.stop();
  });

  const auth = { authorization: `Bearer ${TOKEN}` };

  it('imports and exports through --address and --token, and the server serves the flags', async () => {
    const run = await runCli(['import', EXAMPLE, '-a', vexil.baseUrl, '-t', TOKEN]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const exported = await runCli(['export', '--address', vexil.baseUrl, '--token', TOKEN]);
    expect(exported.stdout).toBe(EXPORTED);
    const evaluation = await fetch(`${vexil.baseUrl}/evaluate/v1/boolean`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ flagKey: 'flag2', entityId: 'e', context: { internal: 'true' } }),
    });
    expect(await evaluation.json()).toMatchObject({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
    });
  });

  it('needs the token, as every management route does', async () => {
    const run = await runCli(['export', '-a', vexil.baseUrl]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('answered 401: request was not authenticated');
    const res = await fetch(`${vexil.baseUrl}/api/v1/import`, {
      method: 'POST',
      body: 'flags: []',
    });
    expect(res.status).toBe(401);
  });

  it('a refused import over HTTP is a 400 listing every problem, and writes nothing', async () => {
    const res = await fetch(`${vexil.baseUrl}/api/v1/import`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/yaml' },
      body: 'namespace: web\nflags: [{key: w, name: W}]\n---\nversion: "9.9"\n',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      code: 3,
      message:
        'import refused, nothing written\ndocument 2: version: unsupported version "9.9" (supported: 1.0, 1.1, 1.2, 1.3, 1.4)',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [
            {
              field: 'document 2: version',
              description: 'unsupported version "9.9" (supported: 1.0, 1.1, 1.2, 1.3, 1.4)',
            },
          ],
        },
      ],
    });
    const ns = await fetch(`${vexil.baseUrl}/api/v1/namespaces/web`, { headers: auth });
    expect(ns.status).toBe(404);
  });

  it('an import larger than server.max_import_bytes is refused before it is read', async () => {
    const res = await fetch(`${vexil.baseUrl}/api/v1/import`, {
      method: 'POST',
      headers: auth,
      body: `flags:\n${'  - {key: k, name: padding}\n'.repeat(1000)}`,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 8 });
  });

  it('per namespace: documents without a namespace go to it, others are refused', async () => {
    const post = (ns: string, body: string, query = '') =>
      fetch(`${vexil.baseUrl}/api/v1/namespaces/${ns}/import${query}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      });
    await fetch(`${vexil.baseUrl}/api/v1/namespaces`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ key: 'team', name: 'Team' }),
    });
    const ok = await post('team', '{"flags":[{"key":"t","name":"T"}]}');
    expect(await ok.json()).toMatchObject({
      namespaces: [{ key: 'team', created: false, flags: ['t'] }],
    });
    const wrong = await post('team', '{"namespace":"other","flags":[]}');
    expect(wrong.status).toBe(400);
    const dropped = await post('team', '{"flags":[{"key":"u","name":"U"}]}', '?drop=true');
    expect(await dropped.json()).toMatchObject({ dropped: ['team'] });
    const exported = await fetch(`${vexil.baseUrl}/api/v1/namespaces/team/export?format=json`, {
      headers: auth,
    });
    expect(exported.headers.get('content-type')).toBe('application/json');
    expect(exported.headers.get('content-disposition')).toBe('attachment; filename="team.json"');
    expect(await exported.json()).toMatchObject({
      namespace: { key: 'team', name: 'Team' },
      flags: [{ key: 'u' }],
    });
    // The rest of the configuration is untouched by a namespace's drop.
    const all = await runCli(['export', '--all-namespaces', '-a', vexil.baseUrl, '-t', TOKEN]);
    expect(all.stdout).toContain('key: flag1');
  });
});
