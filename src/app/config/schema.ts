import { CACHE_BACKEND_NAMES } from '../../adapters/cache/registry';
import convict from 'convict';
import { parseDuration } from './duration';
import { DEFAULT_SNAPSHOT_MAX_BYTES } from '../../adapters/snapshot';
import { checkDatabaseUrl } from './database-url';

/*
 * Every key has doc, format, default and env. The environment name of a key is VEXIL_ plus
 * its path in upper case with dots as underscores; it is derived, never typed by hand.
 */

convict.addFormat({
  name: 'duration',
  validate(value: unknown) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error('must be a duration such as 500ms, 30s, 5m or 1h');
    }
  },
  coerce(value: unknown) {
    // Unparsable text stays a string so validation reports it against its key.
    try {
      return parseDuration(String(value));
    } catch {
      return String(value);
    }
  },
});

convict.addFormat({
  name: 'bool',
  validate(value: unknown) {
    if (typeof value !== 'boolean') throw new Error('must be true or false');
  },
  coerce: (value: unknown) => (value === 'true' ? true : value === 'false' ? false : value),
});

convict.addFormat({
  name: 'db-url',
  validate(value: unknown) {
    if (typeof value !== 'string') throw new Error('must be a string');
    checkDatabaseUrl(value);
  },
});

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];
convict.addFormat({
  name: 'log-level',
  validate(value: unknown) {
    if (typeof value !== 'string' || !LOG_LEVELS.includes(value)) {
      throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
    }
  },
  // Flipt's levels in any case; its panic and fatal levels log errors.
  coerce(value: unknown) {
    const level = String(value).toLowerCase();
    return ['dpanic', 'panic', 'fatal'].includes(level)
      ? 'error'
      : level === 'warning'
        ? 'warn'
        : level;
  },
});

convict.addFormat({
  name: 'ratio',
  validate(value: unknown) {
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
      throw new Error('must be a number between 0 and 1');
    }
  },
  coerce: Number,
});

convict.addFormat({
  name: 'string-list',
  validate(value: unknown) {
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
      throw new Error('must be a list of strings');
    }
  },
  // From the environment (or a single string in a file): split on whitespace, as Flipt does, and commas.
  coerce: (value: unknown) =>
    typeof value === 'string' ? value.split(/[\s,]+/).filter((v) => v !== '') : value,
});

convict.addFormat({
  name: 'string-map',
  validate(value: unknown) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error('must be a map of strings');
    }
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') throw new Error(`value of "${k}" must be a string`);
    }
  },
  coerce(value: unknown) {
    // From the environment: "key1=value1,key2=value2".
    if (typeof value !== 'string') return value;
    const out: Record<string, string> = {};
    for (const pair of value.split(',').filter((p) => p.trim() !== '')) {
      const i = pair.indexOf('=');
      if (i <= 0) return value;
      out[pair.slice(0, i).trim()] = pair.slice(i + 1).trim();
    }
    return out;
  },
});

const schemaDefinition = {
  server: {
    host: { doc: 'Address both listeners bind to.', format: String, default: '0.0.0.0' },
    http_port: {
      doc: 'HTTP port (0: an ephemeral port, logged at start).',
      format: 'port',
      default: 8080,
    },
    grpc_port: {
      doc: 'gRPC port (0: an ephemeral port, logged at start).',
      format: 'port',
      default: 9000,
    },
    protocol: {
      doc: 'http, or https: TLS on both listeners with server.cert_file and server.cert_key, HTTP on server.https_port.',
      format: ['http', 'https'],
      default: 'http',
    },
    https_port: {
      doc: 'HTTPS port, used instead of server.http_port when server.protocol is https.',
      format: 'port',
      default: 443,
    },
    cert_file: {
      doc: 'With https: PEM file of the certificate (and its chain).',
      format: String,
      default: '',
    },
    cert_key: {
      doc: 'With https: PEM file of the private key.',
      format: String,
      default: '',
    },
    mode: {
      doc: 'read-write, or read-only for an evaluation tier (writes are refused).',
      format: ['read-write', 'read-only'],
      default: 'read-write',
    },
    shutdown_drain: {
      doc: 'After SIGTERM/SIGINT, how long health answers NOT_SERVING while both listeners keep serving (every HTTP response then closes its connection), so load balancers stop sending before connections are refused. 0: stop accepting at once.',
      format: 'duration',
      default: parseDuration('5s'),
    },
    shutdown_timeout: {
      doc: 'Once the listeners stop accepting (after server.shutdown_drain), how long in-flight requests may take to finish before they are cut.',
      format: 'duration',
      default: parseDuration('15s'),
    },
    max_body_bytes: {
      doc: 'Largest accepted HTTP request body and gRPC request message, in bytes (larger: HTTP 413 before parsing, gRPC RESOURCE_EXHAUSTED).',
      format: 'nat',
      default: 4 * 1024 * 1024,
    },
    max_import_bytes: {
      doc: 'Largest import accepted over HTTP (POST /api/v1/import), in bytes (larger: 413 before parsing).',
      format: 'nat',
      default: 64 * 1024 * 1024,
    },
  },
  db: {
    url: {
      doc: 'Database: a file path or file:/sqlite: URL (embedded SQLite), postgres://, mysql:// or cockroach://.',
      format: 'db-url',
      default: 'file:./data/vexil.db',
      sensitive: true,
    },
    protocol: {
      doc: "With db.url unset: the database kind, joined with the keys below into the URL (Flipt's split form).",
      format: ['', 'sqlite', 'file', 'postgres', 'postgresql', 'mysql', 'cockroach', 'cockroachdb'],
      default: '',
    },
    host: { doc: 'With db.protocol: the database server host.', format: String, default: '' },
    port: {
      doc: 'With db.protocol: the server port (0: the default port).',
      format: 'port',
      default: 0,
    },
    name: {
      doc: 'With db.protocol: the database name (for sqlite, the file path).',
      format: String,
      default: '',
    },
    user: { doc: 'With db.protocol: the user name.', format: String, default: '' },
    password: {
      doc: 'With db.protocol: the password.',
      format: String,
      default: '',
      sensitive: true,
    },
    max_open_conn: {
      doc: 'Most open connections (0: driver default). SQLite uses one.',
      format: 'nat',
      default: 0,
    },
    max_idle_conn: { doc: 'Most idle connections kept in the pool.', format: 'nat', default: 2 },
    conn_max_lifetime: {
      doc: 'Close connections older than this (0: never).',
      format: 'duration',
      default: 0,
    },
    connect_retry_max_backoff: {
      doc: 'Longest wait between attempts while the database cannot be reached at start.',
      format: 'duration',
      default: parseDuration('30s'),
    },
  },
  caching: {
    enabled: {
      doc: 'Serve evaluations from a cache without any database read on the hot path.',
      format: 'bool',
      default: false,
    },
    backend: {
      doc: 'memory (private to the instance) or redis (shared).',
      format: [...CACHE_BACKEND_NAMES],
      default: 'memory',
    },
    ttl: {
      doc: 'Longest time a cached snapshot is served without a refresh.',
      format: 'duration',
      default: parseDuration('60s'),
    },
    memory: {
      max_entries: {
        doc: 'Most namespace snapshots kept in memory.',
        format: 'nat',
        default: 1000,
      },
      max_bytes: {
        doc: 'Most bytes of snapshots kept in memory (estimated per namespace).',
        format: 'nat',
        default: 256 * 1024 * 1024,
      },
    },
    redis: {
      url: {
        doc: 'redis:// or rediss:// URL; when set it wins over host/port/password/db.',
        format: String,
        default: '',
        sensitive: true,
      },
      host: { doc: 'Redis host.', format: String, default: 'localhost' },
      port: { doc: 'Redis port.', format: 'port', default: 6379 },
      password: { doc: 'Redis password.', format: String, default: '', sensitive: true },
      db: { doc: 'Redis database number.', format: 'nat', default: 0 },
      prefix: {
        doc: 'Prefix of every key and channel Vexil uses.',
        format: String,
        default: 'vexil:',
      },
      tls: {
        enabled: { doc: 'Connect with TLS.', format: 'bool', default: false },
        ca_file: { doc: 'PEM file of the CA to trust.', format: String, default: '' },
        insecure_skip_verify: {
          doc: 'Do not verify the server certificate.',
          format: 'bool',
          default: false,
        },
      },
    },
  },
  evaluation: {
    max_batch_size: {
      doc: 'Most requests in one batch evaluation (larger: 400).',
      format: 'nat',
      default: 1000,
    },
    snapshot_max_bytes: {
      doc: 'Largest client snapshot document served, in bytes of JSON (larger: 429 RESOURCE_EXHAUSTED naming the size).',
      format: 'nat',
      default: DEFAULT_SNAPSHOT_MAX_BYTES,
    },
  },
  authentication: {
    required: {
      doc: 'Require a client token on every API except /health, /metrics and /auth/v1/method.',
      format: 'bool',
      default: false,
    },
    exclude: {
      management: {
        doc: 'With required: the management API (/api/v1, gRPC flipt.Flipt, legacy evaluation included) needs no token.',
        format: 'bool',
        default: false,
      },
      evaluation: {
        doc: 'With required: evaluation (/evaluate/v1, the client snapshot, their gRPC services) needs no token.',
        format: 'bool',
        default: false,
      },
      ofrep: {
        doc: "With required: OFREP needs no token (accepted for Flipt's files; Vexil does not serve OFREP).",
        format: 'bool',
        default: false,
      },
    },
    methods: {
      token: {
        enabled: {
          doc: 'Enable the token method (creating client tokens).',
          format: 'bool',
          default: false,
        },
        bootstrap: {
          token: {
            doc: 'Client token created at start when no token exists yet.',
            format: String,
            default: '',
            sensitive: true,
          },
          expiration: {
            doc: 'Lifetime of the bootstrap token (0: never expires).',
            format: 'duration',
            default: 0,
          },
        },
        cleanup: {
          interval: {
            doc: 'How often expired tokens are deleted.',
            format: 'duration',
            default: parseDuration('1h'),
          },
          grace_period: {
            doc: 'How long after expiry a token is kept before deletion.',
            format: 'duration',
            default: parseDuration('30m'),
          },
        },
      },
    },
  },
  cors: {
    enabled: {
      doc: 'Answer cross-origin requests from browsers (CORS), on every route.',
      format: 'bool',
      default: false,
    },
    allowed_origins: {
      doc: 'Origins allowed (* for any; one * inside an origin matches any text, https://*.example.com).',
      format: 'string-list',
      default: ['*'] as string[],
    },
    allowed_headers: {
      doc: 'Request headers a cross-origin request may carry (* for any).',
      format: 'string-list',
      default: [
        'Accept',
        'Authorization',
        'Content-Type',
        'X-CSRF-Token',
        'X-Fern-Language',
        'X-Fern-SDK-Name',
        'X-Fern-SDK-Version',
        'X-Flipt-Namespace',
        'X-Flipt-Accept-Server-Version',
      ] as string[],
    },
  },
  log: {
    level: {
      doc: 'debug, info, warn or error, in any case (Flipt writes INFO).',
      format: 'log-level',
      default: 'info',
    },
    encoding: {
      doc: 'json, console, or auto (console on a terminal, json otherwise).',
      format: ['auto', 'json', 'console'],
      default: 'auto',
    },
  },
  ui: {
    enabled: {
      doc: 'Serve the web dashboard at / on the HTTP port.',
      format: 'bool',
      default: true,
    },
  },
  metrics: {
    enabled: { doc: 'Serve Prometheus metrics at /metrics.', format: 'bool', default: true },
  },
  tracing: {
    enabled: { doc: 'Export traces over OTLP.', format: 'bool', default: false },
    exporter: {
      doc: "Trace exporter; only otlp (Flipt's key, so its configuration files load).",
      format: ['otlp'],
      default: 'otlp',
    },
    sampling_ratio: {
      doc: 'Share of new traces sampled, 0 to 1; a caller’s sampling decision is always followed.',
      format: 'ratio',
      default: 1,
    },
    otlp: {
      endpoint: {
        doc: 'Collector: an http(s):// base URL for OTLP/HTTP (spans go to <endpoint>/v1/traces), or grpc://host:port, host:port or https://host:port for OTLP/gRPC.',
        format: String,
        default: 'http://localhost:4318',
      },
      protocol: {
        doc: 'auto (from the endpoint, as Flipt: http(s):// is OTLP/HTTP protobuf, grpc:// or host:port is gRPC), http/protobuf, http/json or grpc.',
        format: ['auto', 'http/protobuf', 'http/json', 'grpc'],
        default: 'auto',
      },
      headers: {
        doc: 'Headers sent with every export (env: k1=v1,k2=v2).',
        format: 'string-map',
        default: {} as Record<string, string>,
        sensitive: true,
      },
    },
  },
};

type Leaf = { doc: string; format: unknown; default: unknown; env?: string; sensitive?: boolean };

/** Every key path of the schema with its definition, in declaration order. */
export function schemaLeaves(
  node: Record<string, unknown> = schemaDefinition,
  prefix = '',
): Array<[string, Leaf]> {
  return Object.entries(node).flatMap(([name, child]) => {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    return typeof child === 'object' && child !== null && 'doc' in child
      ? [[path, child as Leaf] as [string, Leaf]]
      : schemaLeaves(child as Record<string, unknown>, path);
  });
}

export const envNameOf = (path: string): string =>
  `VEXIL_${path.toUpperCase().replace(/\./g, '_')}`;

function withEnvNames<T extends Record<string, unknown>>(node: T, prefix = ''): T {
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(node)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    out[name] =
      typeof child === 'object' && child !== null && 'doc' in child
        ? { ...child, env: envNameOf(path) }
        : withEnvNames(child as Record<string, unknown>, path);
  }
  return out as T;
}

export const configSchema = withEnvNames(schemaDefinition);

export type VexilConfigSchema = typeof schemaDefinition;
export const createConvict = (env: NodeJS.ProcessEnv) => convict(configSchema, { env, args: [] });
