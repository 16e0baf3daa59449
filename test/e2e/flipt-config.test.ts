import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli, startVexil } from '../support/vexil-process';

const STOCK = resolve(__dirname, '../fixtures/flipt-config/stock.yml');

describe("vexil serve with Flipt's configuration", () => {
  it('starts with a stock Flipt config.yml, warning once per setting it ignores', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vexil-flipt-config-'));
    const vexil = await startVexil(
      // The ports and the database file are the test's; everything else is the Flipt file's.
      {
        FLIPT_DB_URL: `file:${join(dir, 'flipt.db')}`,
        FLIPT_SERVER_HOST: '127.0.0.1',
        FLIPT_SERVER_HTTP_PORT: '0',
        FLIPT_SERVER_GRPC_PORT: '0',
      },
      { args: ['--config', STOCK] },
    );
    try {
      const warnings = vexil.lines
        .map((l) => JSON.parse(l) as { level: string; message: string })
        .filter((e) => e.level === 'warn' && e.message.startsWith('configuration: '))
        .map((e) => e.message.slice('configuration: '.length).split(' ')[0]);
      expect(warnings).toEqual([
        'log.grpc_level',
        'cache.memory.eviction_interval',
        'meta.check_for_updates',
        'meta.telemetry_enabled',
      ]);
      // authentication.required and the bootstrap token came from the Flipt file.
      const anonymous = await fetch(`${vexil.baseUrl}/api/v1/namespaces`);
      expect(anonymous.status).toBe(401);
      const authorised = await fetch(`${vexil.baseUrl}/api/v1/namespaces`, {
        headers: { authorization: 'Bearer stock-bootstrap-token' },
      });
      expect(authorised.status).toBe(200);
    } finally {
      await vexil.stop();
    }
  });

  it('vexil config prints the warnings and the values taken from Flipt names', async () => {
    const run = await runCli(['config', '--config', STOCK], { FLIPT_CACHE_TTL: '90s' });
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(printed['caching.enabled']).toBe(true);
    expect(printed['caching.ttl']).toBe('1m30s');
    expect(printed['log.level']).toBe('info');
    expect(run.stderr).toContain(
      'vexil: configuration: log.grpc_level ("ERROR") is a Flipt setting',
    );
  });

  it('vexil config --show-origin says where each value came from', async () => {
    const run = await runCli(
      ['config', '--show-origin', '--config', STOCK, '--log.encoding=json'],
      {
        FLIPT_CACHE_TTL: '90s',
        FLIPT_SERVER_GRPC_PORT: '9100',
        VEXIL_SERVER_GRPC_PORT: '9200',
        FLIPT_CORS_ENABLED: 'true',
      },
    );
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as Record<string, { value: unknown; from: string }>;
    expect(printed['caching.ttl']).toEqual({ value: '1m30s', from: 'env FLIPT_CACHE_TTL' });
    expect(printed['server.grpc_port']).toEqual({
      value: 9200,
      from: 'env VEXIL_SERVER_GRPC_PORT',
    });
    expect(printed['caching.enabled']).toEqual({
      value: true,
      from: `file ${STOCK} (cache.enabled)`,
    });
    expect(printed['cors.allowed_origins']).toEqual({ value: ['*'], from: `file ${STOCK}` });
    expect(printed['cors.enabled']).toEqual({ value: true, from: 'env FLIPT_CORS_ENABLED' });
    expect(printed['log.encoding']).toEqual({ value: 'json', from: 'flag --log.encoding' });
    expect(printed['evaluation.max_batch_size']).toEqual({ value: 1000, from: 'default' });
    expect(printed['authentication.methods.token.bootstrap.token']).toEqual({
      value: '***',
      from: `file ${STOCK}`,
    });
  });
});
