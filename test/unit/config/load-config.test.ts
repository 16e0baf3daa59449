import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  loadConfig,
  parseDuration,
  redactedConfig,
  schemaLeaves,
  unknownEnvironmentNames,
} from '../../../src/app/config';

const dir = mkdtempSync(join(tmpdir(), 'vexil-config-'));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    const message = (e as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a configuration error');
};

describe('configuration loading', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({ env: {} });
    expect(c.server).toMatchObject({
      host: '0.0.0.0',
      http_port: 8080,
      grpc_port: 9000,
      mode: 'read-write',
    });
    expect(c.db.url).toBe('file:./data/vexil.db');
    expect(c.caching).toMatchObject({ enabled: false, backend: 'memory', ttl: 60_000 });
    expect(c.authentication.required).toBe(false);
    expect(c.authentication.methods.token.cleanup).toEqual({
      interval: 3_600_000,
      grace_period: 1_800_000,
    });
    expect(c.log.level).toBe('info');
    expect(c.metrics).toEqual({ enabled: true });
  });

  it('layers defaults < file < environment < flags', () => {
    const yaml = file(
      'layers.yml',
      'server:\n  http_port: 8001\n  grpc_port: 9001\nlog:\n  level: debug\n',
    );
    const c = loadConfig({
      file: yaml,
      env: { VEXIL_SERVER_GRPC_PORT: '9002', VEXIL_LOG_LEVEL: 'warn' },
      flags: { 'log.level': 'error' },
    });
    expect(c.server.http_port).toBe(8001);
    expect(c.server.grpc_port).toBe(9002);
    expect(c.log.level).toBe('error');
  });

  it('reads JSON files too', () => {
    const json = file('c.json', JSON.stringify({ caching: { enabled: true, ttl: '5s' } }));
    const c = loadConfig({ file: json, env: {} });
    expect(c.caching.enabled).toBe(true);
    expect(c.caching.ttl).toBe(5000);
  });

  it('accepts Go-style durations from the environment', () => {
    const c = loadConfig({
      env: { VEXIL_CACHING_TTL: '1m30s', VEXIL_SERVER_SHUTDOWN_TIMEOUT: '250ms' },
    });
    expect(c.caching.ttl).toBe(90_000);
    expect(c.server.shutdown_timeout).toBe(250);
  });

  it('parses string maps from the environment', () => {
    const c = loadConfig({ env: { VEXIL_TRACING_OTLP_HEADERS: 'a=1, b=two' } });
    expect(c.tracing.otlp.headers).toEqual({ a: '1', b: 'two' });
  });

  it.each([
    [
      'an unknown key in the file',
      () => loadConfig({ file: file('u.yml', 'server:\n  htp_port: 1\n'), env: {} }),
      'server.htp_port: unknown key',
    ],
    [
      'an unknown top-level section',
      () => loadConfig({ file: file('s.yml', 'cachez:\n  enabled: true\n'), env: {} }),
      'cachez',
    ],
    [
      'a wrong type in the file',
      () => loadConfig({ file: file('t.yml', 'server:\n  http_port: abc\n'), env: {} }),
      'server.http_port',
    ],
    [
      'a port out of range',
      () => loadConfig({ env: { VEXIL_SERVER_HTTP_PORT: '70000' } }),
      'server.http_port',
    ],
    ['a bad enum', () => loadConfig({ env: { VEXIL_SERVER_MODE: 'sideways' } }), 'server.mode'],
    [
      'a bad boolean',
      () => loadConfig({ file: file('b.yml', 'caching:\n  enabled: maybe\n'), env: {} }),
      'caching.enabled',
    ],
    ['a bad duration', () => loadConfig({ env: { VEXIL_CACHING_TTL: 'soon' } }), 'caching.ttl'],
    [
      'an unsupported database scheme',
      () => loadConfig({ env: { VEXIL_DB_URL: 'oracle://x/y' } }),
      'db.url',
    ],
    [
      'a postgres URL without a host',
      () => loadConfig({ env: { VEXIL_DB_URL: 'postgres:///vexil' } }),
      'db.url',
    ],
    [
      'a mysql URL without a database',
      () => loadConfig({ env: { VEXIL_DB_URL: 'mysql://u:p@localhost:3306' } }),
      'db.url',
    ],
    [
      'a bad sampling ratio',
      () => loadConfig({ env: { VEXIL_TRACING_SAMPLING_RATIO: '2' } }),
      'tracing.sampling_ratio',
    ],
    [
      'an unknown flag',
      () => loadConfig({ env: {}, flags: { 'server.nope': '1' } }),
      'server.nope: unknown key',
    ],
    [
      'a bad flag value',
      () => loadConfig({ env: {}, flags: { 'server.grpc_port': 'x' } }),
      'server.grpc_port',
    ],
    [
      'a missing config file',
      () => loadConfig({ file: join(dir, 'absent.yml'), env: {} }),
      'ENOENT',
    ],
    [
      'a malformed YAML file',
      () => loadConfig({ file: file('m.yml', 'server: [1,\n'), env: {} }),
      'm.yml',
    ],
    [
      'a malformed JSON file',
      () => loadConfig({ file: file('m.json', '{"server": '), env: {} }),
      'm.json',
    ],
    [
      'a file whose top level is a list',
      () => loadConfig({ file: file('l.yml', '- 1\n'), env: {} }),
      'top level',
    ],
  ])('rejects %s with one line naming it', (_name, fn, expected) => {
    expect(problem(fn)).toContain(expected);
  });

  it('never prints secrets when redacting', () => {
    const c = loadConfig({
      env: {
        VEXIL_DB_URL: 'postgres://u:hunter2@db/vexil',
        VEXIL_CACHING_REDIS_PASSWORD: 's3cret',
      },
    });
    const text = JSON.stringify(redactedConfig(c));
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('s3cret');
    expect(text).toContain('"server.http_port":8080');
  });

  it('prints a SQLite path as itself and masks only the password of a URL', () => {
    const sqlite = redactedConfig(loadConfig({ env: { VEXIL_DB_URL: 'file:/var/lib/vexil.db' } }));
    expect(sqlite['db.url']).toBe('file:/var/lib/vexil.db');
    const pg = redactedConfig(
      loadConfig({
        env: {
          VEXIL_DB_URL: 'postgres://vexil:p@ss@db.internal:5432/vexil?sslmode=disable',
          VEXIL_CACHING_REDIS_URL: 'redis://:s3cret@cache:6379/0',
          VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'tok',
        },
      }),
    );
    expect(pg['db.url']).toBe('postgres://vexil:***@db.internal:5432/vexil?sslmode=disable');
    expect(pg['caching.redis.url']).toBe('redis://:***@cache:6379/0');
    expect(pg['authentication.methods.token.bootstrap.token']).toBe('***');
    expect(pg['caching.redis.password']).toBe('');
  });

  it('prints durations as written, not as milliseconds', () => {
    const c = redactedConfig(
      loadConfig({ env: { VEXIL_CACHING_TTL: '1h30m', VEXIL_DB_CONN_MAX_LIFETIME: '1500ms' } }),
    );
    expect(c['server.shutdown_timeout']).toBe('15s');
    expect(c['caching.ttl']).toBe('1h30m');
    expect(c['db.conn_max_lifetime']).toBe('1s500ms');
    expect(c['authentication.methods.token.bootstrap.expiration']).toBe('0s');
  });

  it('names VEXIL_ variables that match no key', () => {
    expect(
      unknownEnvironmentNames({
        VEXIL_SERVER_HTTP_PORT: '1',
        VEXIL_SERVR_PORT: '2',
        VEXIL_TEST_POSTGRES_URL: 'x',
      }),
    ).toEqual(['VEXIL_SERVR_PORT']);
  });

  it('documents every key', () => {
    for (const [path, leaf] of schemaLeaves()) {
      expect(leaf.doc.length).toBeGreaterThan(5);
      expect(path).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
    }
  });
});

describe('durations', () => {
  it.each([
    ['0', 0],
    ['500ms', 500],
    ['30s', 30_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['100', 100],
  ])('parses %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'abc', '5 minutes', '1x', '-1s'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow();
  });
});
