import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  describeOrigin,
  loadConfigWithSources,
  type ConfigOrigin,
} from '../../../src/app/config';

const FIXTURES = resolve(__dirname, '../../fixtures/flipt-config');
const dir = mkdtempSync(join(tmpdir(), 'vexil-flipt-config-'));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("Flipt's configuration", () => {
  it('a file setting every Flipt key loads, honouring the keys Vexil has', () => {
    const { config, origins } = loadConfigWithSources({
      file: join(FIXTURES, 'every-key.yml'),
      env: {},
    });
    expect(config.log).toEqual({ level: 'warn', encoding: 'json' });
    expect(config.caching).toMatchObject({ enabled: true, backend: 'redis', ttl: 300_000 });
    expect(config.caching.redis).toMatchObject({
      host: 'redis.internal',
      port: 6380,
      password: 'hunter2',
      db: 3,
      prefix: 'flipt:',
      tls: { enabled: true, ca_file: '/etc/ssl/redis-ca.pem', insecure_skip_verify: false },
    });
    expect(config.server).toMatchObject({ host: '127.0.0.1', http_port: 8081, grpc_port: 9001 });
    expect(config.server.mode).toBe('read-write');
    expect(config.db).toMatchObject({
      url: 'postgres://flipt:secret@db.internal:5432/flipt?sslmode=disable',
      max_idle_conn: 5,
      max_open_conn: 20,
      conn_max_lifetime: 3_600_000,
    });
    expect(config.tracing).toMatchObject({
      enabled: true,
      exporter: 'otlp',
      sampling_ratio: 0.5,
      otlp: { endpoint: 'http://collector:4318', headers: { 'api-key': 'abc' } },
    });
    expect(config.server).toMatchObject({
      protocol: 'http',
      https_port: 8443,
      cert_file: '',
      cert_key: '',
    });
    expect(config.cors).toEqual({
      enabled: false,
      allowed_origins: ['*'],
      allowed_headers: ['Accept', 'Authorization'],
    });
    expect(config.authentication).toEqual({
      required: true,
      exclude: { management: false, evaluation: false, ofrep: false },
      methods: {
        token: {
          enabled: true,
          bootstrap: { token: 's3cr3t', expiration: 86_400_000 },
          cleanup: { interval: 7_200_000, grace_period: 3_600_000 },
        },
      },
    });
    expect(origins.get('caching.ttl')).toEqual({
      source: 'file',
      file: join(FIXTURES, 'every-key.yml'),
      name: 'cache.ttl',
    });
    expect(origins.get('server.http_port')).toMatchObject({
      source: 'file',
      name: 'server.http_port',
    });
    expect(origins.get('evaluation.max_batch_size')).toEqual({ source: 'default' });
  });

  it('warns once for each setting Vexil does not have, naming it, secrets unrepeated', () => {
    const { warnings } = loadConfigWithSources({ file: join(FIXTURES, 'every-key.yml'), env: {} });
    const named = warnings.map((w) => w.split(' ')[0]);
    expect(named).toEqual([
      'log.file',
      'log.grpc_level',
      'log.keys.time',
      'log.keys.level',
      'log.keys.message',
      'ui.default_theme',
      'ui.topbar.color',
      'ui.topbar.label',
      'cache.memory.eviction_interval',
      'cache.redis.username',
      'cache.redis.pool_size',
      'cache.redis.min_idle_conn',
      'cache.redis.conn_max_idle_time',
      'cache.redis.net_timeout',
      'metrics.otlp.endpoint',
      'metrics.otlp.headers.x',
      'tracing.jaeger.host',
      'tracing.jaeger.port',
      'tracing.zipkin.endpoint',
      'diagnostics.profiling.enabled',
      'authentication.session.domain',
      'authentication.session.secure',
      'authentication.session.token_lifetime',
      'authentication.session.state_lifetime',
      'authentication.session.csrf.key',
      'authentication.session.csrf.secure',
      'authentication.methods.token.bootstrap.metadata',
      'authentication.methods.oidc.providers.google.issuer_url',
      'authentication.methods.oidc.providers.google.client_id',
      'authentication.methods.oidc.providers.google.client_secret',
      'authentication.methods.oidc.providers.google.redirect_address',
      'authentication.methods.oidc.providers.google.scopes',
      'authentication.methods.oidc.providers.google.use_pkce',
      'authentication.methods.kubernetes.discovery_url',
      'audit.sinks.log.enabled',
      'audit.sinks.log.file',
      'audit.buffer.capacity',
      'audit.buffer.flush_period',
      'audit.events',
      'analytics.buffer.flush_period',
    ]);
    expect(warnings[0]).toBe(
      'log.file ("/var/log/flipt.log") is a Flipt setting Vexil does not support; ignored: logs go to standard output',
    );
    const secret = warnings.find((w) => w.startsWith('authentication.session.csrf.key'));
    expect(secret).toBe(
      'authentication.session.csrf.key is a Flipt setting Vexil does not support; ignored',
    );
    expect(warnings.join('\n')).not.toContain('oidc-secret-value');
  });

  it('says nothing about settings whose value asks for what Vexil does anyway', () => {
    const { warnings } = loadConfigWithSources({
      file: file(
        'quiet.yml',
        'version: "1.0"\nmeta:\n  telemetry_enabled: false\n  check_for_updates: false\n' +
          'storage:\n  type: database\ncors:\n  enabled: false\nserver:\n  protocol: http\n' +
          'authentication:\n  methods:\n    oidc:\n      enabled: false\n',
      ),
      env: {},
    });
    expect(warnings).toEqual([]);
    const loud = loadConfigWithSources({
      file: file('loud.yml', 'meta:\n  telemetry_enabled: true\nstorage:\n  type: git\n'),
      env: {},
    });
    expect(loud.warnings).toEqual([
      'meta.telemetry_enabled (true) is a Flipt setting Vexil does not support; ignored: Vexil sends no telemetry',
      'storage.type ("git") is a Flipt setting Vexil does not support; ignored: Vexil stores configuration in a database',
    ]);
  });

  it("honours TLS, CORS and authentication exclusions under Flipt's names, files and FLIPT_* alike", () => {
    const { config, warnings, origins } = loadConfigWithSources({
      file: file(
        'serve.yml',
        'server:\n  protocol: https\n  https_port: 8443\n  cert_file: /tls/cert.pem\n' +
          '  cert_key: /tls/key.pem\ncors:\n  enabled: true\n  allowed_origins: "https://app.example"\n' +
          'authentication:\n  required: true\n  exclude:\n    evaluation: true\n    ofrep: true\n',
      ),
      env: {
        FLIPT_CORS_ALLOWED_HEADERS: 'Accept  Content-Type\tX-Flipt-Namespace',
        FLIPT_AUTHENTICATION_EXCLUDE_MANAGEMENT: '1',
        VEXIL_CORS_ALLOWED_ORIGINS: 'https://a.example,https://b.example',
      },
    });
    expect(warnings).toEqual([]);
    expect(config.server).toMatchObject({
      protocol: 'https',
      https_port: 8443,
      cert_file: '/tls/cert.pem',
      cert_key: '/tls/key.pem',
    });
    expect(config.cors).toEqual({
      enabled: true,
      allowed_origins: ['https://a.example', 'https://b.example'],
      allowed_headers: ['Accept', 'Content-Type', 'X-Flipt-Namespace'],
    });
    expect(config.authentication.exclude).toEqual({
      management: true,
      evaluation: true,
      ofrep: true,
    });
    expect(origins.get('cors.allowed_headers')).toEqual({
      source: 'env',
      name: 'FLIPT_CORS_ALLOWED_HEADERS',
    });
    expect(origins.get('cors.allowed_origins')).toEqual({
      source: 'env',
      name: 'VEXIL_CORS_ALLOWED_ORIGINS',
    });
  });

  it('a single origin written as a string is a list of one', () => {
    const { config } = loadConfigWithSources({
      file: file('cors.yml', 'cors:\n  allowed_origins: "https://app.example"\n'),
      env: {},
    });
    expect(config.cors.allowed_origins).toEqual(['https://app.example']);
  });

  it.each([
    ['cert_file', 'server:\n  protocol: https\n  cert_key: /k.pem\n'],
    ['cert_key', 'server:\n  protocol: https\n  cert_file: /c.pem\n'],
  ])('https without server.%s stops start-up naming it', (key, text) => {
    expect(() => loadConfigWithSources({ file: file(`https-${key}.yml`, text), env: {} })).toThrow(
      new ConfigError(`server.${key}: required when server.protocol is https`),
    );
  });

  it("Vexil's own name wins over Flipt's in the same file", () => {
    const { config, origins } = loadConfigWithSources({
      file: file('both.yml', 'cache:\n  ttl: 5m\ncaching:\n  ttl: 10s\n'),
      env: {},
    });
    expect(config.caching.ttl).toBe(10_000);
    expect(origins.get('caching.ttl')).toMatchObject({ name: 'caching.ttl' });
  });

  it('reads FLIPT_* variables with the same mapping; a VEXIL_* variable wins', () => {
    const { config, origins, warnings } = loadConfigWithSources({
      env: {
        FLIPT_LOG_LEVEL: 'DEBUG',
        FLIPT_CACHE_ENABLED: '1',
        FLIPT_CACHE_TTL: '2m',
        FLIPT_SERVER_HTTP_PORT: '8090',
        VEXIL_SERVER_HTTP_PORT: '8091',
        FLIPT_DB_URL: 'file:/var/opt/flipt/flipt.db',
        FLIPT_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'tok',
        FLIPT_META_TELEMETRY_ENABLED: 'false',
        FLIPT_UI_DEFAULT_THEME: 'dark',
        FLIPT_NOT_A_KEY: 'x',
      },
    });
    expect(config.log.level).toBe('debug');
    expect(config.caching).toMatchObject({ enabled: true, ttl: 120_000 });
    expect(config.server.http_port).toBe(8091);
    expect(config.db.url).toBe('file:/var/opt/flipt/flipt.db');
    expect(config.authentication.methods.token.bootstrap.token).toBe('tok');
    expect(origins.get('caching.ttl')).toEqual({ source: 'env', name: 'FLIPT_CACHE_TTL' });
    expect(origins.get('server.http_port')).toEqual({
      source: 'env',
      name: 'VEXIL_SERVER_HTTP_PORT',
    });
    expect(warnings).toEqual([
      'FLIPT_NOT_A_KEY matches no Flipt configuration key; ignored',
      'FLIPT_UI_DEFAULT_THEME ("dark") is a Flipt setting Vexil does not support; ignored',
    ]);
  });

  it('FLIPT_* variables override the file, as in Flipt', () => {
    const { config } = loadConfigWithSources({
      file: file('env-over-file.yml', 'cache:\n  ttl: 5m\nlog:\n  level: ERROR\n'),
      env: { FLIPT_CACHE_TTL: '7s', FLIPT_LOG_LEVEL: 'info' },
    });
    expect(config.caching.ttl).toBe(7000);
    expect(config.log.level).toBe('info');
  });

  it('replaces ${VAR} values with the variable, as Flipt does', () => {
    const { config } = loadConfigWithSources({
      file: file('vars.yml', 'db:\n  url: ${DATABASE_URL}\n'),
      env: { DATABASE_URL: 'postgres://u:p@h:5432/d' },
    });
    expect(config.db.url).toBe('postgres://u:p@h:5432/d');
  });

  it("builds db.url from Flipt's split form when no URL is given", () => {
    const { config, origins } = loadConfigWithSources({
      file: file(
        'split.yml',
        'db:\n  protocol: postgres\n  host: db.internal\n  port: 5432\n  name: flipt\n  user: flipt\n  password: "p@ss word"\n',
      ),
      env: {},
    });
    expect(config.db.url).toBe('postgres://flipt:p%40ss%20word@db.internal:5432/flipt');
    expect(origins.get('db.url')).toEqual({
      source: 'derived',
      from: ['db.protocol', 'db.host', 'db.port', 'db.name', 'db.user', 'db.password'],
    });
    expect(describeOrigin('db.url', origins.get('db.url') as ConfigOrigin)).toBe(
      'derived from db.protocol, db.host, db.port, db.name, db.user, db.password',
    );
    const sqlite = loadConfigWithSources({
      env: { FLIPT_DB_PROTOCOL: 'sqlite', FLIPT_DB_NAME: '/var/opt/flipt/flipt.db' },
    });
    expect(sqlite.config.db.url).toBe('file:/var/opt/flipt/flipt.db');
    const url = loadConfigWithSources({
      env: { VEXIL_DB_URL: 'file:x.db', VEXIL_DB_PROTOCOL: 'mysql' },
    });
    expect(url.config.db.url).toBe('file:x.db');
    expect(() => loadConfigWithSources({ env: { FLIPT_DB_PROTOCOL: 'mysql' } })).toThrow(
      new ConfigError('db.host: must be set when db.url is not (with db.protocol mysql)'),
    );
    expect(() => loadConfigWithSources({ env: { FLIPT_DB_PROTOCOL: 'libsql' } })).toThrow(
      ConfigError,
    );
  });

  it('takes storage.read_only as the read-only mode', () => {
    const { config } = loadConfigWithSources({
      file: file('ro.yml', 'storage:\n  type: database\n  read_only: true\n'),
      env: {},
    });
    expect(config.server.mode).toBe('read-only');
  });

  it('warns about a trace exporter other than OTLP instead of stopping', () => {
    const { config, warnings } = loadConfigWithSources({
      file: file('jaeger.yml', 'tracing:\n  enabled: true\n  exporter: jaeger\n'),
      env: { FLIPT_TRACING_EXPORTER: 'zipkin' },
    });
    expect(config.tracing.exporter).toBe('otlp');
    expect(warnings).toEqual([
      'tracing.exporter ("jaeger") is a Flipt setting Vexil does not support; ignored: traces are exported over OTLP to tracing.otlp.endpoint',
      'FLIPT_TRACING_EXPORTER ("zipkin") is a Flipt setting Vexil does not support; ignored: traces are exported over OTLP to tracing.otlp.endpoint',
    ]);
  });

  it('still refuses a key that is neither Vexil nor Flipt', () => {
    expect(() =>
      loadConfigWithSources({ file: file('typo.yml', 'cache:\n  enabld: true\n'), env: {} }),
    ).toThrow(new ConfigError('cache.enabld: unknown key'));
  });
});
